"""The calling side of IREE's coarse-fences ABI: `hal.fence.*` and calls to `$async` functions.

IREE wraps every `$async` entry point (`iree.abi.model = "coarse-fences"`, signature
`(inputs..., wait fence, signal fence) -> results`) in a synchronous function:

    %wait = util.null : !hal.fence
    %signal = hal.fence.create device(%device : !hal.device) flags("None") : !hal.fence
    %r = util.call @f$async(%input, %wait, %signal) : (...) -> !hal.buffer_view
    %status = hal.fence.await until([%signal]) timeout_millis(%c-1_i32) flags("None") : i32
    util.return %r : !hal.buffer_view

The callee may return before its work is done: it reads its inputs once the wait fence is
signalled, and its results hold their contents only once it signals the signal fence (its own
verification checks that `chain_external` on that fence covers every write the caller
observes, `verify.obligations.completion`). The caller's side, modelled here:

* the call is a host op; the callee touches its inputs at an event after the call and after the
  wait fence is signalled (`util.null`: at once; a fence another call signals: after that
  signal; the caller's own wait fence argument: after the caller's caller signals it);
* the signal fence is signalled at an event after that; the call's non-scalar results are ready
  only there (a readiness use of one before a wait covering it is a MISSED_WAIT with
  `rule="coarse-fences"`, `verify.obligations.readiness`);
* `hal.fence.await` with an infinite timeout (-1) orders every later host op after each fence it
  waits for; `hal.fence.join` is signalled once all its fences are; a finite or unknown timeout
  orders nothing (the wait may give up: a false alarm the note explains, never a silent miss);
* every op using a result is a use of it (at its own host site, or at the input event of a
  coarse-fences call that takes it), except the metadata queries (`METADATA`: shape, type and
  encoding are set when the call returns);
* the signal fence must be fresh: made by `hal.fence.create` in this function and handed as the
  signal fence of this call alone. Otherwise what signals it is unknown, and each use of the
  results is undecided (`shape="opaque"`), never proved.

Program order on the host is exact in a straight-line function, so these events decide the
obligations by reachability (`verify.hb`), as everywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stream.dialect.abi import is_fence
from stream.ir.core import Op, Value
from stream.ir.rule_table import OpSet
from stream.ir.types import FloatType, IndexType, IntegerType
from stream.ir.walk import constant_int, defining_ops
from verify.calls import FENCE_WAITERS, FenceCall, fence_callee, stale_signal_fence
from verify.events import Site
from verify.model import Builder, Use
from verify.rules.table import effect

__all__ = ["METADATA", "fence_call", "record_fence_uses"]

METADATA = OpSet("METADATA", "Buffer-view queries of what is set when a coarse-fences call returns (shape, type, encoding): "
                 "not uses of its contents.",
                 {"hal.buffer_view.dim", "hal.buffer_view.rank", "hal.buffer_view.element_type",
                  "hal.buffer_view.encoding_type", "hal.buffer_view.assert"})


@dataclass(slots=True, eq=False)
class _State:
    """Per function model: defining ops, and the event at which each fence is signalled."""

    defs: dict[Value, Op]
    signalled: dict[Value, int | None] = field(default_factory=dict)


def _state(b: Builder) -> _State:
    state = b.model.fence_state
    if not isinstance(state, _State):
        state = b.model.fence_state = _State(defining_ops(b.model.func.body))
    return state


def _fence_event(b: Builder, fence: Value, op: Op) -> tuple[bool, int | None]:
    """(known, event): when `fence` is signalled. `util.null` is signalled already (known, no
    event); a fence some call here signals, at that call's event; the function's own wait
    fence, where its caller signals it; anything else is unknown."""
    state = _state(b)
    if fence in state.signalled:
        return True, state.signalled[fence]
    if fence in b.model.wait_fences:
        return True, b.wait_fence_site(fence, op).start
    d = state.defs.get(fence)
    if d is not None and d.name == "util.null":
        return True, None
    return False, None


def fence_call(b: Builder, op: Op, s: FenceCall) -> None:
    """The effect of a call to a coarse-fences function (see the module docstring)."""
    name = f"@{s.callee}"
    site = b.host(op, f"call {name}")
    wait, signal = op.operands[-2], op.operands[-1]
    known, wait_e = _fence_event(b, wait, op)
    preds = [(site.start, f"called {name}")]
    if wait_e is not None:
        preds.append((wait_e, "its wait fence is signalled"))
    touch = b.graph.site_of[b.reach(f"{name} reads its inputs once its wait fence is signalled", preds, op)]
    assert touch is not None
    # A wait fence nobody here signals (unknown): the callee may read at once, the earliest point.
    del known
    for v in op.operands[:-2]:
        if v in b.model.ready:
            b.model.uses.append(_use(touch, v))
    e = b.reach(f"{name} signals its signal fence", [(touch.start, "after reading its inputs")], op)
    _state(b).signalled[signal] = e
    b.external_signal((signal,), e)
    ready = b.graph.site_of[e]
    assert ready is not None
    stale = stale_signal_fence(b.model.module, b.model.func.body.ops, op)
    if stale is not None:
        b.model.opaque_handoffs[ready] = f"the results of the call to {name}: {stale}"
    b.model.call_handoffs[ready] = signal
    for r in op.results:
        if not isinstance(r.type, (IndexType, IntegerType, FloatType)):
            b.model.ready[r] = ready


@effect("hal.fence.await")
def fence_await(b: Builder, op: Op) -> None:
    """A host wait: with an infinite timeout, every later host op follows each fence's signal."""
    site = b.host(op, "hal.fence.await")
    if not op.operands or constant_int(op.operands[0], _state(b).defs) != -1:
        return  # a finite or unknown timeout may give up: the wait orders nothing
    for fence in op.operands[1:]:
        _known, e = _fence_event(b, fence, op)
        if e is not None:
            b.graph.edge(e, site.start, "hal.fence.await")


@effect("hal.fence.join")
def fence_join(b: Builder, op: Op) -> None:
    """Signalled once every fence it joins is; an unknown one among them leaves it unknown."""
    events: list[tuple[int, str]] = []
    for fence in op.operands:
        known, e = _fence_event(b, fence, op)
        if not known:
            return
        if e is not None:
            events.append((e, "joined fence signalled"))
    _state(b).signalled[op.results[0]] = b.reach("hal.fence.join", events) if events else None


@effect("hal.fence.create", "util.null", "hal.devices.get", "hal.devices.count")
def no_event(b: Builder, op: Op) -> None:
    """A fresh fence (signalled by whoever it is handed to), a null value, a device handle:
    nothing happens on the timeline."""


def record_fence_uses(b: Builder, op: Op, first_site: int) -> None:
    """After `op`'s rule: each operand of `op` (or of an op it holds) that a coarse-fences call
    returned is used here, at the first top-level site `op`'s rule made (a host site of its own
    if it made none), unless `op` only asks for metadata or is the call that takes it (its rule
    placed the use at the callee's input event)."""
    ready = b.model.ready
    if op.name in METADATA or op.name in FENCE_WAITERS or (op.name in ("util.call", "func.call") and fence_callee(b.model.module, op)):
        return
    used = [v for inner in op.walk() for v in inner.operands
            if v in ready and ready[v] in b.model.call_handoffs and is_fence(b.model.call_handoffs[ready[v]])]
    if not used:
        return
    site = next((s for s in b.graph.sites[first_site:] if s.path == () and s.op is op), None)
    if site is None:
        site = b.host(op, op.name)
    seen: set[Value] = set()
    for v in used:
        if v not in seen:
            seen.add(v)
            b.model.uses.append(_use(site, v))


def _use(site: Site, v: Value) -> Use:
    return Use(site, v)

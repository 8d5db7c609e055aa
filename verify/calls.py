"""Calls to private functions of the module (SPEC §3.1 rule 8, `stream.dialect.abi`).

A private function may return a resource unready together with a timepoint (IREE's
PropagateTimepoints pairs); its own verification checks that the value and the work on its
storage are done once that timepoint is reached (`verify.rules.host_ops`). The caller, in turn,
must await that timepoint before it uses the value. For a call to a private function of the
module this module adds what the callee's return promises (`after_call`):

* each result timepoint the callee derives from work of its own is reached at a *returned
  timepoint* event after the call (ordered after another returned timepoint when the callee's
  timeline says it covers it);
* the resource handed over with it is ready only there: using it without a wait that covers the
  timepoint is a MISSED_WAIT (`rule="call-handoff"`). For a call without a summary that verdict
  stands although the call has no effect rule, unless the timepoint passes through an op without
  an effect rule before the use (it might come back as a timepoint that is awaited), or the user
  is itself such an op (another call may take the pair unready).

A returned timepoint that is immediate, an argument, or made by an op without an effect rule
promises nothing beyond the return: its resource is ready when the call returns, as before.

When the callee can be summarised (`summarize`: what it does to each argument and what it
returns, from its own model), the call has an effect of its own (`summarized_call`, applied by
`verify.rules`; its results' storage by `call_storage`, applied by `verify.storage`); otherwise
it stays an op without an effect rule (`verify.rules.unknown_op`, `verify.unmodelled`: its
results may alias anything) and the reason is kept for the diagnostics.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from stream.dialect.abi import coarse_fences, handed_in_pairs, handed_pairs, is_fence, is_private
from stream.ir.attributes import StringAttr, SymbolRefAttr
from stream.ir.core import Module, Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import OpSet, Requirement
from stream.ir.types import FloatType, IndexType, IntegerType, ResourceType, TimepointType
from stream.ir.walk import Function, defining_ops, function
from verify.events import Site
from verify.model import Builder
from verify.symbolic import ZERO

__all__ = ["CALL_OPS", "FENCE_WAITERS", "CallSummary", "FenceCall", "fence_callee", "stale_signal_fence", "after_call", "call_storage", "returned_timepoints", "summarize", "summarized_call"]

CALL_OPS = OpSet("CALL_OPS", "The call ops (a private callee's summary applies to them).", {"util.call", "func.call"},
                 requires=Requirement(traits=frozenset({"call"})))
_PASS_THROUGH = OpSet("_PASS_THROUGH", "Timepoint ops a returned timepoint's waits pass through (joins: the union of their inputs').",
                      {"stream.timepoint.join"})
_NOTHING = OpSet("_NOTHING", "Timepoint ops whose timepoint waits for nothing.", {"stream.timepoint.immediate"})

# Ops that take a fence without signalling it.
FENCE_WAITERS = OpSet("FENCE_WAITERS", "Ops that take a fence without signalling it.", {"hal.fence.await", "hal.fence.join", "hal.fence.query"})

# {result index of a handed resource: (its timepoint's index, the ops that timepoint waits for)}
Handed = dict[int, tuple[int, frozenset[Op]]]


def _callee(module: Module | None, op: Op) -> Function | None:
    callee = op.properties.get("callee")
    if module is None or not isinstance(callee, SymbolRefAttr) or callee.nested:
        return None
    f = function(module, callee.root)
    return f if f is not None and is_private(f) and len(f.blocks) == 1 else None


def returned_timepoints(f: Function) -> Handed | None:
    """For each resource `f` returns with a timepoint made by its own modelled work: the index of
    that timepoint, and the ops it transitively waits for. None when `f` cannot say."""
    from verify.rules import EFFECTS

    ops = f.body.ops
    if not ops or ops[-1].name not in ("util.return", "func.return"):
        return None
    defs = defining_ops(f.body)
    memo: dict[Value, frozenset[Op] | None] = {}

    def closure(t: Value, depth: int = 0) -> frozenset[Op] | None:
        """What `t` waits for: the modelled ops that reach it; None if an unmodelled one does."""
        if t in memo:
            return memo[t]
        d = defs.get(t)
        res: frozenset[Op] | None
        if d is None or d.name in _NOTHING or depth > 200:
            res = frozenset() if depth <= 200 else None
        elif d.name not in EFFECTS:
            res = None
        else:
            parts = [closure(v, depth + 1) for v in d.operands if isinstance(v.type, TimepointType)]
            if any(p is None for p in parts):
                res = None
            else:
                acc: set[Op] = set() if d.name in _PASS_THROUGH else {d}
                for p in parts:
                    acc |= p  # type: ignore[arg-type]
                res = frozenset(acc)
        memo[t] = res
        return res

    ret = ops[-1]
    out: Handed = {}
    for i, j in handed_pairs(f, ret).items():
        c = closure(ret.operands[j])
        if c is None:
            return None
        if c:
            out[i] = (j, c)
    return out


def after_call(b: Builder, op: Op, site: Site) -> None:
    """Add the callee's promises about the timepoints it returns (see the module docstring)."""
    f = _callee(b.model.module, op)
    if f is None:
        return
    # Summarised once per caller model (not in a process-wide cache keyed by the callee's id).
    if f.op in b.call_summaries:
        handed = b.call_summaries[f.op]
    else:
        handed = b.call_summaries[f.op] = returned_timepoints(f)
    if not handed:
        return
    name = f"@{f.name}"
    reached: dict[int, tuple[int, frozenset[Op]]] = {}
    for i, (j, c) in sorted(handed.items(), key=lambda kv: len(kv[1][1])):
        if j >= len(op.results) or i >= len(op.results):
            return
        preds = [(site.start, f"returned by the call to {name}")]
        preds += [(e, "covered, in the callee") for k, (e, ck) in reached.items() if k != j and ck <= c]
        t = op.results[j]
        if j not in reached:
            e = b.reach(f"timepoint {t.name_hint and '%' + t.name_hint or '#' + str(j)} returned by {name}", preds, op)
            reached[j] = (e, c)
            b.timepoint(t, e)
        r_site = b.graph.site_of[reached[j][0]]
        assert r_site is not None
        b.model.ready[op.results[i]] = r_site
        b.model.call_handoffs[r_site] = t


# -- summaries: what a call to a private function does to its arguments -----------------------

# The callees whose summary is being computed (a call back into one of them has no summary:
# recursion is not modelled). Scoped to one summary computation, never left set.
_VISITING: ContextVar[frozenset[Op]] = ContextVar("streamproof_call_visiting", default=frozenset())


@dataclass(frozen=True)
class CallSummary:
    """What a private callee does, from its own model (its own obligations are proved when it is
    verified as a function of the module; this is what the caller may rely on then):

    * `modes`: for each resource argument, the access modes of everything the callee does to
      its storage (read, write); `written`: the arguments it writes in place;
    * `results`: for each resource result, the argument whose storage it is (at offset 0), or
      None for a fresh value the callee made;
    * `handed_in`: the arguments it takes unready with a timepoint (stream.dialect.abi), touched
      only once that timepoint is reached;
    * `timepoints`: each timepoint result not handed over with a resource (`returned_timepoints`
      covers those): the argument it passes through, or None for an immediate one."""

    callee: str
    modes: dict[int, int]
    written: frozenset[int]
    results: dict[int, int | None]
    handed_in: dict[int, int]
    timepoints: dict[int, int | None]
    placements: dict[int, frozenset[str] | None]  # fresh results: the devices the callee made them on


def _symbol(op: Op) -> str | None:
    name = op.properties.get("sym_name")
    return name.value if isinstance(name, StringAttr) else None


def _no_callee(module: Module | None, op: Op) -> str:
    callee = op.properties.get("callee")
    if module is not None and isinstance(callee, SymbolRefAttr) and any(
            _symbol(o) == callee.root for o in module.ops if not o.regions or not o.regions[0].blocks):
        return f"@{callee.root} is declared only"
    return "the callee is not a private function of the module"


def summarize(module: Module | None, op: Op) -> CallSummary | str:
    """The summary of the private callee of `op`, or why there is none to rely on: the
    callee is not a private function with a body in `module`, calls back into a function being
    summarised (recursion), is not at the async or tensor level, uses the async ABI or wait
    fences, holds an op without an effect rule, or returns something other than its arguments'
    storage, fresh values, scalars and timepoints it made, was given or are immediate."""
    from verify.model import build_model

    f = _callee(module, op)
    if f is None:
        return _no_callee(module, op)
    visiting = _VISITING.get()
    if f.op in visiting:
        return f"@{f.name} calls itself, directly or through other calls (recursion is not modelled)"
    token = _VISITING.set(visiting | {f.op})
    try:
        model = build_model(f, module)
    except DiagnosticError as e:
        return f"@{f.name} cannot be modelled ({e.diagnostic.message})"
    finally:
        _VISITING.reset(token)
    if model.level not in ("async", "tensor") or model.async_abi or model.wait_fences:
        return f"@{f.name} is a {model.level}-level function or uses the coarse-fences ABI (only async and tensor level callees are summarised)"
    why = _unmodelled_in(f, model)
    if why is not None:
        return why
    handed = returned_timepoints(f)
    if handed is None:
        return f"@{f.name} returns a timepoint made by an op without an effect rule"
    args: dict[int, int] = {}  # allocation id -> argument index
    for k, a in enumerate(f.arguments):
        view = model.storage.view(a)
        if view is not None:
            args[view.alloc.id] = k
    accessed = _argument_modes(f, model, args)
    if isinstance(accessed, str):
        return accessed
    returned = _returned(f, model, args, {j for j, _c in handed.values()})
    if isinstance(returned, str):
        return returned
    modes, written = accessed
    results, timepoints = returned
    placements = {i: view.alloc.placement for i, v in enumerate(f.body.ops[-1].operands)
                  if results.get(i, 0) is None and (view := model.storage.view(v)) is not None}
    return CallSummary(f.name, modes, written, results, handed_in_pairs(f), timepoints, placements)


def _unmodelled_in(f: Function, model: Any) -> str | None:
    """An op of `f` without an effect rule on storage or the timeline (verify.unmodelled)."""
    from verify.rules import EFFECTS, PURE

    known = model.storage.call_summaries
    for o in f.op.walk():
        if o is not f.op and o.name not in EFFECTS and o.name not in PURE and o not in known and any(
                isinstance(v.type, (ResourceType, TimepointType)) or str(v.type) == "!hal.fence" for v in (*o.operands, *o.results)):
            why = model.storage.call_reasons.get(o)
            if why is not None and why.endswith("(recursion is not modelled)"):
                return f"@{f.name} calls itself, directly or through other calls (recursion is not modelled)"
            return f"@{f.name} holds '{o.name}' at {o.location}, which has no effect rule" + (f" ({why})" if why else "")
    return None


def _argument_modes(f: Function, model: Any, args: dict[int, int]) -> tuple[dict[int, int], frozenset[int]] | str:
    """The access modes of `f` on each argument's storage, and the arguments it writes."""
    from verify.model import WRITE
    from verify.storage import AllocKind

    modes: dict[int, int] = {}
    written: set[int] = set()
    for acc in model.accesses:
        if acc.view.alloc.kind is AllocKind.UNKNOWN:
            return f"@{f.name} accesses storage it knows nothing about"
        arg = args.get(acc.view.alloc.id)
        if arg is not None:
            modes[arg] = modes.get(arg, 0) | acc.mode
            if acc.mode & WRITE:
                written.add(arg)
    return modes, frozenset(written)


def _returned(f: Function, model: Any, args: dict[int, int], handed_timepoints: set[int]
              ) -> tuple[dict[int, int | None], dict[int, int | None]] | str:
    """For each resource `f` returns, the argument whose storage it is (None: a fresh value);
    for each timepoint not handed over with a resource, the argument it passes (None: immediate)."""
    from verify.storage import AllocKind

    results: dict[int, int | None] = {}
    timepoints: dict[int, int | None] = {}
    defs = defining_ops(f.body)
    for i, v in enumerate(f.body.ops[-1].operands):
        if isinstance(v.type, ResourceType):
            view = model.storage.view(v)
            if view is not None and view.alloc.kind is AllocKind.ARGUMENT and view.alloc.id in args and view.offset == ZERO:
                results[i] = args[view.alloc.id]
            elif view is not None and view.alloc.kind is AllocKind.VALUE:
                results[i] = None
            else:
                return f"@{f.name} returns result #{i} from storage other than its arguments' or a fresh value"
        elif isinstance(v.type, TimepointType):
            d = defs.get(v)
            if i in handed_timepoints:
                continue
            if v in f.arguments:
                timepoints[i] = list(f.arguments).index(v)
            elif d is not None and d.name in _NOTHING:
                timepoints[i] = None
            else:
                return f"@{f.name} returns timepoint #{i} without a resource it covers"
        elif not isinstance(v.type, (IndexType, IntegerType, FloatType)):
            return f"@{f.name} returns result #{i} of type {v.type}"
    return results, timepoints


def call_storage(w: Any, op: Op) -> None:
    """The storage rule of a call (verify.storage): with a summary, a result the callee returns
    from an argument is that argument's storage (a new version if the callee writes it), any
    other resource result a fresh value; without one, the conservative default."""
    from verify.storage import AllocKind, default_results

    callee = op.properties.get("callee")
    f = fence_callee(w.module, op)
    if f is not None:  # a coarse-fences callee: its effect is the ABI's (verify.rules.fence_ops)
        w.storage.call_summaries[op] = FenceCall(f.name)
        default_results(w, op)
        return
    same = [c for c in (*w.storage.call_summaries, *w.storage.call_reasons) if c.properties.get("callee") == callee and c.name == op.name]
    s: CallSummary | str
    if same:  # another call of this function to the same callee: summarised once
        s = w.storage.call_summaries.get(same[0]) or w.storage.call_reasons[same[0]]
    else:
        s = summarize(w.module, op)
    if not isinstance(s, str):
        s = _aliasing(w, op, s)
    if isinstance(s, str):
        w.storage.call_reasons[op] = s
        default_results(w, op)
        return
    w.storage.call_summaries[op] = s
    for i, r in enumerate(op.results):
        if not isinstance(r.type, ResourceType):
            continue
        k = s.results.get(i)
        size = w.size(w.first_size.get(r))
        if k is not None and k < len(op.operands) and op.operands[k] in w.storage.views:
            w.storage.alias(r, op.operands[k], size=size, new_version=k in s.written)
        else:
            w.storage.allocate(r, AllocKind.VALUE, op, size, s.placements.get(i), op.location)


def _aliasing(w: Any, op: Op, s: CallSummary) -> CallSummary | str:
    """The callee was proved assuming its resource arguments do not alias (SPEC §3.2): a call
    passing one storage as two arguments, one of which the callee writes, has no summary."""
    seen: dict[int, int] = {}
    for k, v in enumerate(op.operands):
        view = w.storage.view(v) if isinstance(v.type, ResourceType) else None
        if view is None:
            continue
        other = seen.setdefault(view.alloc.id, k)
        if other != k and (other in s.written or k in s.written):
            return f"the call passes one storage as arguments #{other} and #{k} of @{s.callee}, which writes one of them"
    return s


def summarized_call(b: Builder, op: Op, s: CallSummary) -> None:
    """The effect of a call with a summary: a host op (the caller waits for the call) that
    accesses each argument as the callee does, from the call on (for an argument handed in with
    a timepoint, from when that timepoint is reached) until the call returns or, when the callee
    hands results over with timepoints, until the first of those is reached (its own completion
    obligation: every access to its caller's storage is finished by every timepoint it returns).
    Its results are ready at the return or, handed over, where their timepoint is reached
    (`after_call`)."""
    from verify.model import WRITE

    site = b.host(op, f"call @{s.callee}")
    name = f"@{s.callee}"
    b.produce(site, op.results)
    after_call(b, op, site)  # handed results: ready where their timepoint is reached
    ends = sorted({b.model.ready[r] for r in op.results if r in b.model.ready and b.model.ready[r] is not site},
                  key=lambda x: x.id)
    for k, v in enumerate(op.operands):
        mode = s.modes.get(k, 0)
        if not isinstance(v.type, ResourceType) or not mode:
            continue
        tie = bool(mode & WRITE) and b.level in ("async", "tensor")
        guard = b.model.tp_event.get(op.operands[s.handed_in[k]]) if k in s.handed_in and s.handed_in[k] < len(op.operands) else None
        if not ends:  # finished when the call returns: so is the timepoint it waited for first
            if guard is not None:
                b.graph.edge(guard, site.start, f"{name} waits for the timepoint handed in with argument #{k}")
            b.use(site, v)
            b.whole(site, v, mode, f"call {name}", tie=tie)
            continue
        at = site
        if guard is not None:
            preds = [(site.start, f"called {name}"), (guard, "the timepoint handed in with it is reached")]
            reached = b.graph.site_of[b.reach(f"{name} touches argument #{k} once its timepoint is reached", preds, op)]
            assert reached is not None
            at = reached
        b.use(at, v)
        b.whole(at, v, mode, f"call {name}", tie=tie)
        # Done with it before any timepoint it returns is reached (each covers its accesses).
        done = b.reach(f"{name} is done with argument #{k}", [(at.start, f"{name} touches it")], op)
        for end in ends:
            b.graph.edge(done, end.start, "a timepoint the callee returns covers its accesses")
        done_site = b.graph.site_of[done]
        assert done_site is not None
        b.whole(done_site, v, mode, f"call {name}, until a timepoint it returns")
    for i, passed in s.timepoints.items():
        if i < len(op.results):
            e = site.start if passed is None else b.model.tp_event.get(op.operands[passed])
            b.timepoint(op.results[i], e)
    for i, source in s.results.items():
        r = op.results[i] if i < len(op.results) else None
        ready = b.model.ready.get(r) if r is not None else None
        if r is not None and source is not None and ready is not None and ready is not site and not s.modes.get(source, 0):
            b.whole(ready, r, WRITE, f"call {name}, until the timepoint it returns")  # handed back unready


# -- calls to coarse-fences functions (verify.rules.fence_ops gives their effect) ----------------

@dataclass(frozen=True, slots=True)
class FenceCall:
    """A call to a coarse-fences function (`verify.rules.fence_ops` gives its effect)."""

    callee: str


def fence_callee(module: Module | None, op: Op) -> Function | None:
    """The coarse-fences function `op` calls (a function of `module` declaring the ABI, called
    with its two fences last), or None."""
    callee = op.properties.get("callee")
    if module is None or not isinstance(callee, SymbolRefAttr) or callee.nested:
        return None
    f = function(module, callee.root)
    if f is None or not coarse_fences(f) or len(op.operands) < 2 or not all(is_fence(v) for v in op.operands[-2:]):
        return None
    return f


def stale_signal_fence(module: Module | None, body: tuple[Op, ...], op: Op) -> str | None:
    """Why the signal fence of the coarse-fences call `op` is not one `hal.fence.create` made in
    `body` for this call alone (None when it is)."""
    signal = op.operands[-1]
    maker = next((o for o in body if signal in o.results), None)
    if maker is None or maker.name != "hal.fence.create":
        where = "a function argument" if maker is None else f"made by '{maker.name}'"
        return f"its signal fence is {where}, not a fence hal.fence.create made for this call"
    for o in body:
        for inner in o.walk():
            if inner is op or inner.name in FENCE_WAITERS or signal not in inner.operands:
                continue
            if fence_callee(module, inner) is not None and inner.operands[-1] is not signal:
                continue  # another call waiting for it
            return f"its signal fence is also taken by '{inner.name}' at {inner.location}"
    return None

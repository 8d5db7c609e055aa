"""Which awaits order which ops: `stream.timepoint.await` is a pure op.

IREE declares `stream.timepoint.await` a `Stream_PureOp`: it orders only what depends on it
through SSA, the users of its results and of values derived from them. An await whose results
are unused is erased by DCE; `SinkAwaitToFirstConsumer` moves one down to the first op using its
results; `ChainDependentAwaits` turns an execute region capturing an awaited resource into an
execute that awaits the timepoint itself (no host wait at all); `SinkSubviewsAcrossAwaits`,
`ChainTimepoints` and `GroupAwaitsByTimepoint` move subviews, barriers and other awaits across
it. So the rule every part of streamproof shares (the verifier, the passes, the executor's race
detector) is:

* a value *carries* the timepoints of the awaits it comes through: an await result carries the
  await's timepoint plus whatever its operand carries; a pass-through op (`resource.subview`,
  `timepoint.barrier`, `async.barrier`, `async.cast`, another non-`sync` await) hands what its
  resource operand carries on to its resource result;
* a *timeline* op (an execute region, `alloca`, `dealloca`: work issued to a queue) that uses a
  carrying value starts only after those timepoints are reached, as if it awaited them;
* a *pure host op* that uses one (`tensor.export`, `async.load` / `async.store`,
  `tensor.load` / `tensor.store`: `Stream_PureOp`s in IREE's StreamOps.td, which IREE may move
  past any op they do not depend on) runs after those timepoints without making the host wait:
  its results carry them on (so do the results of scalar arithmetic on them, `PURE_VALUE`), and
  only what uses those results is ordered after it, not the host ops that follow it;
* any other op that uses one (a `resource.load` / `resource.store`, a return, a call, an
  unknown op; not `resource.size` and the like, which IREE folds away) is a host op with effects
  ordered after them: the await sits right before it (its first consumer), and host program
  order carries that to every later host op and issue;
* a barrier's timepoint is reached only once what its resource carries is reached;
* an await marked `sync` (SyncInitializers) is a blocking host wait: it orders every later host
  op and issue in program order, whatever they use.

An await nothing uses orders nothing, and a host op that uses the un-awaited operand is not
ordered by it (an export of `%r` after `%dead = stream.timepoint.await %t => %r` is a
MISSED_WAIT, and so is an export of `%y` after an export of `%a#0` from
`%a:2 = stream.timepoint.await %t => %x, %y`: exports are pure).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stream.ir.core import Op, Value
from stream.ir.rule_table import OpSet, Requirement, awaits_and_signals
from stream.ir.spec import spec_of
from stream.ir.spec_registry import registered_names
from stream.ir.types import ResourceType

__all__ = [
    "AWAIT", "PASS_THROUGH", "METADATA", "PURE_HOST_USERS", "PURE_VALUE_DIALECTS", "TIMELINE_USERS", "is_sync_await",
    "is_pure_value", "pure_host_user", "awaited_timepoint", "Gates",
]

AWAIT = "stream.timepoint.await"

PASS_THROUGH = OpSet(
    "PASS_THROUGH",
    "Ops whose resource results are their resource operand under another name: they do not use the value (IREE moves them across awaits), they pass on what it carries.",
    {AWAIT, "stream.resource.subview", "stream.timepoint.barrier", "stream.async.barrier", "stream.async.cast"},
)

METADATA = OpSet(
    "METADATA",
    "Ops that read only a resource's metadata (IREE folds them to the size operand): not a use that keeps an await alive or orders anything.",
    {"stream.resource.size", "stream.resource.is_terminal"},
)

def pure_host_user(spec: Any) -> bool:
    """A pure host op that uses a resource's bytes: its spec declares it `pure` (IREE's
    Stream_PureOp) and an access to bytes, and it is neither streamable (device work), a timeline
    op, a terminator, a region op nor an alias of its operand (the pass-through ops)."""
    return (bool(getattr(spec, "pure", False)) and bool(spec.accesses) and "streamable" not in spec.traits
            and spec.timeline is None and "terminator" not in spec.traits and not spec.aliases and not spec.regions)


PURE_HOST_USERS = OpSet(
    "PURE_HOST_USERS",
    "Pure host ops (IREE's Stream_PureOp): ordered by what they use, not by host program order. "
    "Derived from the specs (`pure_host_user`): declare `pure=True` on the op's spec.",
    (n for n in registered_names() if pure_host_user(spec_of(n))),
)

# Dialects of pure scalar ops: they touch no memory and order nothing; a result computed from a
# carrying value carries what it does (the value a pure load returned, plus one, is still only
# available after the await).
PURE_VALUE_DIALECTS = ("arith.", "math.", "index.")

TIMELINE_USERS = OpSet(
    "TIMELINE_USERS",
    "Timeline ops issued to a queue: a carried timepoint orders their start, not the host.",
    (n for n in registered_names() if awaits_and_signals(spec_of(n))),  # from their `Timeline` interfaces
    requires=Requirement(where=awaits_and_signals),
)


def is_sync_await(op: Op) -> bool:
    return op.name == AWAIT and op.properties.get("sync") is not None


def is_pure_value(op: Op) -> bool:
    """Scalar arithmetic (`PURE_VALUE_DIALECTS`, no resource operand or result, no region): it
    hands what its operands carry on to its results and is itself ordered after nothing."""
    return (op.name.startswith(PURE_VALUE_DIALECTS) and not op.regions
            and not any(isinstance(v.type, ResourceType) for v in (*op.operands, *op.results)))


def awaited_timepoint(op: Op) -> Value:
    """The timepoint operand of an await (its last operand)."""
    return op.operands[-1]


@dataclass
class Gates:
    """Walks one block's ops in program order and says, for each op, which awaited timepoints
    its uses are ordered after (`step`). `carried[v]`: the timepoints value `v` carries."""

    carried: dict[Value, frozenset[Value]] = field(default_factory=dict)

    def of(self, values: tuple[Value, ...] | list[Value]) -> frozenset[Value]:
        out: frozenset[Value] = frozenset()
        for v in values:
            c = self.carried.get(v)
            if c:
                out = out | c
        return out

    def step(self, op: Op) -> frozenset[Value]:
        """Record what `op`'s results carry; return the timepoints `op` itself is ordered after
        (empty for pass-through ops and for ops using no carrying value)."""
        if op.name in PASS_THROUGH and not is_sync_await(op):
            resources = [v for v in op.operands if isinstance(v.type, ResourceType)]
            results = [r for r in op.results if isinstance(r.type, ResourceType)]
            extra: frozenset[Value] = frozenset({awaited_timepoint(op)}) if op.name == AWAIT else frozenset()
            if op.name == AWAIT:
                pairs = list(zip(resources, results))
            else:
                pairs = [(resources[0], r) for r in results] if resources else []
            for src, res in pairs:
                c = self.carried.get(src, frozenset()) | extra
                if c:
                    self.carried[res] = c
            return frozenset()
        if op.name in METADATA:
            return frozenset()
        if op.name in TIMELINE_USERS:  # a region's commands may use host values (a fill pattern)
            if not self.carried:  # nothing awaited yet: no need to walk the region
                return frozenset()
            return self.of([v for inner in op.walk() for v in inner.operands])
        carried = self.of(op.operands)
        if carried and (op.name in PURE_HOST_USERS or is_pure_value(op)):
            for r in op.results:
                self.carried[r] = self.carried.get(r, frozenset()) | carried
        return frozenset() if is_pure_value(op) else carried

    def barrier_carried(self, op: Op) -> frozenset[Value]:
        """The timepoints a `timepoint.barrier`'s result timepoint must also cover."""
        return self.of([v for v in op.operands if isinstance(v.type, ResourceType)])

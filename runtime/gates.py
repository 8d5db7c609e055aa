"""What awaited timepoints each value carries, at run time, for the race detector.

`stream.dialect.awaits` states the rule every part of streamproof shares: a value carries the
timepoints of the (non-`sync`) awaits it comes through, and only the ops using a carrying value are
ordered after them. Its `Gates` walks one straight-line block and records, per SSA value, the
timepoint *values* it carries. With control flow an SSA value is bound many times (once per
iteration of the block defining it), and a carried timepoint may itself be a block argument bound
to another fence each time, so the executor keeps the *fences* instead: `RunGates.carried[v]` is
the `Fence` that the current binding of `v` carries (absent: nothing). The op classes are the
ones `stream.dialect.awaits` defines (`PASS_THROUGH`, `METADATA`, `TIMELINE_USERS`,
`PURE_HOST_USERS`, `is_pure_value`), and `step` answers exactly as `Gates.step` does for a value
bound once:

* a pass-through op (a non-`sync` await, a subview, a barrier) hands what its resource operand
  carries on to its resource result, an await adding the fence of its timepoint; it is itself
  ordered after nothing;
* a timeline op (execute, alloca, dealloca) is ordered after what any value it (or its region)
  uses carries: the executor makes it wait on that fence;
* a pure host op (an export) and scalar arithmetic hand what their operands carry on to their
  results; a pure host op is ordered after it, arithmetic after nothing;
* any other op using a carrying value is ordered after it (the host joins that fence).

Control flow (`runtime.control_flow`) adds two rules: a block argument, an iter_arg or a region
op's result carries what the value bound to it carries (`forward`; the region ops and branches
themselves are ordered after nothing), and a value the host branches or loops on orders the host
after what it carries (`decided`, used by `Frame.decide`): the host cannot take the branch before
the value exists, and host program order carries that to everything after it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from runtime.control_flow import CONTROL_OPS
from runtime.semaphore import Fence
from stream.dialect.awaits import (
    AWAIT,
    METADATA,
    PASS_THROUGH,
    PURE_HOST_USERS,
    TIMELINE_USERS,
    awaited_timepoint,
    is_pure_value,
    is_sync_await,
)
from stream.ir.core import Op, Value
from stream.ir.types import ResourceType

__all__ = ["RunGates"]


def _fence(value: Any) -> Fence:
    return value if isinstance(value, Fence) else Fence()


@dataclass
class RunGates:
    """Per SSA value, the fence its current binding carries (see the module docstring). One per
    function activation; `step` is called for every op before its rule runs."""

    carried: dict[Value, Fence] = field(default_factory=dict)

    def of(self, values: Iterable[Value]) -> Fence | None:
        """The join of what `values` carry; None when none of them carries anything."""
        carried = self.carried
        found = [f for f in (carried.get(v) for v in values) if f is not None]
        if not found:
            return None
        return found[0] if len(found) == 1 else Fence.join(found)

    def step(self, op: Op, value: Callable[[Value], Any]) -> Fence | None:
        """Record what `op`'s results carry (`value` reads the run-time value of an operand);
        return the fence `op` itself is ordered after (None: nothing)."""
        name = op.name
        carried = self.carried
        if name in CONTROL_OPS:  # they bind their results through `forward`
            return None
        if name in PASS_THROUGH and not is_sync_await(op):
            resources = [v for v in op.operands if isinstance(v.type, ResourceType)]
            results = [r for r in op.results if isinstance(r.type, ResourceType)]
            extra = _fence(value(awaited_timepoint(op))) if name == AWAIT else None
            pairs = list(zip(resources, results)) if name == AWAIT else [(resources[0], r) for r in results] if resources else []
            found = [(res, carried.get(src)) for src, res in pairs]
            self._clear(op.results)
            for res, src_fence in found:
                parts = [f for f in (src_fence, extra) if f is not None]
                if parts:
                    carried[res] = parts[0] if len(parts) == 1 else Fence.join(parts)
            return None
        if not carried:  # nothing awaited is live: nothing to order, no stale binding to clear
            return None
        if name in TIMELINE_USERS:  # a region's commands may use host values (a fill pattern)
            self._clear(op.results)
            return self.of([v for inner in op.walk() for v in inner.operands])
        fence = None if name in METADATA else self.of(op.operands)
        self._clear(op.results)
        if fence is not None and (name in PURE_HOST_USERS or is_pure_value(op)):
            for r in op.results:
                carried[r] = fence
        return None if is_pure_value(op) else fence

    def barrier_carried(self, op: Op) -> Fence | None:
        """What a `timepoint.barrier`'s result timepoint must also cover (what its resource carries)."""
        return self.of([v for v in op.operands if isinstance(v.type, ResourceType)])

    def forward(self, targets: Sequence[Value], sources: Sequence[Value | None]) -> None:
        """`targets[i]` is now bound to the value of `sources[i]`: it carries what that carries
        (all read before any is written: a block may pass its own arguments around)."""
        carried = self.carried
        if not carried:
            return
        found = [carried.get(s) if s is not None else None for s in sources]
        for t, f in zip(targets, found):
            if f is None:
                carried.pop(t, None)
            else:
                carried[t] = f

    def decided(self, v: Value) -> Fence | None:
        """What the host must be ordered after to branch or loop on `v`."""
        return self.carried.get(v)

    def _clear(self, values: Sequence[Value]) -> None:
        carried = self.carried
        for r in values:
            carried.pop(r, None)

"""AutomaticReferenceCounting (`automatic-reference-counting`): free what the function owns.

For every `stream.resource.alloca` the function owns outright, a queue-ordered
`stream.resource.dealloca` is inserted once the storage's last uses are covered:

* the uses are found through every alias of the allocation (`stream.analysis.liveness`:
  subviews, host awaits, timepoint barriers, tied results);
* the dealloca awaits the *roots* of the last-use timepoints (the allocation's own timepoint and
  the result timepoint of every device op that uses the storage), i.e. the ones no other covers
  (`stream.analysis.timepoint_coverage`), joined when there are several;
* it is placed after the last op that touches the storage, so that a synchronous host access
  (`resource.load`/`store`) is done before the free is even issued;
* every later user of a lone last-use timepoint is rewired to the dealloca's timepoint (to a
  join of them when several allocations end there), so whoever waited for the last use also
  waits for the free and a later allocation that awaits it may reuse the memory.

Never freed: storage the function does not own or cannot see the end of. That is anything not
from `resource.alloca` (imports, constants, arguments, results of unknown ops), allocations
marked `indeterminate`, storage that escapes (returned, exported, stored to a global, passed to
a call or any op whose effects are unknown: fail closed), and storage whose ownership is already
explicit (an existing `dealloca`, `retain` or `release`, e.g. the slab schedule-allocation frees).
Because functions here are single-block and call-free, an allocation the function keeps has one
owner and a static free point, so the pass never needs `retain`/`release`; it leaves the ones it
finds alone.

Invariant established: every owned allocation is freed exactly once, after (in happens-before)
every access to it through any alias, and nothing the function does not own is freed.
"""

from __future__ import annotations

from dataclasses import dataclass

from stream.analysis.liveness import AllocationUses, allocation_uses
from stream.analysis.timepoint_coverage import TimepointCoverage
from stream.ir.core import Module, Op, Value
from stream.ir.spec import view
from stream.ir.types import TIMEPOINT
from stream.ir.walk import Function, functions, replace_function
from stream.passes.async_to_cmd import build
from stream.passes.block_builder import check_straight_line
from stream.passes.pass_manager import register_pass

__all__ = ["automatic_reference_counting", "plan_deallocations", "Deallocation"]


@register_pass("automatic-reference-counting")
def automatic_reference_counting(module: Module) -> Module:
    """Insert a dealloca for every owned allocation at its covered last use."""
    out = module
    for f in functions(module):
        if any(op.name == "stream.resource.alloca" for op in f.body.ops):
            out = replace_function(out, _count_function(f))
    return out


@dataclass(frozen=True, slots=True)
class Deallocation:
    """Where and on what one allocation is freed."""

    uses: AllocationUses
    after: int  # the dealloca goes right after the op at this position
    awaits: tuple[Value, ...]


def plan_deallocations(f: Function) -> list[Deallocation]:
    """The deallocas ARC inserts into `f`, in allocation order (the analysis, without rewriting)."""
    coverage = TimepointCoverage.of(f.body)
    plans: list[Deallocation] = []
    for uses in allocation_uses(f.body):
        if uses.alloca.properties.get("indeterminate_lifetime") is not None:
            continue
        if uses.escapes or uses.owned:
            continue
        candidates = [uses.alloca.results[1], *uses.device_timepoints()]
        plans.append(Deallocation(uses, uses.last_position, tuple(coverage.roots(candidates))))
    return plans


def _count_function(f: Function) -> Function:
    check_straight_line(f, "automatic-reference-counting")
    plans = plan_deallocations(f)
    if not plans:
        return f
    by_position: dict[int, list[Deallocation]] = {}
    for plan in plans:
        by_position.setdefault(plan.after, []).append(plan)
    # timepoint -> [(position after which it is freed-behind, dealloca timepoint)]
    frees_behind: dict[Value, list[tuple[int, Value]]] = {}
    joins: dict[tuple[Value, ...], Value] = {}
    ops: list[Op] = []
    for position, op in enumerate(f.body.ops):
        ops.extend(_rewire(op, position, frees_behind, joins))
        for plan in by_position.get(position, ()):
            await_tp = _join(plan.awaits, ops, joins)
            alloca = view(plan.uses.alloca)
            dealloca = build(
                "stream.resource.dealloca",
                {"operand": plan.uses.resource, "operand_size": alloca.storage_size, "await_timepoint": await_tp},
                attrs={"affinity": alloca.affinity},
                location=plan.uses.alloca.location,
            )
            ops.append(dealloca)
            if len(plan.awaits) == 1:
                frees_behind.setdefault(plan.awaits[0], []).append((position, dealloca.results[0]))
    return f.with_body(tuple(ops))


def _rewire(op: Op, position: int, frees_behind: dict[Value, list[tuple[int, Value]]], joins: dict[tuple[Value, ...], Value]) -> list[Op]:
    """`op` with every use of a freed-behind last-use timepoint replaced by its frees."""
    if op.name == "stream.resource.dealloca":
        return [op]  # a free never needs to wait for another free
    mapping: dict[Value, Value] = {}
    new_joins: list[Op] = []
    for v in op.operands:
        frees = [td for after, td in frees_behind.get(v, ()) if after < position]
        if frees and v not in mapping:
            mapping[v] = _join(tuple(frees), new_joins, joins)  # type: ignore[assignment]
    if not mapping:
        return [op]
    return [*new_joins, op.replace(operands=tuple(mapping.get(v, v) for v in op.operands))]


def _join(timepoints: tuple[Value, ...], ops: list[Op], joins: dict[tuple[Value, ...], Value]) -> Value | None:
    if not timepoints:
        return None
    if len(timepoints) == 1:
        return timepoints[0]
    found = joins.get(timepoints)
    if found is None:
        join = build("stream.timepoint.join", {"await_timepoints": timepoints}, {"result_timepoint": TIMEPOINT})
        ops.append(join)
        found = joins[timepoints] = join.results[0]
    return found


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
  join of them when several allocations end there), and a later join of all the last uses of a
  free joins the free instead, so whoever waited for the last uses also waits for the free and a
  later allocation that awaits it may reuse the memory.

Never freed: storage the function does not own or cannot see the end of. That is anything not
from `resource.alloca` (imports, constants, arguments, what a `util.global.load` gives: the
global keeps it for later calls, results of unknown ops), allocations
marked `indeterminate`, storage that escapes (returned, exported, stored to a global, passed to
a call or any op whose effects are unknown: fail closed), and storage whose ownership is already
explicit (an existing `dealloca`, `retain` or `release`, e.g. the slab schedule-allocation frees).
Because functions here are single-block and call-free, an allocation the function keeps has one
owner and a static free point, so the pass never needs `retain`/`release`; it leaves the ones it
finds alone. The blocks of `scf.for`/`scf.if` regions are counted each on their own: what an
iteration or branch allocates and uses only there is freed there; what an `scf` op uses or a
region yields escapes (a loop-carried allocation is left to its consumer, like an exported one).
`util.initializer`s are counted like functions (what they store into a global escapes).

Invariant established: every owned allocation is freed exactly once, after (in happens-before)
every access to it through any alias, and nothing the function does not own is freed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stream.analysis.liveness import AllocationUses, allocation_uses
from stream.analysis.timepoint_coverage import TimepointCoverage
from stream.ir.core import Block, Location, Module, Op, Value
from stream.ir.spec import view
from stream.ir.types import TIMEPOINT
from stream.ir.walk import Function, bodies, map_scf_blocks, replace_op
from stream.passes.async_to_cmd import build
from stream.passes.block_builder import STRUCTURED, check_straight_line, remap_op
from stream.passes.pass_manager import register_pass

__all__ = ["automatic_reference_counting", "plan_deallocations", "Deallocation"]


@register_pass("automatic-reference-counting")
def automatic_reference_counting(module: Module) -> Module:
    """Insert a dealloca for every owned allocation at its covered last use."""
    out = module
    for f in bodies(module):
        if any(op.name == "stream.resource.alloca" for op in f.op.walk()):  # any block: refuse, never skip
            out = replace_op(out, f.op, _count_function(f).op)
    return out


@dataclass(frozen=True, slots=True)
class Deallocation:
    """Where and on what one allocation is freed."""

    uses: AllocationUses
    after: int  # the dealloca goes right after the op at this position
    awaits: tuple[Value, ...]


def plan_deallocations(f: Function | Block) -> list[Deallocation]:
    """The deallocas ARC inserts into `f` (a function's body, or another block), in allocation
    order (the analysis, without rewriting)."""
    block = f if isinstance(f, Block) else f.body
    coverage = TimepointCoverage.of(block)
    plans: list[Deallocation] = []
    for uses in allocation_uses(block):
        if uses.alloca.properties.get("indeterminate_lifetime") is not None:
            continue
        if uses.escapes or uses.owned:
            continue
        candidates = [uses.alloca.results[1], *uses.device_timepoints()]
        plans.append(Deallocation(uses, uses.last_position, tuple(coverage.roots(candidates))))
    return plans


def _count_function(f: Function) -> Function:
    check_straight_line(f, "automatic-reference-counting", STRUCTURED)
    return f.with_body(_count_block(f.body))


def _count_block(block: Block) -> tuple[Op, ...]:
    """The ops of `block` with their deallocas; the blocks of `scf` regions are counted each on
    its own first. An allocation an `scf` op uses, or a region yields, escapes its block (it
    is never freed: a use in a loop may be in any iteration, and what a region yields lives
    on after it)."""
    block = map_scf_blocks(block, lambda b: Block(b.arguments, _count_block(b)))
    plans = plan_deallocations(block)
    if not plans:
        return block.ops
    by_position: dict[int, list[Deallocation]] = {}
    for plan in plans:
        by_position.setdefault(plan.after, []).append(plan)
    frees = _Frees()
    folded: dict[Value, Value] = {}  # joins left with one input -> that input
    ops: list[Op] = []
    for position, op in enumerate(block.ops):
        for new in frees.rewire(remap_op(op, folded) if folded else op, position):
            if new.name == "stream.timepoint.join" and len(new.operands) == 1:
                folded[new.results[0]] = new.operands[0]
            else:
                ops.append(new)
        for plan in by_position.get(position, ()):
            await_tp = _join(plan.awaits, ops, frees.joins, op.location)
            alloca = view(plan.uses.alloca)
            dealloca = build(
                "stream.resource.dealloca",
                {"operand": plan.uses.resource, "operand_size": alloca.storage_size, "await_timepoint": await_tp},
                attrs={"affinity": alloca.affinity},
                location=plan.uses.alloca.location,
            )
            ops.append(dealloca)
            frees.add(plan.awaits, position, dealloca.results[0])
    return tuple(ops)


@dataclass(slots=True)
class _Frees:
    """The deallocas inserted so far, by the set of last uses they wait for."""

    # awaited set -> [(position after which it is freed, dealloca timepoint)]
    by_awaits: dict[frozenset[Value], list[tuple[int, Value]]] = field(default_factory=dict)
    # last use -> the awaited sets of several last uses it belongs to
    by_member: dict[Value, list[frozenset[Value]]] = field(default_factory=dict)
    joins: dict[tuple[Value, ...], Value] = field(default_factory=dict)

    def add(self, awaits: tuple[Value, ...], position: int, freed: Value) -> None:
        if not awaits:
            return
        key = frozenset(awaits)
        if key not in self.by_awaits and len(key) > 1:
            for v in key:
                self.by_member.setdefault(v, []).append(key)
        self.by_awaits.setdefault(key, []).append((position, freed))

    def behind(self, key: frozenset[Value], position: int) -> tuple[Value, ...]:
        return tuple(td for after, td in self.by_awaits.get(key, ()) if after < position)

    def rewire(self, op: Op, position: int) -> list[Op]:
        """`op`, waiting for the frees behind what it waits for.

        A use of the lone last use `t` of some frees becomes (a join of) their timepoints, which
        cover `t`; a join that waits for every last use of a free waits for the free instead.
        """
        if op.name == "stream.resource.dealloca" or not self.by_awaits:
            return [op]  # a free never needs to wait for another free
        new_joins: list[Op] = []
        operands = list(op.operands)
        is_join = op.name == "stream.timepoint.join"
        if is_join:
            present = set(operands)
            keys = {k for v in operands for k in self.by_member.get(v, ()) if k <= present}
            for key in keys:
                tds = self.behind(key, position)
                if tds:
                    operands = [v for v in operands if v not in key] + [v for v in tds if v not in operands]
        mapping: dict[Value, Value] = {}
        for v in operands:
            tds = self.behind(frozenset((v,)), position)
            if tds and v not in mapping:
                mapping[v] = _join(tds, new_joins, self.joins, op.location)  # type: ignore[assignment]
        operands = list(dict.fromkeys(mapping.get(v, v) for v in operands)) if is_join else [mapping.get(v, v) for v in operands]
        if operands == list(op.operands):
            return [op]
        return [*new_joins, op.replace(operands=tuple(operands))]


def _join(timepoints: tuple[Value, ...], ops: list[Op], joins: dict[tuple[Value, ...], Value], location: Location) -> Value | None:
    if not timepoints:
        return None
    if len(timepoints) == 1:
        return timepoints[0]
    found = joins.get(timepoints)
    if found is None:
        join = build("stream.timepoint.join", {"await_timepoints": timepoints}, {"result_timepoint": TIMEPOINT}, location=location)
        ops.append(join)
        found = joins[timepoints] = join.results[0]
    return found


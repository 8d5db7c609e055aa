"""Control-flow paths: a function with branches as the straight-line programs it can run.

A function (or initializer) whose host code branches, with several blocks (`cf.br`,
`cf.cond_br`) or with `scf.if` / `scf.index_switch` / `scf.execute_region` ops, runs one path
per execution: a sequence of blocks from the entry to a return, picking one region of each
`scf` op on the way. Each path is a straight-line program: its blocks' ops in order, with every
block argument replaced by the operand its predecessor passed, every `scf` op's results by the
values its chosen region yields, and the branch taken recorded as a runtime check
(`cf.assert %c`, or `cf.assert (%c == false)` for the false edge; `verify.int_facts` makes the
condition a fact for what follows). `paths` lists them all.

Exactness: every execution of the function is an execution of exactly one of these programs
(the path it takes), with the same ops in the same order on the same values; so a property
that holds for every execution of every path holds for every execution of the function, and a
violation on a path is one on the function whenever the path's conditions can hold together
(infeasible paths may give false alarms, never a missed one). The verifier checks each path
(`verify.api`) and names it in what it reports.

Loops (a branch back to a block already on the path, `scf.for`, `scf.while`) are not paths:
`paths` refuses them here, naming the back edge; `verify.loops` checks them by induction.
More than `MAX_PATHS` paths is refused too (fail closed, named), not truncated.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass

from stream.ir.attributes import ArrayAttr, DenseArrayAttr, IntegerAttr, StringAttr
from stream.ir.core import Block, Location, Op, Region, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import OpSet
from stream.ir.types import I1
from stream.ir.walk import Function
from stream.passes.block_builder import remap_op
from verify.cfg import cond_br_groups, switch_edges

__all__ = ["Path", "Segment", "Arrival", "paths", "segments", "has_control_flow", "MAX_PATHS", "BRANCH_REGION_OPS", "LOOP_OPS"]

MAX_PATHS = 512

# Host ops that run one of their regions (each ends in `scf.yield`, whose operands are the op's results).
BRANCH_REGION_OPS = OpSet("BRANCH_REGION_OPS", "scf ops that run one of their regions once: a path picks one.",
                          {"scf.if", "scf.index_switch", "scf.execute_region"})
LOOP_OPS = OpSet("LOOP_OPS", "scf loops: not paths (checked by induction where they are a function's own, else refused).",
                 {"scf.for", "scf.while", "scf.forall", "scf.parallel"})


@dataclass(frozen=True, slots=True)
class Path:
    """One straight-line program of a function: `ops` (a single block's ops, ending in the
    function's return) and `label`, the blocks and branches taken (`^bb0 -> ^bb2 -> ^bb3`,
    `scf.if@12:5 then`)."""

    label: str
    ops: tuple[Op, ...]


def has_control_flow(func: Function) -> bool:
    """Whether `func` has several blocks or host-level `scf` ops (what `paths` linearizes)."""
    if len(func.blocks) > 1:
        return True
    return any(op.name.startswith("scf.") for op in func.body.ops)


@dataclass(slots=True)
class _State:
    ops: list[Op]
    mapping: dict[Value, Value]
    steps: list[str]

    def fork(self) -> _State:
        return _State(list(self.ops), dict(self.mapping), list(self.steps))


@dataclass(frozen=True, slots=True)
class Arrival:
    """A walk reached the block it was told to stop at (a loop header), passing `args` (already
    mapped) for its arguments."""

    block: int
    args: tuple[Value, ...]


@dataclass(frozen=True, slots=True)
class Segment:
    """One walk from a start block: `ops` in order, ending at a return (`arrival` None; `ops` ends
    with the return op) or at an arrival at the stop block; `mapping` is what block arguments and
    `scf` results stood for; `label` names the blocks and branches taken."""

    label: str
    ops: tuple[Op, ...]
    mapping: dict[Value, Value]
    arrival: Arrival | None


def paths(func: Function, limit: int = MAX_PATHS) -> list[Path]:
    """Every path of `func` (see the module docstring). Raises `DiagnosticError` for a loop or
    for more than `limit` paths."""
    return [Path(s.label, s.ops) for s in segments(func, func.blocks, 0, {}, [], None, limit)]


def segments(func: Function, blocks: Sequence[Block], start: int, mapping: dict[Value, Value], ops: list[Op],
             stop: int | Collection[int] | None, limit: int = MAX_PATHS, first_step: str | None = None) -> list[Segment]:
    """Every walk from block `start` (with `mapping` for what is already bound and `ops` already
    on the path) to a return, or to a block of `stop` (one block or several: an `Arrival`, not
    entered). A branch to a block already on the walk that is not a stop is refused (a loop the
    caller did not expect)."""
    out: list[Segment] = []
    state = _State(list(ops), dict(mapping), [first_step or f"^bb{start}"])
    stops = frozenset() if stop is None else frozenset((stop,)) if isinstance(stop, int) else frozenset(stop)
    for st, arrival in _block(func, blocks, start, state, (start,), stops):
        out.append(Segment(" -> ".join(st.steps), tuple(st.ops), st.mapping, arrival))
        if len(out) > limit:
            raise DiagnosticError.at(func.op.location, f"@{func.name} has more than {limit} control-flow paths; the verifier checks each path and refuses this many")
    return out


Walk = Iterator[tuple[_State, Arrival | None]]


def _block(func: Function, blocks: Sequence[Block], index: int, state: _State, on_path: tuple[int, ...], stop: frozenset[int]) -> Walk:
    block = blocks[index]
    *body, last = block.ops if block.ops else (None,)
    for st in _ops(func, [o for o in body if o is not None], state):
        yield from _terminator(func, blocks, last, st, on_path, stop)


def _terminator(func: Function, blocks: Sequence[Block], op: Op | None, state: _State, on_path: tuple[int, ...], stop: frozenset[int]) -> Walk:
    if op is None:
        yield state, None
        return
    if op.name == "cf.br":
        yield from _edge(func, blocks, op, op.successors[0], op.operands, state, on_path, None, stop)
        return
    if op.name == "cf.cond_br":
        cond, true_args, false_args = cond_br_groups(op)
        for dest, args, taken in ((op.successors[0], true_args, True), (op.successors[1], false_args, False)):
            st = state.fork()
            _assume(st, op, cond, taken)
            yield from _edge(func, blocks, op, dest, args, st, on_path, "true" if taken else "false", stop)
        return
    if op.name == "cf.switch":
        # Every destination is a path (no fact is recorded of the flag: a path a case value rules
        # out is still checked, which may only add a false alarm).
        for k, (dest, args) in enumerate(switch_edges(op)):
            yield from _edge(func, blocks, op, dest, args, state.fork(), on_path, "default" if k == 0 else f"case {k - 1}", stop)
        return
    if op.successors:
        raise DiagnosticError.at(op.location, f"'{op.name}' in @{func.name}: this branch is not supported by the verifier "
                                 "(cf.br, cf.cond_br and cf.switch are)")
    for st in _ops(func, [op], state):
        yield st, None


def _edge(func: Function, blocks: Sequence[Block], op: Op, dest: int, args: Sequence[Value], state: _State,
          on_path: tuple[int, ...], taken: str | None, stop: frozenset[int]) -> Walk:
    mapped = tuple(state.mapping.get(a, a) for a in args)
    if dest in stop:
        where = f"back to ^bb{dest}" if dest in on_path else f"^bb{dest}"
        state.steps.append(where if taken is None else f"({taken}) {where}")
        yield state, Arrival(dest, mapped)
        return
    if dest in on_path:
        raise DiagnosticError.at(
            op.location, f"@{func.name} loops (^bb{on_path[-1]} -> ^bb{dest}): this loop (control flow) is not supported by the "
            "verifier (a branch back into a loop that is not its header)")
    target = blocks[dest]
    for param, arg in zip(target.arguments, mapped, strict=True):
        state.mapping[param] = arg
    state.steps.append(f"^bb{dest}" if taken is None else f"({taken}) ^bb{dest}")
    yield from _block(func, blocks, dest, state, (*on_path, dest), stop)


def _ops(func: Function, ops: Sequence[Op], state: _State, start: int = 0) -> Iterator[_State]:
    """Append `ops[start:]` to the path, forking at each branch-region op."""
    for i in range(start, len(ops)):
        op = ops[i]
        if op.name in LOOP_OPS:
            raise DiagnosticError.at(op.location, f"'{op.name}' in @{func.name}: this loop (control flow) is not supported by the "
                                     "verifier (loops inside scf regions)")
        if op.name in BRANCH_REGION_OPS:
            for label, region, guard in _alternatives(op, state):
                st = state.fork()
                if guard is not None:
                    guard(st)
                st.steps.append(f"{op.name}@{op.location.line}:{op.location.col} {label}")
                for inner in _region(func, region, st, op):
                    yield from _ops(func, ops, inner, i + 1)
            return
        if op.name.startswith("scf.") or (op.name.startswith("cf.") and op.name != "cf.assert"):
            raise DiagnosticError.at(op.location, f"'{op.name}' in @{func.name}: control flow the verifier does not model")
        state.ops.append(remap_op(op, state.mapping))
    yield state


def _region(func: Function, region: Region, state: _State, owner: Op) -> Iterator[_State]:
    """The paths through one region of an `scf` branch op: its ops, then its `scf.yield`'s
    operands become the owner's results."""
    if len(region.blocks) != 1:
        raise DiagnosticError.at(owner.location, f"'{owner.name}' in @{func.name}: a region with {len(region.blocks)} blocks is not supported")
    *body, last = region.blocks[0].ops
    if last.name != "scf.yield":
        raise DiagnosticError.at(last.location, f"'{owner.name}' in @{func.name}: a region ends in '{last.name}', not scf.yield")
    for st in _ops(func, body, state):
        for result, value in zip(owner.results, last.operands, strict=True):
            st.mapping[result] = st.mapping.get(value, value)
        yield st


Guard = Callable[[_State], None]


def _alternatives(op: Op, state: _State) -> list[tuple[str, Region, Guard | None]]:
    if op.name == "scf.execute_region":
        return [("", op.regions[0], None)]
    cond = op.operands[0]
    if op.name == "scf.if":
        alts: list[tuple[str, Region, Guard | None]] = [("then", op.regions[0], lambda st: _assume(st, op, cond, True))]
        if op.regions[1].blocks:
            alts.append(("else", op.regions[1], lambda st: _assume(st, op, cond, False)))
        else:  # no else region: the op has no results, the false edge runs nothing
            alts.append(("else", Region((Block((), (Op("scf.yield", location=op.location),)),)), lambda st: _assume(st, op, cond, False)))
        return alts
    # scf.index_switch: regions are the default, then one per case value (`cases` property)
    cases = op.properties.get("cases")
    values = list(cases.values) if isinstance(cases, DenseArrayAttr) else (
        [e.value for e in cases.elements if isinstance(e, IntegerAttr)] if isinstance(cases, ArrayAttr) else [])
    out: list[tuple[str, Region, Guard | None]] = [("default", op.regions[0], None)]
    for value, region in zip(values, op.regions[1:]):
        out.append((f"case {value}", region, None))
    return out


def _assume(state: _State, at: Op, cond: Value, taken: bool) -> None:
    """Record that the branch on `cond` went the `taken` way: a runtime check on the path."""
    c = state.mapping.get(cond, cond)
    loc: Location = at.location
    if not taken:
        false = Value(I1, "false")
        state.ops.append(Op("arith.constant", results=(false,), properties={"value": IntegerAttr(0, I1)}, location=loc))
        negated = Value(I1, "not")
        state.ops.append(Op("arith.cmpi", operands=(c, false), results=(negated,), properties={"predicate": IntegerAttr(0)}, location=loc))
        c = negated
    msg = StringAttr("the branch went this way" if taken else "the branch did not go this way")
    state.ops.append(Op("cf.assert", operands=(c,), properties={"msg": msg}, location=loc))

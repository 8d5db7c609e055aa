"""Structured loops as blocks: `scf.for` and `scf.while` in a function's host code (also inside
an `scf.if`, which is then rewritten into blocks too), rewritten into the blocks and branches
they stand for, so that `verify.loops` treats every loop alike.

    scf.for %iv = %lb to %ub step %s iter_args(%a = %init) { body; scf.yield %y }
      ==>  cf.br ^h(%lb, %init)
           ^h(%iv, %a):  %c = arith.cmpi slt, %iv, %ub     (ult with `unsignedCmp`)
                         cf.cond_br %c, ^body, ^exit(%a)
           ^body:        body; %next = arith.addi %iv, %s; cf.br ^h(%next, %y)
           ^exit(%r):    (what followed the scf.for, %r its results)

    scf.while (%b = %init) { before; scf.condition(%c) %v } do { ^(%x): after; scf.yield %y }
      ==>  cf.br ^before(%init)
           ^before(%b):  before; cf.cond_br %c, ^after(%v), ^exit(%v)
           ^after(%x):   after; cf.br ^before(%y)
           ^exit(%r):    (what followed)

The loop's own block arguments are the region's (the body's ops keep their operands), and the
exit block's arguments are the loop op's results, so no op outside the loop changes either.
This is the semantics of the two ops (MLIR's scf-to-cf lowering). A loop in a loop's body, or
in an `scf.if` arm, becomes blocks as well (nested loops are loops of the block graph); a loop
in another op's region (`scf.index_switch`, `scf.execute_region`) is left as it is (and refused
by `verify.paths`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stream.ir.attributes import DenseArrayAttr, IntegerAttr
from stream.ir.core import Block, Op, Region, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import OpSet
from stream.ir.types import I1, I32
from stream.ir.verifier import dominators
from stream.ir.walk import Function
from stream.passes.block_builder import remap_op

__all__ = ["lower_loops", "has_structured_loop", "forward_invariant_arguments", "cond_br_groups", "switch_edges", "branch_edges",
           "reaches", "latches", "natural_loop"]

STRUCTURED_LOOPS = OpSet("STRUCTURED_LOOPS", "The scf loops rewritten into blocks and branches.", {"scf.for", "scf.while"})
_SLT, _ULT = 2, 6  # arith.cmpi predicates


def has_structured_loop(func: Function) -> bool:
    """A top-level `scf.for`/`scf.while`, or an `scf.if` with one inside."""
    return any(op.name in STRUCTURED_LOOPS or _if_with_loop(op) for b in func.blocks for op in b.ops)


def _if_with_loop(op: Op) -> bool:
    return op.name == "scf.if" and any(inner.name in STRUCTURED_LOOPS for inner in op.walk() if inner is not op)


@dataclass(slots=True, eq=False)
class _Pending:
    """A block being built: its arguments, ops, and the pending blocks its terminator targets."""

    arguments: tuple[Value, ...]
    ops: list[Op] = field(default_factory=list)
    targets: list[_Pending | int] = field(default_factory=list)  # int: an original block index


def lower_loops(func: Function) -> Function:
    """`func` with every host-level `scf.for`/`scf.while` (top-level, in a loop body or in an
    `scf.if` arm, at any depth) rewritten into blocks (the same function when it has none)."""
    if not has_structured_loop(func):
        return func
    originals = func.blocks
    pending: list[_Pending] = []
    first_of: dict[int, _Pending] = {}
    for index, block in enumerate(originals):
        current = _Pending(block.arguments)
        first_of[index] = current
        pending.append(current)
        for op in block.ops:
            current = _lower_op(op, current, pending)
    number = {id(p): i for i, p in enumerate(pending)}
    blocks = []
    for p in pending:
        ops = list(p.ops)
        if p.targets:
            resolved = tuple(number[id(first_of[t])] if isinstance(t, int) else number[id(t)] for t in p.targets)
            ops[-1] = ops[-1].replace(successors=resolved)
        blocks.append(Block(p.arguments, tuple(ops)))
    return Function(func.op.replace(regions=(Region(tuple(blocks)),)))


def _lower_op(op: Op, current: _Pending, pending: list[_Pending]) -> _Pending:
    """Append `op` to the block being built, or the blocks it stands for; the block that follows."""
    if op.name == "scf.for":
        return _lower_for(op, current, pending)
    if op.name == "scf.while":
        return _lower_while(op, current, pending)
    if _if_with_loop(op):
        return _lower_if(op, current, pending)
    current.ops.append(op)
    if op.successors:
        current.targets = list(op.successors)
    return current


def _lower_if(op: Op, current: _Pending, pending: list[_Pending]) -> _Pending:
    """`scf.if %c {A; yield a} else {B; yield b}` ==> `cf.cond_br %c, ^then, ^else`, each arm
    branching to `^cont(%results)`; only when an arm holds a loop, which then becomes blocks
    too (the verifier follows loops at block level, not inside regions)."""
    arms = [_Pending(()) for _ in op.regions]
    pending.extend(arms)
    cont = _Pending(op.results)
    _branch(current, "cf.cond_br", (op.operands[0],), arms, op, (1, 0, 0))
    for arm, region in zip(arms, op.regions):
        if not region.blocks:  # no else: nothing runs, and the op has no results
            _branch(arm, "cf.br", (), [cont], op)
            continue
        *ops, terminator = _single_block(op, region).ops
        if terminator.name != "scf.yield":
            raise DiagnosticError.at(op.location, "scf.if: expected an scf.yield terminator")
        end = _lower_ops(ops, arm, pending)
        _branch(end, "cf.br", terminator.operands, [cont], terminator)
    pending.append(cont)
    return cont


def _branch(current: _Pending, name: str, operands: tuple[Value, ...], targets: list[_Pending], at: Op, segments: tuple[int, ...] | None = None) -> None:
    props: dict[str, DenseArrayAttr] = {}
    if segments is not None:
        props["operandSegmentSizes"] = DenseArrayAttr(I32, segments)
    current.ops.append(Op(name, operands=operands, properties=props, successors=tuple(range(len(targets))), location=at.location))
    current.targets = list(targets)


def _lower_for(op: Op, current: _Pending, pending: list[_Pending]) -> _Pending:
    lb, ub, step, *inits = op.operands
    body = _single_block(op, op.regions[0])
    *ops, yield_op = body.ops
    header = _Pending(body.arguments)
    loop = _Pending(())
    exit_block = _Pending(op.results)
    pending.extend([header, loop, exit_block])
    _branch(current, "cf.br", (lb, *inits), [header], op)
    iv, *carried = body.arguments
    cond = Value(I1, "in_range")
    predicate = _ULT if "unsignedCmp" in op.properties else _SLT
    header.ops.append(Op("arith.cmpi", operands=(iv, ub), results=(cond,), properties={"predicate": IntegerAttr(predicate)}, location=op.location))
    _branch(header, "cf.cond_br", (cond, *carried), [loop, exit_block], op, (1, 0, len(carried)))
    end = _lower_ops(ops, loop, pending)  # a loop in the body becomes blocks too (nested loops)
    nxt = Value(iv.type, "next")
    end.ops.append(Op("arith.addi", operands=(iv, step), results=(nxt,), location=op.location))
    _branch(end, "cf.br", (nxt, *yield_op.operands), [header], yield_op)
    return exit_block


def _lower_ops(ops: list[Op], current: _Pending, pending: list[_Pending]) -> _Pending:
    for op in ops:
        current = _lower_op(op, current, pending)
    return current


def _lower_while(op: Op, current: _Pending, pending: list[_Pending]) -> _Pending:
    before = _single_block(op, op.regions[0])
    after = _single_block(op, op.regions[1])
    *before_ops, condition = before.ops
    *after_ops, yield_op = after.ops
    if condition.name != "scf.condition" or yield_op.name != "scf.yield":
        raise DiagnosticError.at(op.location, "scf.while: expected scf.condition and scf.yield terminators")
    head = _Pending(before.arguments)
    body = _Pending(after.arguments)
    exit_block = _Pending(op.results)
    pending.extend([head, body, exit_block])
    _branch(current, "cf.br", op.operands, [head], op)
    c, *values = condition.operands
    _branch(_lower_ops(before_ops, head, pending), "cf.cond_br", (c, *values, *values), [body, exit_block], condition,
            (1, len(values), len(values)))
    _branch(_lower_ops(after_ops, body, pending), "cf.br", yield_op.operands, [head], yield_op)
    return exit_block


def _single_block(op: Op, region: Region) -> Block:
    if len(region.blocks) != 1:
        raise DiagnosticError.at(op.location, f"'{op.name}': a region with {len(region.blocks)} blocks is not supported")
    return region.blocks[0]


def forward_invariant_arguments(func: Function) -> Function:
    """`func` with each block argument that every branch into its block passes the same value
    for (or the argument itself, a loop passing it on unchanged) replaced by that value in its
    uses. Exact: by induction on the visits of the block, the argument holds that value at each
    one; and the value's definition dominates the block (every path to the block enters it, the
    first time, through an edge passing that value). Without it, an invariant iter_arg, such as
    an awaited resource a loop only reads, would be a fresh carried value in every iteration."""
    blocks = func.blocks
    incoming: dict[int, list[tuple[Value, ...]]] = {}
    for block in blocks:
        term = block.ops[-1] if block.ops else None
        if term is None or not term.successors:
            continue
        if term.name not in ("cf.br", "cf.cond_br"):
            return func  # a branch `_drop_passed` does not rewrite: nothing is forwarded
        for target, operands in branch_edges(term):
            incoming.setdefault(target, []).append(tuple(operands))
    mapping: dict[Value, Value] = {}
    for i, block in enumerate(blocks):
        into = incoming.get(i, [])
        if i == 0 or not into or any(len(e) != len(block.arguments) for e in into):
            continue
        for j, arg in enumerate(block.arguments):
            passed = {id(e[j]): e[j] for e in into if e[j] is not arg}
            if len(passed) == 1:
                mapping[arg] = next(iter(passed.values()))
    if not mapping:
        return func
    for arg in list(mapping):  # a value passed on may itself be a forwarded argument
        seen = {arg}
        while mapping[arg] in mapping and mapping[arg] not in seen:
            seen.add(mapping[arg])
            mapping[arg] = mapping[mapping[arg]]
    for arg in [a for a, v in mapping.items() if v in mapping]:  # a cycle no value enters (unreachable)
        del mapping[arg]
    # The forwarded arguments go, with what every branch passes for them: a loop-carried slot
    # left in place would still be a carried value of the loop (verify.loops).
    keep = [[j for j, a in enumerate(b.arguments) if a not in mapping] for b in blocks]
    new: list[Block] = []
    for b in blocks:
        ops = [remap_op(op, mapping) for op in b.ops]
        if ops and ops[-1].successors:
            ops[-1] = _drop_passed(ops[-1], keep)
        new.append(Block(tuple(b.arguments[j] for j in keep[len(new)]), tuple(ops)))
    return Function(func.op.replace(regions=(Region(tuple(new)),)))


def _drop_passed(term: Op, keep: list[list[int]]) -> Op:
    """A `cf.br`/`cf.cond_br` passing only the kept arguments of its targets."""
    if term.name == "cf.br":
        target = term.successors[0]
        return term.replace(operands=tuple(term.operands[j] for j in keep[target]))
    sizes = term.properties["operandSegmentSizes"]
    assert isinstance(sizes, DenseArrayAttr)
    n_true = int(sizes.values[1])
    on_true = tuple(term.operands[1 + j] for j in keep[term.successors[0]])
    on_false = tuple(term.operands[1 + n_true + j] for j in keep[term.successors[1]])
    props = dict(term.properties)
    props["operandSegmentSizes"] = DenseArrayAttr(I32, (1, len(on_true), len(on_false)))
    return term.replace(operands=(term.operands[0], *on_true, *on_false), properties=props)


# -- branches ----------------------------------------------------------------------------------------
def switch_edges(op: Op) -> list[tuple[int, tuple[Value, ...]]]:
    """A `cf.switch`'s destinations with the operands each is passed: the default first."""
    sizes = op.properties.get("operandSegmentSizes")
    cases = op.properties.get("case_operand_segments")
    n_cases = len(op.successors) - 1
    case_sizes = [int(v) for v in cases.values] if isinstance(cases, DenseArrayAttr) else []
    if not isinstance(sizes, DenseArrayAttr) or len(sizes.values) != 3 or len(case_sizes) != n_cases:
        raise DiagnosticError.at(op.location, "cf.switch without operandSegmentSizes and case_operand_segments")
    n_default = int(sizes.values[1])
    edges = [(op.successors[0], op.operands[1:1 + n_default])]
    start = 1 + n_default
    for dest, n in zip(op.successors[1:], case_sizes):
        edges.append((dest, op.operands[start:start + n]))
        start += n
    return edges


def cond_br_groups(op: Op) -> tuple[Value, tuple[Value, ...], tuple[Value, ...]]:
    sizes = op.properties.get("operandSegmentSizes")
    if isinstance(sizes, DenseArrayAttr) and len(sizes.values) == 3:
        n_true = int(sizes.values[1])
        return op.operands[0], op.operands[1:1 + n_true], op.operands[1 + n_true:]
    raise DiagnosticError.at(op.location, "cf.cond_br without operandSegmentSizes")


def branch_edges(term: Op) -> list[tuple[int, tuple[Value, ...]]]:
    """Every edge of a `cf.br`, `cf.cond_br` or `cf.switch`: (destination block, the operands it
    passes), in successor order; [] for a terminator without successors. A branch op of another
    kind is a DiagnosticError (what it passes is not known)."""
    if term.name == "cf.br":
        return [(term.successors[0], tuple(term.operands))]
    if term.name == "cf.cond_br":
        _cond, on_true, on_false = cond_br_groups(term)
        return [(term.successors[0], tuple(on_true)), (term.successors[1], tuple(on_false))]
    if term.name == "cf.switch":
        return [(dest, tuple(args)) for dest, args in switch_edges(term)]
    if term.successors:
        raise DiagnosticError.at(term.location, f"'{term.name}': a branch whose operands per successor are not known")
    return []


def reaches(blocks: tuple[Block, ...], src: int, dst: int) -> bool:
    """Is block `dst` reachable from block `src` (itself included)?"""
    seen, todo = {src}, [src]
    while todo:
        i = todo.pop()
        if i == dst:
            return True
        for t in (blocks[i].ops[-1].successors if blocks[i].ops else ()):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return False


def latches(blocks: tuple[Block, ...], header: int) -> list[int]:
    """The sources of the header's back edges: its predecessors that it dominates. (Reaching them
    from the header is not enough: with nested loops, the block entering an inner loop is
    reached from the inner header too, through the outer loop.)"""
    dom = dominators(Region(tuple(blocks)))
    return [i for i, b in enumerate(blocks) if b.ops and header in b.ops[-1].successors and header in dom[i]]


def natural_loop(blocks: tuple[Block, ...], header: int) -> frozenset[int]:
    """The header and every block that reaches one of its latches without passing through it:
    the blocks of the loop (of an inner loop only its own, not the enclosing loop's)."""
    preds: dict[int, list[int]] = {}
    for i, b in enumerate(blocks):
        for t in (b.ops[-1].successors if b.ops else ()):
            preds.setdefault(t, []).append(i)
    body = {header}
    stack = latches(blocks, header)
    while stack:
        x = stack.pop()
        if x not in body:
            body.add(x)
            stack.extend(preds.get(x, []))
    return frozenset(body)

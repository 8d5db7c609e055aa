"""Structured loops as blocks: `scf.for` and `scf.while` in a function's host code, rewritten
into the blocks and branches they stand for, so that `verify.loops` treats every loop alike.

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
This is the semantics of the two ops (MLIR's scf-to-cf lowering); a loop nested in another
op's region is left as it is (and refused by `verify.paths`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stream.ir.attributes import DenseArrayAttr, IntegerAttr
from stream.ir.core import Block, Op, Region, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.types import I1, I32
from stream.ir.walk import Function

__all__ = ["lower_loops", "has_structured_loop"]

STRUCTURED_LOOPS = frozenset({"scf.for", "scf.while"})
_SLT, _ULT = 2, 6  # arith.cmpi predicates


def has_structured_loop(func: Function) -> bool:
    return any(op.name in STRUCTURED_LOOPS for b in func.blocks for op in b.ops)


@dataclass(slots=True, eq=False)
class _Pending:
    """A block being built: its arguments, ops, and the pending blocks its terminator targets."""

    arguments: tuple[Value, ...]
    ops: list[Op] = field(default_factory=list)
    targets: list[_Pending | int] = field(default_factory=list)  # int: an original block index


def lower_loops(func: Function) -> Function:
    """`func` with every top-level `scf.for`/`scf.while` rewritten into blocks (the same function
    when it has none)."""
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
            if op.name == "scf.for":
                current = _lower_for(op, current, pending)
            elif op.name == "scf.while":
                current = _lower_while(op, current, pending)
            else:
                current.ops.append(op)
                if op.successors:
                    current.targets = list(op.successors)
    number = {id(p): i for i, p in enumerate(pending)}
    blocks = []
    for p in pending:
        ops = list(p.ops)
        if p.targets:
            resolved = tuple(number[id(first_of[t])] if isinstance(t, int) else number[id(t)] for t in p.targets)
            ops[-1] = ops[-1].replace(successors=resolved)
        blocks.append(Block(p.arguments, tuple(ops)))
    return Function(func.op.replace(regions=(Region(tuple(blocks)),)))


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
    loop.ops.extend(ops)
    nxt = Value(iv.type, "next")
    loop.ops.append(Op("arith.addi", operands=(iv, step), results=(nxt,), location=op.location))
    _branch(loop, "cf.br", (nxt, *yield_op.operands), [header], yield_op)
    return exit_block


def _lower_while(op: Op, current: _Pending, pending: list[_Pending]) -> _Pending:
    before = _single_block(op, op.regions[0])
    after = _single_block(op, op.regions[1])
    *before_ops, condition = before.ops
    *after_ops, yield_op = after.ops
    if condition.name != "scf.condition" or yield_op.name != "scf.yield":
        raise DiagnosticError.at(op.location, "scf.while: expected scf.condition and scf.yield terminators")
    head = _Pending(before.arguments, list(before_ops))
    body = _Pending(after.arguments, list(after_ops))
    exit_block = _Pending(op.results)
    pending.extend([head, body, exit_block])
    _branch(current, "cf.br", op.operands, [head], op)
    c, *values = condition.operands
    _branch(head, "cf.cond_br", (c, *values, *values), [body, exit_block], condition, (1, len(values), len(values)))
    _branch(body, "cf.br", yield_op.operands, [head], yield_op)
    return exit_block


def _single_block(op: Op, region: Region) -> Block:
    if len(region.blocks) != 1:
        raise DiagnosticError.at(op.location, f"'{op.name}': a region with {len(region.blocks)} blocks is not supported")
    return region.blocks[0]

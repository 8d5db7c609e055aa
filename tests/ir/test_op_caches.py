"""What an op caches about itself (operand group bounds, bound accesses, the structural verifier's
mark) is a function of its frozen fields: an op built by `replace` starts without it, so a
pass that rewrites an op never sees the old op's facts."""

from __future__ import annotations

import stream.ir as ir
from stream.ir.core import Op
from stream.ir.interfaces import bound_accesses
from stream.ir.spec import spec_of
from stream.ir.verifier import structural_diagnostics

TEXT = """
util.func public @f(%r: !stream.resource<transient>, %s: index) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %v = arith.constant 4 : i32
  %c8 = arith.constant 8 : index
  %t = stream.async.fill %v, %r[%c0 to %c8 for %c8] : i32 -> %r as !stream.resource<transient>{%s}
  util.return %t : !stream.resource<transient>
}
"""


def _fill(module: ir.Module) -> Op:
    return next(op for op in module.walk() if op.name == "stream.async.fill")


def test_group_bounds_are_computed_once_and_not_carried_by_replace() -> None:
    module = ir.parse_module(TEXT, "t.mlir")
    fill = _fill(module)
    spec = spec_of(fill)
    assert spec is not None
    bounds = spec.operand_bounds(fill)
    assert bounds[-1] == len(fill.operands) and spec.operand_bounds(fill) is bounds
    # Sizes derived from the bounds agree with the groups read one by one.
    assert [len(spec.operand_group(fill, g.name)) for g in spec.operands] == spec.operand_sizes(fill)
    shorter = fill.replace(operands=fill.operands[:-1])
    assert shorter._operand_bounds is None


def test_bound_accesses_are_cached_per_op_and_rebound_after_replace() -> None:
    module = ir.parse_module(TEXT, "t.mlir")
    fill = _fill(module)
    spec = spec_of(fill)
    assert spec is not None
    first = bound_accesses(spec, fill)
    assert first is not None and bound_accesses(spec, fill) is first
    target = fill.operands[0]
    assert [a.value for a in first] == [target]
    # The same op over another resource: its accesses name the new value, not the cached one.
    other = ir.core.Value(target.type, "other")
    moved = fill.replace(operands=(other, *fill.operands[1:]))
    again = bound_accesses(spec, moved)
    assert again is not None and [a.value for a in again] == [other]


def test_an_op_rebuilt_malformed_is_checked_again() -> None:
    module = ir.parse_module(TEXT, "t.mlir")
    assert structural_diagnostics(module) == []
    fill = _fill(module)
    assert fill._checked  # passed its own checks once: marked
    # The same op with an index where the resource goes: a new op, not marked, so diagnosed.
    bad = fill.replace(operands=(fill.operands[1], *fill.operands[1:]))
    assert not bad._checked
    func = module.ops[0]
    block = func.regions[0].blocks[0]
    ops = tuple(bad if op is fill else op for op in block.ops)
    broken = module.replace(ops=(func.replace(regions=(ir.core.Region((block.replace(ops=ops),)),)),))
    found = [d.message for d in structural_diagnostics(broken)]
    assert any("must be resource-typed" in m for m in found), found

"""Typed op views (stream.ir.views) and `OpSpec.build`'s checks of group names."""

from __future__ import annotations

import pytest

import stream.ir as ir
from stream.dialect import load_all
from stream.ir.spec import OpSpec, spec_of, view
from stream.ir.types import INDEX, ResourceType
from stream.ir.walk import functions

load_all()

_PROGRAM = """
util.func public @f(%arg0: !stream.resource<transient>, %n: index) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %r = stream.async.copy %arg0[%c0 to %c4], %arg0[%c4 to %c8], %c4 : !stream.resource<transient>{%n} -> %arg0 as !stream.resource<transient>{%n}
  %d = stream.async.dispatch @ex::@entry[%c4](%r[%c0 to %c4 for %c4], %c8) : (!stream.resource<transient>{%n}, index) -> !stream.resource<transient>{%c4}
  util.return %d : !stream.resource<transient>
}
"""


def _ops() -> dict[str, ir.Op]:
    module = ir.parse_module(_PROGRAM, "views.mlir")
    return {op.name: op for f in functions(module) for op in f.body.ops}


def _spec(name: str) -> OpSpec:
    spec = spec_of(name)
    assert spec is not None
    return spec


def test_views_name_every_group() -> None:
    ops = _ops()
    copy = view(ops["stream.async.copy"])
    assert copy.length is copy.op.operands[8]
    assert copy.target is copy.source is copy.op.operands[0]
    assert copy.result is copy.op.results[0]
    dispatch = view(ops["stream.async.dispatch"])
    assert [v.type for v in dispatch.resource_operands] == [ops["stream.async.copy"].results[0].type, INDEX]
    assert dispatch.resource_operand_offsets == (copy.source_offset,)
    assert dispatch.resource_operand_lengths == (copy.length,) and dispatch.workload == (copy.length,)
    assert len(dispatch.results) == 1 and isinstance(dispatch.results[0].type, ResourceType)
    assert dispatch.affinity is None


def test_a_misspelled_group_raises_naming_the_op_and_its_groups() -> None:
    copy = view(_ops()["stream.async.copy"])
    with pytest.raises(AttributeError, match=r"'stream.async.copy' has no operand, result, attribute or region 'target_ofset' "
                       r"\(it has: target, target_size, target_offset, target_end, source,"):
        _ = copy.target_ofset


def test_the_operand_layout_is_computed_once_per_view(monkeypatch: pytest.MonkeyPatch) -> None:
    op = _ops()["stream.async.dispatch"]
    spec = _spec(op.name)
    calls = []
    real = OpSpec.operand_sizes

    def counting(self: OpSpec, o: ir.Op) -> list[int]:
        calls.append(o)
        return real(self, o)

    monkeypatch.setattr(OpSpec, "operand_sizes", counting)
    v = view(op)
    _ = (v.workload, v.resource_operands, v.resource_operand_sizes, v.resource_operand_offsets, v.resource_operand_ends,
         v.resource_operand_lengths, v.result_sizes)
    assert len(calls) == 1
    assert spec is v.spec


def test_build_refuses_unknown_group_names() -> None:
    spec = _spec("stream.timepoint.immediate")
    assert spec.build().name == "stream.timepoint.immediate"
    with pytest.raises(ValueError, match=r"unknown result group\(s\) \['result_timepont'\]"):
        spec.build(results={"result_timepont": INDEX})
    with pytest.raises(ValueError, match=r"unknown attribute group\(s\) \['afinity'\]"):
        spec.build(attrs={"afinity": None})
    with pytest.raises(ValueError, match=r"unknown operand group\(s\) \['storage_sise'\]"):
        _spec("stream.async.alloca").build(operands={"storage_sise": ()})

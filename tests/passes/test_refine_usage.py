"""refine-usage, and the four-pass chain encode-tensors .. refine-usage on IREE's own stage files."""

from __future__ import annotations

from collections import Counter

import pytest
from tests_paths import IREE

import stream.ir as ir
from stream.ir.diagnostics import DiagnosticError
from stream.ir.types import Lifetime, ResourceType
from stream.ir.verifier import verify_structure
from stream.ir.walk import constant_int, defining_ops, functions
from stream.passes import PASSES

ASYNC_CHAIN = ("encode-tensors", "materialize-copy-on-write", "elide-async-copies", "refine-usage")
COMPARED = ("dispatch", "transfer", "splat", "alloca", "import", "export", "clone", "update", "slice", "copy", "fill")


def chain(module: ir.Module) -> ir.Module:
    for name in ASYNC_CHAIN:
        module = PASSES[name].run(module)
        verify_structure(module)
    return module


def signature(module: ir.Module) -> list[tuple[object, ...]]:
    """Per stream op: kind, resource operand types, result types, constant index operands."""
    out = []
    for f in functions(module):
        defs = defining_ops(f.op)
        for op in f.body.ops:
            kind = op.name.rsplit(".", 1)[-1]
            if op.name.startswith("stream.") and kind in COMPARED:
                out.append((
                    kind,
                    tuple(str(v.type) for v in op.operands if isinstance(v.type, ResourceType)),
                    tuple(str(r.type) for r in op.results),
                    tuple(constant_int(v, defs) for v in op.operands if str(v.type) == "index"),
                ))
    return out


@pytest.mark.parametrize("example", ["b_diamond", "i_multidevice_overlap", "f_multidevice"])
def test_matches_iree_before_scheduling(example: str) -> None:
    # From IREE's own conversion output, the chain reproduces IREE's 02 stage (the input of
    # scheduling): the same ops, lifetimes and byte ranges (f_multidevice orders two
    # independent ops differently).
    ours = chain(ir.parse_module((IREE / example / "00_conversion.mlir").read_text(), "00.mlir"))
    iree = ir.parse_module((IREE / example / "02_place_transfer_executions.mlir").read_text(), "02.mlir")
    assert Counter(signature(ours)) == Counter(signature(iree))
    if example != "f_multidevice":
        assert signature(ours) == signature(iree)


def test_no_unknown_lifetime_or_cast_remains_in_iree_examples() -> None:
    for example in ("b_diamond", "d_inplace", "f_multidevice", "i_multidevice_overlap"):
        out = chain(ir.parse_module((IREE / example / "00_conversion.mlir").read_text(), "00.mlir"))
        for f in functions(out):
            for op in f.op.walk():
                assert op.name != "stream.async.cast", example
                for v in (*op.operands, *op.results):
                    assert not (isinstance(v.type, ResourceType) and v.type.lifetime is Lifetime.UNKNOWN), (example, op.name)


def test_tensor_level_input_is_refused() -> None:
    text = (IREE / "b_diamond" / "00_conversion.mlir").read_text()
    with pytest.raises(DiagnosticError, match="must be lowered by encode-tensors first"):
        PASSES["refine-usage"].run(ir.parse_module(text, "00.mlir"))


def test_scheduled_functions_pass_through() -> None:
    text = (IREE / "b_diamond" / "04_schedule_concurrency.mlir").read_text()
    module = ir.parse_module(text, "04.mlir")
    out = PASSES["refine-usage"].run(module)
    assert all(a is b for a, b in zip(out.ops, module.ops))


def test_refined_module_is_a_fixed_point() -> None:
    once = chain(ir.parse_module((IREE / "b_diamond" / "00_conversion.mlir").read_text(), "00.mlir"))
    twice = PASSES["refine-usage"].run(once)
    assert ir.print_module(twice) == ir.print_module(once)

"""Tensor-level index ranges: a slice, update or load of the input program that leaves its
tensor is OUT_OF_BOUNDS where it first appears (convert-to-stream's output), in elements of the
dim that is wrong, with symbol values that make it so."""

from __future__ import annotations

import pytest
from conftest import parse

from stream.ir.core import Module
from stream.passes import PassVerificationError, parse_pipeline, run_pipeline
from verify import verify_module
from verify.hook import make_hook

TEMPLATE = """
func.func @f(%n: index, %x: tensor<XTYPE>, %y: tensor<4x4xf32>, %u: tensor<2x4xf32>) -> (tensor<STYPE>, tensor<4x4xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %s = flow.tensor.slice %x[%c0, SCOL for SROWS, %c4] : tensor<XTYPE>XDIMS -> tensor<STYPE>SDIMS
  %w = flow.tensor.update %u, %y[UROW, %c0] : tensor<2x4xf32> -> %y as tensor<4x4xf32>
  %e = flow.tensor.load %y[%c3, LCOL] : tensor<4x4xf32>
  return %s, %w, %e : tensor<STYPE>, tensor<4x4xf32>, f32
}
"""
STATIC = {"XTYPE": "8x8xf32", "XDIMS": "", "STYPE": "2x4xf32", "SDIMS": "", "SROWS": "%c2"}
DYNAMIC = {"XTYPE": "?x8xf32", "XDIMS": "{%n}", "STYPE": "2x4xf32", "SDIMS": "", "SROWS": "%c2"}
# Rows [0, n) of an n-row tensor: in bounds for every %n.
DYNAMIC_ALL_ROWS = {"XTYPE": "?x8xf32", "XDIMS": "{%n}", "STYPE": "?x4xf32", "SDIMS": "{%n}", "SROWS": "%n"}
IN_BOUNDS = {"SCOL": "%c4", "UROW": "%c2", "LCOL": "%c3"}


def program(shape: dict[str, str], **indices: str) -> str:
    text = TEMPLATE
    for key, value in {**shape, **IN_BOUNDS, **indices}.items():
        text = text.replace(key, value)
    return text


def tensor_level(text: str) -> Module:
    return run_pipeline(parse(text, "bounds.mlir"), parse_pipeline("convert-to-stream"), verify="none")[0]


def out_of_bounds(text: str) -> list[str]:
    return [v.message for v in verify_module(tensor_level(text)).violations if v.cls == "OUT_OF_BOUNDS"]


def test_in_bounds_indices_are_proved() -> None:
    assert out_of_bounds(program(STATIC)) == []
    assert out_of_bounds(program(DYNAMIC_ALL_ROWS)) == []  # for every %n


def test_rows_past_a_dynamic_dim_come_with_the_sizes_that_break_them() -> None:
    report = verify_module(tensor_level(program(DYNAMIC)))
    (v,) = [v for v in report.violations if v.cls == "OUT_OF_BOUNDS"]
    assert v.message.startswith("the slice range [0, 2) exceeds") and "elements of dim 0" in v.message
    assert v.symbols and min(v.symbols.values()) < 2  # a concrete %n with fewer than 2 rows


# (convert-to-stream reads a loaded element through a one-element slice: hence "slice" for a load)
@pytest.mark.parametrize(("indices", "line", "what", "dim"), [
    ({"SCOL": "%c6"}, 8, "the slice range [6, 10)", "dim 1"),  # columns [6, 10) of 8
    ({"UROW": "%c3"}, 9, "the update range [3, 5)", "dim 0"),  # rows [3, 5) of 4
    ({"LCOL": "%c4"}, 10, "the slice range [4, 5)", "dim 1"),  # element [3, 4] of a 4x4
])
def test_each_op_kind_is_checked_per_dim(indices: dict[str, str], line: int, what: str, dim: str) -> None:
    (v,) = [v for v in verify_module(tensor_level(program(STATIC, **indices))).violations if v.cls == "OUT_OF_BOUNDS"]
    assert v.location.line == line and v.message.startswith(what) and f"elements of {dim}" in v.message


def test_the_compile_error_points_at_the_input_program() -> None:
    with pytest.raises(PassVerificationError) as caught:
        run_pipeline(parse(program(STATIC, UROW="%c3"), "bounds.mlir"), parse_pipeline("convert-to-stream"), hook=make_hook())
    text = str(caught.value)
    assert "OUT_OF_BOUNDS" in text and "bounds.mlir:9:" in text and "check the input op at this location" in text

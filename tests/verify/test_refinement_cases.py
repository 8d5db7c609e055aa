"""Refinement stays decided on programs with symbolic pack offsets: case splits only where the
answer depends on them, and a function a pass left alone is not re-checked at all."""

from __future__ import annotations

from conftest import parse

from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline
from verify.refinement import check_refinement

# Found by tests/passes/test_pipeline_property.py: a dynamic slice (%n2 rows) shares a pack
# with slices of disjoint lifetimes. Every read of it is covered by its own copy, yet the check
# asked "is the read empty (%n2 == 0)?" at each covering write, and then, in the empty case,
# "does an older write of an aliasable slice overlap it?": more than 64 cases, undecided.
PROGRAM = """
func.func @main(%arg1: tensor<8x2xf32> {iree.abi.consume}, %n2: index, %arg3: tensor<?x8xf32>) -> (tensor<8x2xf32>) {
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %cst3 = arith.constant -2.000000e+00 : f32
  %c7 = arith.constant 7 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %v1 = arith.constant dense<[[1.000000e+00], [0.000000e+00], [2.500000e-01]]> : tensor<3x1xf32>
  %v2 = flow.tensor.update %v1, %arg1[%c2, %c0] : tensor<3x1xf32> -> %arg1 as tensor<8x2xf32>
  %v3 = flow.tensor.splat %cst3 : tensor<3x8xf32>
  %v4 = flow.tensor.update %v1, %v3[%c0, %c7] : tensor<3x1xf32> -> %v3 as tensor<3x8xf32>
  %v5 = flow.tensor.slice %arg1[%c0, %c1 for %c8, %c1] : tensor<8x2xf32> -> tensor<8x1xf32>
  %v8 = flow.dispatch @gelu(%arg3) : (tensor<?x8xf32>{%n2}) -> %arg3{%n2}
  %v10 = flow.dispatch @relu(%v2) : (tensor<8x2xf32>) -> tensor<8x2xf32>
  %v11 = flow.dispatch @relu(%arg1) : (tensor<8x2xf32>) -> tensor<8x2xf32>
  return %v11 : tensor<8x2xf32>
}
"""


def stages():  # type: ignore[no-untyped-def]
    module = parse(PROGRAM, "cases.mlir")
    before, _ = run_pipeline(module, parse_pipeline(",".join(DEFAULT_PIPELINE[:-1])), verify="none")
    after, _ = run_pipeline(before, parse_pipeline("elide-timepoints"), verify="none")
    return before, after


def test_a_covering_write_answers_a_read_without_splitting_on_its_length() -> None:
    before, after = stages()
    report = check_refinement(before, after)
    assert report.unknowns == [] and report.mismatches == []
    assert report.cases == 1


def test_an_unchanged_function_is_not_checked_again() -> None:
    before, _ = stages()
    report = check_refinement(before, before, skip_unchanged=True)
    assert report.cases == 0 and report.ok

"""Refinement semantics of the parameter ops (verify/refinement/rules_parameter.py): a parameter's
bytes are one opaque atom per (scope, key), so reads of the same range are equal wherever they
happen, a gather of a parameter's two halves is its load, and swapping the halves is a mismatch."""

from __future__ import annotations

from pathlib import Path

import stream.ir as ir
from verify.refinement import check_refinement

DATA = Path(__file__).resolve().parent.parent / "data" / "parameters"


def _module(name: str) -> ir.Module:
    return ir.parse_module((DATA / name).read_text(), name)


def test_a_gather_of_both_halves_refines_the_load_of_the_whole() -> None:
    report = check_refinement(_module("load_whole.mlir"), _module("gather_halves.mlir"))
    assert report.ok, (report.mismatches, report.unknowns)


def test_swapped_halves_are_a_value_mismatch() -> None:
    report = check_refinement(_module("load_whole.mlir"), _module("gather_swapped.mlir"))
    assert report.mismatches and not report.ok


def test_another_key_is_a_value_mismatch() -> None:
    other = ir.parse_module((DATA / "load_whole.mlir").read_text().replace('"w0"', '"w1"'), "other.mlir")
    assert check_refinement(_module("load_whole.mlir"), other).mismatches


def test_a_parameter_write_is_undecided_not_proved() -> None:
    text = (DATA / "gather_halves.mlir").read_text().replace(
        "  %r = stream.timepoint.await %gt => %g",
        "  %w, %wt = stream.async.parameter.write await(%gt) %g[%c0 to %c32 for %c32] -> %key[%c0_i64] : "
        "!stream.resource<external>{%c64} => !stream.timepoint\n  %r = stream.timepoint.await %wt => %w")
    report = check_refinement(_module("load_whole.mlir"), ir.parse_module(text, "write.mlir"))
    assert report.unknowns and not report.mismatches and not report.ok

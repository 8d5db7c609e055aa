"""Mutable globals in the refinement check: the induction over calls (`verify.refinement.rules_globals`).

Both programs start a call from the same unknown state of every mutable global (an input, as an
argument is) and must leave equal values in every global either one touches; their initializers
must leave equal initial values; a loop body that stores a global makes it part of the loop's
state. Each rule has a pair of programs the check must not call equal, built from convert-to-stream's
real output of `tests/data/input_control_flow/global_kv_*.mlir` by a one-line edit.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import stream.ir as ir
from stream.passes import parse_pipeline, run_pipeline
from verify.refinement import check_refinement

DATA = Path(__file__).resolve().parents[1] / "data" / "input_control_flow"


def _source(name: str) -> tuple[ir.Module, str]:
    source = ir.parse_module((DATA / f"{name}.mlir").read_text(), f"{name}.mlir")
    lowered, _ = run_pipeline(source, parse_pipeline("convert-to-stream"), verify="none")
    return source, ir.print_module(lowered)


def _check(before: ir.Module, after: str) -> tuple[str, object]:
    report = check_refinement(before, ir.parse_module(after, "after.mlir"))
    return report.status, report


@pytest.mark.parametrize("name", ["global_kv_step", "global_kv_loop", "global_kv_loop_body", "global_kv_initializer"])
def test_the_lowering_refines_its_input(name: str) -> None:
    source, after = _source(name)
    status, report = _check(source, after)
    assert status == "proved", report


def test_storing_the_old_cache_is_a_mismatch_of_the_global() -> None:
    # The store hands over the cache as it was loaded, not the updated one: the next call sees
    # another state.
    source, after = _source("global_kv_step")
    found = re.search(r"= stream\.async\.transfer on\([^)]*\) %c2 :", after)
    assert found is not None, after
    status, report = _check(source, after.replace(found.group(0), found.group(0).replace("%c2 :", "%c :")))
    assert status == "mismatch", report
    mm = report.mismatches[0]  # type: ignore[attr-defined]
    assert mm.observable == "global" and mm.result_name == "@cache" and "when the call returns" in mm.render_text()


def test_advancing_the_position_by_two_is_a_mismatch_of_the_index_global() -> None:
    source, after = _source("global_kv_step")
    assert after.count("arith.addi %p, %c1 : index") == 1
    status, report = _check(source, after.replace("arith.addi %p, %c1 : index", "arith.addi %p, %p : index"))
    assert status == "mismatch", report
    assert report.mismatches[0].result_name == "@pos"  # type: ignore[attr-defined]


def test_another_initial_value_is_a_mismatch_after_the_initializers() -> None:
    # The base case: the initializer stores another constant than the input's initial value.
    source, after = _source("global_kv_step")
    assert after.count("dense<0.000000e+00> : tensor<4x16xf32>") == 1
    status, report = _check(source, after.replace("dense<0.000000e+00> : tensor<4x16xf32>", "dense<1.000000e+00> : tensor<4x16xf32>"))
    assert status == "mismatch", report
    assert report.mismatches[0].observable == "initial global"  # type: ignore[attr-defined]


def test_a_loop_body_storing_the_old_cache_is_not_proved() -> None:
    # In the loop body, the store hands over the loaded cache instead of the updated one: the
    # states the two bodies pass back differ, so the loops' induction fails (undecided, never proved).
    source, after = _source("global_kv_loop_body")
    found = re.search(r"= stream\.async\.transfer on\([^)]*\) %kv2 :", after)
    assert found is not None, after
    status, report = _check(source, after.replace(found.group(0), found.group(0).replace("%kv2 :", "%kv :")))
    assert status == "unknown", report


def test_a_loop_body_that_stops_storing_the_global_is_not_proved() -> None:
    # AFTER's loop leaves @pos alone: the loops store different globals, so their states cannot be paired.
    source, after = _source("global_kv_loop_body")
    store = re.search(r"\n *util\.global\.store %p1, @pos : index", after)
    assert store is not None, after
    status, report = _check(source, after[: store.start()] + after[store.end():])
    assert status == "unknown", report
    assert "store different mutable globals" in report.unknowns[0].reason  # type: ignore[attr-defined]


def test_storing_the_callers_buffer_into_a_global_is_undecided() -> None:
    # The caller could write its buffer after the call, changing the next call's state.
    text = """
util.global private mutable @g : !stream.resource<external>
util.func public @f(%arg0: !hal.buffer_view) {
  %c64 = arith.constant 64 : index
  %0 = stream.tensor.import %arg0 : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  util.global.store %0, @g : !stream.resource<external>
  util.return
}
"""
    module = ir.parse_module(text, "before.mlir")
    report = check_refinement(module, ir.parse_module(text, "after.mlir"))
    assert report.status == "unknown" and "the caller's buffer" in report.unknowns[0].reason, report


_IN_PLACE = """
util.global private mutable @g : !stream.resource<variable>
util.func public @f() {{
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %s = util.global.load @g : !stream.resource<variable>
  util.global.store %s, @g : !stream.resource<variable>
  {write}
  util.return
}}
"""


def test_an_in_place_write_after_the_store_changes_the_state() -> None:
    # The global holds storage, not a snapshot: writing the stored value in place afterwards
    # changes what the next call loads.
    before = _IN_PLACE.format(write="")
    after = _IN_PLACE.format(write="%w = stream.async.fill %c1_i32, %s[%c0 to %c64 for %c64] : i32 -> %s as !stream.resource<variable>{%c64}")
    status, report = _check(ir.parse_module(before, "before.mlir"), after)
    assert status == "mismatch", report
    assert report.mismatches[0].result_name == "@g"  # type: ignore[attr-defined]
    status, report = _check(ir.parse_module(before, "before.mlir"), before)
    assert status == "proved", report

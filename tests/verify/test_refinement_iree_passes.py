"""False VALUE_MISMATCHes that `bench/iree_refines.py` found on IREE's own Stream passes, each as a
small before/after pair written for this test (the shape of what the pass does, not IREE's lit
cases), with a twin that must stay a mismatch."""

from __future__ import annotations

from pathlib import Path

import pytest

from stream.ir import parse_module
from streamproof.cli import main as cli_main
from verify.refinement import RefinementReport, check_refinement


def check(before: str, after: str) -> RefinementReport:
    return check_refinement(parse_module(before, "before.mlir"), parse_module(after, "after.mlir"))


# -- an elided copy returns the argument itself: its size is the one BEFORE spelled --------------------
COPY = """
util.func public @f(%arg: !stream.resource<external>) -> !stream.resource<external> {
  %c64 = arith.constant 64 : index
  %t = stream.async.transfer %arg : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
  util.return %t : !stream.resource<external>
}
"""
ELIDED = """
util.func public @f(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  util.return %arg0 : !stream.resource<external>
}
"""
HALF = """
util.func public @f(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %s = stream.async.slice %arg0[%c0 to %c32] : !stream.resource<external>{%c64} -> !stream.resource<external>{%c32}
  util.return %s : !stream.resource<external>
}
"""


def test_a_returned_argument_has_the_size_before_gave_it() -> None:
    report = check(COPY, ELIDED)
    assert report.ok, [m.render_text() for m in report.mismatches]


def test_a_returned_slice_of_the_argument_still_differs() -> None:
    report = check(COPY, HALF)
    assert not report.ok and report.mismatches


def test_cli_says_the_refinement_holds_where_in_has_no_obligation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, after = tmp_path / "before.mlir", tmp_path / "after.mlir"
    before.write_text(COPY)
    after.write_text(ELIDED)
    assert cli_main(["verify", str(after), "--refines", str(before)]) == 0
    assert f"; refines {before}" in capsys.readouterr().out
    # without --refines there is still nothing to verify in AFTER alone (exit 2)
    assert cli_main(["verify", str(after)]) == 2

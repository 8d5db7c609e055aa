"""Ops without an effect rule make the obligations they take part in undecided (issue 9 item 8):
exit 3 with the op named, never a definite violation class, never proved. The corpus programs
(proofs/corpus/*barrier*, *select_resource*, *unknown*) carry the verdicts; these tests check
the command line, both SMT modes, and that a violation before the op stays a violation."""

from __future__ import annotations

import pytest
from conftest import CORPUS, parse

import streamproof
from streamproof.cli import main
from verify import verify_module


@pytest.mark.parametrize("smt", ["pruned", "full"])
@pytest.mark.parametrize("name, op", [
    ("cmd_barrier_timepoint", "util.optimization_barrier"),
    ("cmd_select_resource", "arith.select"),
    ("async_unknown_dialect_op", "mydialect.inspect"),
    ("cmd_unknown_op", "util.call"),
])
def test_undecided_and_the_op_is_named(name: str, op: str, smt: str) -> None:
    report = verify_module(parse((CORPUS / f"{name}.mlir").read_text(), f"{name}.mlir"), smt=smt)
    assert report.status == "unknown" and report.violations == [], report.text()
    assert any(f"'{op}' at {name}.mlir:" in u.reason for u in report.unknowns), report.text()


def test_cli_exits_3_naming_the_op(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(CORPUS / "cmd_barrier_timepoint.mlir")]) == 3
    out = capsys.readouterr().out
    assert "could not decide MISSED_WAIT ('util.optimization_barrier' at " in out and "has no effect rule" in out
    assert "NOT PROVED (unknown)" in out.splitlines()[-1]


def test_a_violation_before_the_op_stays_definite() -> None:
    # The export reads before any wait; the barrier comes after it, so nothing it does can order
    # the export: MISSED_WAIT with a witness. The return, after the barrier's await, is undecided.
    report = verify_module(parse((CORPUS / "cmd_barrier_after_export.mlir").read_text(), "x.mlir"))
    assert [v.cls for v in report.violations] == ["MISSED_WAIT"]
    assert [o.location.line for o in report.violations[0].ops] == [8, 10] and report.violations[0].witness is not None
    assert report.unknowns and all("util.optimization_barrier" in u.reason for u in report.unknowns)


def test_the_barrier_round_trips() -> None:
    text = (CORPUS / "cmd_barrier_timepoint.mlir").read_text()
    out = streamproof.compile(text, filename="b.mlir", pipeline="").text()
    assert "%b = util.optimization_barrier %t1 : !stream.timepoint" in out

"""Async waves at byte granularity (issue 11 item 6): in-place ops of one `async.concurrent` on
disjoint bytes of one storage are not hazards; overlapping ones are, through a chain of ties too.

Each verdict at the async level is checked against an independent argument: the same program
lowered by schedule-allocation (the ops become commands of one `cmd.concurrent` on the same
buffer), where the cmd-level race check (pairs of accesses, not readiness) decides it.
"""

from __future__ import annotations

import pytest
from conftest import CORPUS, parse

from stream.ir.core import Module
from stream.passes.pass_manager import parse_pipeline, run_pipeline
from verify import verify_module

CASES = [
    ("async_wave_inplace_disjoint_ok", set()),
    ("async_wave_inplace_symbolic_ok", set()),
    ("async_wave_inplace_overlap", {"RACE_READ_AFTER_WRITE"}),
    ("async_wave_inplace_chain", {"RACE_READ_AFTER_WRITE"}),
]


def _lowered(name: str) -> Module:
    module = parse((CORPUS / f"{name}.mlir").read_text(), f"{name}.mlir")
    return run_pipeline(module, parse_pipeline("schedule-allocation"))[0]


@pytest.mark.parametrize("name, classes", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("smt", ["pruned", "full"])
def test_async_verdict_agrees_with_the_lowered_commands(name: str, classes: set[str], smt: str) -> None:
    report = verify_module(parse((CORPUS / f"{name}.mlir").read_text(), f"{name}.mlir"), smt=smt)
    assert report.classes == classes, report.text()
    lowered = verify_module(_lowered(name), smt=smt)
    assert lowered.ok == (not classes), lowered.text()
    if classes:  # one cmd.concurrent: a race between two commands of it
        assert any(c.startswith("RACE_") for c in lowered.classes), lowered.text()


def test_violation_names_the_bytes_both_touch() -> None:
    report = verify_module(parse((CORPUS / "async_wave_inplace_overlap.mlir").read_text(), "overlap.mlir"))
    (v,) = report.violations
    assert "in the wave of update, which writes that storage in place" in v.message
    assert "bytes [8, 16)" in v.message  # the update writes [0, 16), the dispatch touches [8, 24)
    assert v.witness is not None


def test_chain_needs_the_producer_of_the_bytes_read() -> None:
    # The dispatch reads [0, 16) of the fill's result: the fill writes [16, 32) (no hazard), the
    # update before it [0, 16): the dispatch needs the update, which it does not use directly.
    report = verify_module(parse((CORPUS / "async_wave_inplace_chain.mlir").read_text(), "chain.mlir"))
    (v,) = report.violations
    assert [o.text.split()[0] for o in v.ops] == ["stream.async.update", "stream.async.dispatch"], v.text()


def test_a_fresh_result_used_in_its_wave_stays_a_race() -> None:
    # Not in place: the second dispatch needs the first one's whole result (reference rule A3).
    report = verify_module(parse((CORPUS / "async_wave_dependency.mlir").read_text(), "dep.mlir"))
    assert report.classes == {"RACE_READ_AFTER_WRITE"}, report.text()

"""Several loops in one function (verify/control_flow.py): loops one after the other and loops in
loops, each checked by induction with the walk that reaches its header as its way in. Each
premise has a mutant the check must reject: a hazard only between iterations of the outer loop,
one between iterations of the inner loop, a second loop not ordered after the first, a per-
iteration scratch buffer freed early, never freed, or written past its end; in both SMT modes."""

from __future__ import annotations

import pytest
from control_flow_data import SMT, mutant, read

from stream.ir.parser import parse_module
from stream.ir.walk import functions
from verify import verify_text
from verify.cfg import latches, lower_loops, natural_loop
from verify.control_flow import loop_headers


def _blocks(name: str):  # type: ignore[no-untyped-def]
    (f,) = functions(parse_module(read(name), f"{name}.mlir"))
    return lower_loops(f).blocks


def test_a_loop_in_a_loop_body_becomes_blocks_with_its_own_back_edge() -> None:
    blocks = _blocks("nested_fill")
    headers = sorted(loop_headers(blocks))
    assert len(headers) == 2
    outer, inner = headers
    # The inner loop's blocks are among the outer one's, not the other way round.
    assert natural_loop(blocks, inner) < natural_loop(blocks, outer)
    # The block entering the inner loop is reached from the inner header (around the outer
    # loop) but is not dominated by it: one latch per loop, the entry edge is not a back edge.
    assert len(latches(blocks, inner)) == 1 and len(latches(blocks, outer)) == 1
    assert set(latches(blocks, inner)) <= natural_loop(blocks, inner)


@pytest.mark.parametrize("smt", SMT)
@pytest.mark.parametrize("name", ["nested_fill", "nested_scratch", "sequential_loops"])
def test_safe_programs_with_several_loops_are_proved(name: str, smt: str) -> None:
    report = verify_text(read(name), f"{name}.mlir", smt=smt)
    assert report.status == "proved", report.text()
    assert "2 loops, at" in report.functions[0].note and "checked by induction" in report.functions[0].note


@pytest.mark.parametrize("smt", SMT)
def test_an_outer_iteration_not_passing_on_the_inner_loops_timepoint_races_with_the_next(smt: str) -> None:
    # The outer loop yields its incoming timepoint: the next outer iteration's first fill only
    # waits for what the previous one waited for, not for its fills. Each inner loop alone is
    # fine; the hazard is between outer iterations, seen in the inner loop's first iteration
    # after the outer loop's summary of earlier iterations.
    text = mutant("nested_fill", "    scf.yield %s : !stream.timepoint", "    scf.yield %t : !stream.timepoint")
    report = verify_text(text, "m.mlir", smt=smt)
    race = [v for v in report.violations if v.cls == "RACE_WRITE_AFTER_WRITE"]
    assert race, report.text()
    assert race[0].notes[-1].startswith("in the first iteration of the loop at ^bb4 (in a later iteration of the loop at ^bb1)"), race[0].notes
    assert "USE_AFTER_FREE" in report.classes  # and the free after both loops waits for neither


@pytest.mark.parametrize("smt", SMT)
def test_an_inner_iteration_not_awaiting_the_one_before_races(smt: str) -> None:
    text = mutant("nested_fill", "      scf.yield %done : !stream.timepoint", "      scf.yield %u : !stream.timepoint")
    report = verify_text(text, "m.mlir", smt=smt)
    where = {v.notes[-1].split(", on the path")[0] for v in report.violations if v.cls == "RACE_WRITE_AFTER_WRITE"}
    assert "in a later iteration of the loop at ^bb4 (in the first iteration of the loop at ^bb1)" in where or \
        "in a later iteration of the loop at ^bb4" in where, report.text()


@pytest.mark.parametrize("smt", SMT)
def test_a_second_loop_not_ordered_after_the_first_misses_its_writes(smt: str) -> None:
    # The second loop starts from the allocation's timepoint instead of the first loop's result:
    # its copies read %a while the first loop's fills (any number of them) may still run.
    text = mutant("sequential_loops", "iter_args(%t = %r)", "iter_args(%t = %tb)")
    report = verify_text(text, "m.mlir", smt=smt)
    missed = [v for v in report.violations if v.cls in ("MISSED_WAIT", "RACE_READ_AFTER_WRITE")]
    assert missed, report.text()
    assert "the loop at ^bb4" in missed[0].notes[-1]
    assert any("earlier iterations" in o.text for o in missed[0].ops)  # the first loop's summary is the producer


@pytest.mark.parametrize("smt", SMT)
def test_a_scratch_buffer_freed_before_the_copy_out_of_it_is_use_after_free(smt: str) -> None:
    text = mutant("nested_scratch", "dealloca await(%copied) => %scratch", "dealloca await(%filled) => %scratch")
    report = verify_text(text, "m.mlir", smt=smt)
    uaf = [v for v in report.violations if v.cls == "USE_AFTER_FREE" and "%scratch" in v.text()]
    assert uaf, report.text()


@pytest.mark.parametrize("smt", SMT)
def test_a_scratch_buffer_per_outer_iteration_never_freed_leaks(smt: str) -> None:
    text = mutant("nested_scratch", """    %freed = stream.resource.dealloca await(%copied) => %scratch : !stream.resource<transient>{%c64} => !stream.timepoint
    scf.yield %freed""", "    scf.yield %copied")
    report = verify_text(text, "m.mlir", smt=smt)
    leaks = [v for v in report.violations if v.cls == "LEAK"]
    assert leaks and "%scratch" in leaks[0].text(), report.text()
    assert "in the first iteration of the loop at ^bb1" in leaks[0].notes[-1]


@pytest.mark.parametrize("smt", SMT)
def test_an_inner_trip_past_the_scratch_buffer_is_out_of_bounds(smt: str) -> None:
    # Five 16-byte tiles into 64 bytes: the fifth inner iteration writes [64, 80).
    text = mutant("nested_scratch", "%c0 to %c4 step", "%c0 to %c5 step").replace(
        "%c4 = arith.constant 4 : index", "%c5 = arith.constant 5 : index")
    report = verify_text(text, "m.mlir", smt=smt)
    oob = [v for v in report.violations if v.cls == "OUT_OF_BOUNDS"]
    assert oob, report.text()
    assert "[64, 80)" in oob[0].text()
    assert oob[0].notes[-1].startswith("in a later iteration of the loop at ^bb4 (in the first iteration of the loop at ^bb1)")

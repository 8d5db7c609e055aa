"""Holes in the loop check found by writing DEADLOCK and PACK_OVERLAP loop programs for the proof
corpus (each was proved while the runtime deadlocked or clobbered data), and a false alarm found
on the way; each test fails without its fix, and the safe twin stays proved, in both SMT modes."""

from __future__ import annotations

import pytest
from control_flow_data import SMT, mutant, read

from verify import verify_text


@pytest.mark.parametrize("smt", SMT)
@pytest.mark.parametrize("name", ["for_poll_own_fence", "for_pack_carried", "while_wait_fence_in_loop"])
def test_the_safe_twins_are_proved(name: str, smt: str) -> None:
    report = verify_text(read(name), f"{name}.mlir", smt=smt)
    assert report.status == "proved", report.text()


@pytest.mark.parametrize("smt", SMT)
def test_a_host_wait_in_a_loop_on_the_functions_own_signal_fence_deadlocks(smt: str) -> None:
    # Each read-back also waits for %signal, which the function signals only after the loop.
    # The iteration's program ends at its back edge, without the chain_external: the fence was
    # taken for the caller's to signal (decided per program) and the deadlock was proved.
    text = mutant("for_poll_own_fence", "await %e => %flag", "await %both => %flag")
    report = verify_text(text, "m.mlir", smt=smt)
    deadlock = [v for v in report.violations if v.cls == "DEADLOCK"]
    assert deadlock, report.text()
    assert "external fence signalled after this program" in deadlock[0].text()
    assert "in the loop's first iteration" in deadlock[0].notes[-1]


@pytest.mark.parametrize("smt", SMT)
def test_pack_slices_used_in_turn_across_iterations_may_share_bytes(smt: str) -> None:
    # Slice #0 (the loop state, interval [0, 0]) and slice #1 (staging, [1, 2]) may share bytes:
    # slice #0 in one iteration, #1, then #0 again in the next is an interleaving. Within one
    # iteration the uses are in order; the summary of earlier iterations touched the whole slab
    # and was no slice's use, so it was proved.
    text = mutant("for_pack_carried", "[0, 2] = %c64", "[0, 0] = %c64")
    report = verify_text(text, "m.mlir", smt=smt)
    assert report.classes == {"PACK_OVERLAP"}, report.text()
    assert any("earlier iterations" in o.text for v in report.violations for o in v.ops) or \
        any("after the loop ran" in v.notes[-1] or "later iteration" in v.notes[-1] for v in report.violations), report.text()


@pytest.mark.parametrize("smt", SMT)
def test_the_callers_wait_fence_imported_in_the_loop_orders_every_iteration(smt: str) -> None:
    # (The safe twin above was a false MISSED_WAIT: the summary's reads of %in against the wait
    # fence's site, which the program places at its import in the current iteration.) Each
    # iteration's own reads are checked against the fence: one that does not wait is caught.
    text = mutant("while_wait_fence_in_loop", "await(%go_t) => with(%in", "await(%t) => with(%in")
    report = verify_text(text, "m.mlir", smt=smt)
    missed = [v for v in report.violations if v.cls == "MISSED_WAIT" and "wait fence" in v.text()]
    assert missed, report.text()
    assert "in the loop's first iteration" in missed[0].notes[-1]

"""The IREE bugs of reference §4 (iree-stream-notes.md) that the async and cmd levels can express,
each caught by the verifier; and where each of the fifteen is covered, or why it cannot be.

| bug | pattern | where | class |
|---|---|---|---|
| #14889 | tied reader and writer in one wave | corpus async_wave_tie (fix: async_wave_tie_ordered_ok) | RACE_WRITE_AFTER_READ |
| #15007 | a variable read by one dispatch and updated in place by another, unordered | corpus cmd_variable_wave (fix: cmd_variable_serial_ok) | RACE_WRITE_AFTER_READ |
| #19355 | lost write of a tied update in a wave | test_refinement_iree_bugs | VALUE_MISMATCH |
| #19347 | overlapping `ro`/`wo` bindings of one dispatch | corpus cmd_dispatch_overlap (fix: cmd_dispatch_disjoint_ok) | RACE_READ_AFTER_WRITE |
| #16168 | write to a borrowed import | corpus async_borrowed_update, cmd_borrowed_write (fixes: async_borrowed_cloned_ok, cmd_consumed_write_ok); IREE's own d_inplace (test_iree) | BORROWED_INPUT_MUTATED |
| #13003 | a call mutates an operand a later op still reads | corpus async_call_tie (fix: async_call_untied_ok) | undecided, never proved: `util.call` has no effect rule (issue 9 item 8) |
| #23171 | update elision loses a concat operand | test_refinement_iree_bugs | VALUE_MISMATCH |
| #23246 | region-aware last use (`scf.for`): the clone of a value the loop body reads is elided | corpus async_loop_clone_elided (fix: async_loop_clone_kept_ok) | RACE_WRITE_AFTER_READ |
| #22803 | fence chained before the transfer of the returned value | corpus async_fence_before_transfer (fix: async_fence_covers_ok) | MISSED_WAIT |
| #17316 | write to exported storage after the signalled barrier | corpus cmd_fence_not_covering (fix: cmd_chain_fence_ok) | MISSED_WAIT |
| ARC 7ce0460 / PR #24841 | `scf` yields one alloca twice, freed through the dropped alias (or through both) | corpus cmd_loop_alias_freed_early, cmd_loop_alias_double_free (fix: cmd_loop_alias_freed_once_ok); straight-line: cmd_double_free_alias | USE_AFTER_FREE, DOUBLE_FREE |
| #20817 | dealloca of a non-alloca producer | corpus cmd_free_import; test_rules (an unmodelled producer: undecided) | DOUBLE_FREE |
| #20819 | emplaced results in update order | test_refinement_iree_bugs | VALUE_MISMATCH |
| #14685 | subview offset of a tied operand dropped | test_refinement_iree_bugs | VALUE_MISMATCH |
| #18123 | `scf` captured dependencies ignored by the schedule: an in-place update placed before the `scf.if` whose regions read the value (IREE failed to compile; the schedule it should not have made) | corpus async_scf_if_update_hoisted (fix: async_scf_if_update_awaits_ok) | RACE_WRITE_AFTER_READ |
| early dealloca | a dealloca that does not await the last use | corpus cmd_early_dealloca (fix: cmd_late_dealloca_ok) | USE_AFTER_FREE |
"""

from __future__ import annotations

import pytest
import test_refinement_iree_bugs as refinement_bugs
from conftest import CORPUS, parse

from verify import verify_module

CAUGHT = [
    ("#14889", "async_wave_tie", "async_wave_tie_ordered_ok", "RACE_WRITE_AFTER_READ"),
    ("#15007", "cmd_variable_wave", "cmd_variable_serial_ok", "RACE_WRITE_AFTER_READ"),
    ("#19347", "cmd_dispatch_overlap", "cmd_dispatch_disjoint_ok", "RACE_READ_AFTER_WRITE"),
    ("#16168 async", "async_borrowed_update", "async_borrowed_cloned_ok", "BORROWED_INPUT_MUTATED"),
    ("#16168 cmd", "cmd_borrowed_write", "cmd_consumed_write_ok", "BORROWED_INPUT_MUTATED"),
    ("#22803", "async_fence_before_transfer", "async_fence_covers_ok", "MISSED_WAIT"),
    ("#17316", "cmd_fence_not_covering", "cmd_chain_fence_ok", "MISSED_WAIT"),
    ("ARC aliasing", "cmd_double_free_alias", "cmd_late_dealloca_ok", "DOUBLE_FREE"),
    ("ARC scf alias freed early", "cmd_loop_alias_freed_early", "cmd_loop_alias_freed_once_ok", "USE_AFTER_FREE"),
    ("ARC scf alias freed twice", "cmd_loop_alias_double_free", "cmd_loop_alias_freed_once_ok", "DOUBLE_FREE"),
    ("#23246", "async_loop_clone_elided", "async_loop_clone_kept_ok", "RACE_WRITE_AFTER_READ"),
    ("#18123", "async_scf_if_update_hoisted", "async_scf_if_update_awaits_ok", "RACE_WRITE_AFTER_READ"),
    ("#20817", "cmd_free_import", "cmd_consumed_write_ok", "DOUBLE_FREE"),
    ("early dealloca", "cmd_early_dealloca", "cmd_late_dealloca_ok", "USE_AFTER_FREE"),
]


@pytest.mark.parametrize("bug, buggy, fixed, cls", CAUGHT, ids=[c[0] for c in CAUGHT])
@pytest.mark.parametrize("smt", ["pruned", "full"])
def test_bug_pattern_is_caught_and_its_fix_is_proved(bug: str, buggy: str, fixed: str, cls: str, smt: str) -> None:
    bad = verify_module(parse((CORPUS / f"{buggy}.mlir").read_text(), f"{buggy}.mlir"), smt=smt)
    assert cls in bad.classes, bad.text()
    v = next(v for v in bad.violations if v.cls == cls)
    assert v.ops and all(o.location.line > 0 for o in v.ops)  # names the ops with source locations
    good = verify_module(parse((CORPUS / f"{fixed}.mlir").read_text(), f"{fixed}.mlir"), smt=smt)
    assert good.ok, good.text()


@pytest.mark.parametrize("smt", ["pruned", "full"])
def test_13003_is_undecided_and_its_fix_is_proved(smt: str) -> None:
    # What the call does with %init is unknown (no effect rule): a read of %init after it cannot be
    # proved, and it is not a definite race either; the call is named.
    bad = verify_module(parse((CORPUS / "async_call_tie.mlir").read_text(), "async_call_tie.mlir"), smt=smt)
    assert bad.status == "unknown" and bad.violations == [], bad.text()
    assert [u.cls for u in bad.unknowns] == ["RACE_WRITE_AFTER_READ"] and "'util.call' at" in bad.unknowns[0].reason
    good = verify_module(parse((CORPUS / "async_call_untied_ok.mlir").read_text(), "async_call_untied_ok.mlir"), smt=smt)
    assert good.ok, good.text()


@pytest.mark.parametrize("bug", ["19355", "20819", "14685", "23171"])
def test_value_bugs_have_refinement_tests(bug: str) -> None:
    # Lost writes, wrong tie order and wrong subview offsets are invisible to race checks; their
    # tests live with the refinement checker.
    assert any(name.startswith(f"test_{bug}_") for name in dir(refinement_bugs))

"""IREE 3.13's own consecutive stages refine each other (the generic dumps in tests/data/iree), and
mutations of a real dump that change values are caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from stream.ir import Module, parse_module
from verify.refinement import check_refinement

DATA = Path(__file__).resolve().parent.parent / "data" / "iree"
PROGRAMS = ("b_diamond", "d_inplace", "f_multidevice", "i_multidevice_overlap")
STAGES = (
    "02_place_transfer_executions",
    "04_schedule_concurrency",
    "05_propagate_timepoints",
    "07_schedule_allocation",
    "10_elide_timepoints",
)


def stage(program: str, name: str, generic: bool = True) -> Module:
    path = DATA / program / "generic" / f"{name}.generic.mlir" if generic else DATA / program / f"{name}.mlir"
    return parse_module(path.read_text(), str(path))


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("pair", list(zip(STAGES, STAGES[1:])) + [(STAGES[0], STAGES[-1])], ids=lambda p: f"{p[0][:2]}->{p[1][:2]}")
def test_consecutive_stages_refine(program: str, pair: tuple[str, str]) -> None:
    report = check_refinement(stage(program, pair[0]), stage(program, pair[1]))
    assert report.ok, report.render_text()
    assert report.functions  # something was compared


def test_dynamic_scatter_needs_case_splits() -> None:
    # @scatter_rows writes 512 bytes at 64 * %row and returns bytes [0, 512) too: whether they
    # overlap depends on %row, so the check splits cases instead of giving up.
    report = check_refinement(stage("d_inplace", STAGES[2]), stage("d_inplace", STAGES[3]), "scatter_rows")
    assert report.ok and report.cases > 1, report.render_text()


def test_pretty_and_generic_forms_agree() -> None:
    report = check_refinement(stage("b_diamond", STAGES[3], generic=False), stage("b_diamond", STAGES[4]))
    assert report.ok, report.render_text()


def _mutate(program: str, name: str, old: str, new: str) -> Module:
    path = DATA / program / f"{name}.mlir"
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return parse_module(text.replace(old, new), f"mutated-{name}.mlir")


def test_a_wrong_slab_offset_in_a_real_dump_is_caught() -> None:
    # b_diamond stage 10: @diamond_dispatch_3 reads the first product at slab offset 0.
    old = "ro %arg11[%c0 for %c16384] : !stream.resource<transient>{%c49152},\n        ro %arg9"
    after = _mutate("b_diamond", STAGES[4], old, old.replace("%c0 for", "%c16384 for"))
    report = check_refinement(stage("b_diamond", STAGES[3]), after)
    assert report.status == "mismatch"
    m = report.mismatches[0]
    assert m.function == "diamond" and m.result == 0 and m.op is not None and "diamond_dispatch_3" in m.op
    assert m.location is not None and m.location.line == 154


def test_a_dropped_copy_in_a_real_dump_is_caught() -> None:
    # d_inplace stage 10, @kv_update: the copy of the matmul tile into the cache is lost.
    old = "      stream.cmd.copy %arg8[%c0], %arg6[%c0], %c1024 : !stream.resource<transient>{%c1024} -> !stream.resource<external>{%c4096}\n"
    after = _mutate("d_inplace", STAGES[4], old, "")
    report = check_refinement(stage("d_inplace", STAGES[3]), after, "kv_update")
    assert report.status == "mismatch", report.render_text()
    m = report.mismatches[0]
    assert m.result == 0 and m.byte_range == ("0", "1024")

"""Real IREE 3.13 output with resource globals (tests/data/iree_globals, ResNet-50): constant
globals are storage of their own, the initializer is verified, and an initializer the verifier
cannot model is named as not checked."""

from __future__ import annotations

from pathlib import Path

from verify import verify_text
from verify.report import NOT_CHECKED

DATA = Path(__file__).resolve().parents[1] / "data" / "iree_globals"


def _text(stage: str) -> str:
    return (DATA / f"resnet50_{stage}.generic.mlir").read_text()


def test_stage_05_with_timepoint_companions_is_proved() -> None:
    report = verify_text(_text("05_propagate_timepoints"), "05.mlir")
    assert report.ok, report.text()
    names = [f.name for f in report.functions]
    assert names[0] == "initializer#0" and report.functions[0].stats.obligations > 0


def test_stage_07_initializer_filling_a_constant_slab_is_proved() -> None:
    report = verify_text(_text("07_schedule_allocation"), "07.mlir")
    assert report.ok, report.text()
    assert report.functions[0].name == "initializer#0" and report.functions[0].level == "cmd"


def test_stage_07_initializer_storing_an_unawaited_subview_is_a_missed_wait() -> None:
    """The initializer awaits the fills on the host (`sync`) and stores %850#8 (%842 awaited).
    Either alone keeps the store after the fill; with neither (no host wait, storing %842
    itself), later loaders get a subview the fill may still be writing."""
    text = _text("07_schedule_allocation")
    store, sync = '"util.global.store"(%850#8)', "array<i32: 12, 12, 1>, sync}>"
    assert text.count(store) == 1 and text.count(sync) == 1
    assert verify_text(text.replace(sync, "array<i32: 12, 12, 1>}>"), "07.mlir").ok
    assert verify_text(text.replace(store, '"util.global.store"(%842)'), "07.mlir").ok
    mutant = text.replace(store, '"util.global.store"(%842)').replace(sync, "array<i32: 12, 12, 1>}>")
    report = verify_text(mutant, "07.mlir")
    # Nor has the host waited for the slab's alloca: the store may also read it before it exists.
    assert report.classes == {"MISSED_WAIT", "USE_BEFORE_ALLOC"}
    assert {v.function for v in report.violations} == {"initializer#0"}


def test_stage_10_initializer_with_blocks_is_named_as_not_checked() -> None:
    report = verify_text(_text("10_elide_timepoints"), "10.mlir")
    assert report.status == "unknown" and not report.errors and not report.unknowns
    (f,) = report.unchecked
    assert f.name == "initializer#0" and f.level == NOT_CHECKED and "blocks" in f.note
    assert all(g.checked for g in report.functions[1:])

"""Real IREE 3.13 output with resource globals (tests/data/iree_globals, ResNet-50): constant
globals are storage of their own, the initializer is verified, and an initializer the verifier
is checked path by path (verify.paths)."""

from __future__ import annotations

import re
from pathlib import Path

from verify import verify_text

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


def test_stage_07_initializer_storing_unawaited_subviews_is_a_missed_wait() -> None:
    """The initializer awaits the fills on the host (`sync`) and stores the awaited subviews
    (%850#k). Either alone keeps the stores after the fills. Without the `sync`, storing %842
    itself (not %850#8) is still safe: the stores of the other awaited subviews order the host
    after the fills before the initializer returns, and a later loader (the function) runs only
    after that (a global stored without a timepoint is observed at the return). Storing every
    subview un-awaited hands the functions subviews the fills may still be writing."""
    text = _text("07_schedule_allocation")
    store, sync = '"util.global.store"(%850#8)', "array<i32: 12, 12, 1>, sync}>"
    assert text.count(store) == 1 and text.count(sync) == 1
    assert verify_text(text.replace(sync, "array<i32: 12, 12, 1>}>"), "07.mlir").ok
    assert verify_text(text.replace(store, '"util.global.store"(%842)'), "07.mlir").ok
    unsynced = text.replace(sync, "array<i32: 12, 12, 1>}>")
    assert verify_text(unsynced.replace(store, '"util.global.store"(%842)'), "07.mlir").ok
    awaited = re.search(r'%850:12 = "stream.timepoint.await"\(([^)]*)\)', text)
    assert awaited is not None
    mutant = unsynced
    for k, operand in enumerate(o.strip() for o in awaited.group(1).split(",")[:12]):
        mutant = mutant.replace(f'"util.global.store"(%850#{k})', f'"util.global.store"({operand})')
    assert "%850#" not in mutant
    report = verify_text(mutant, "07.mlir")
    # Nor has the host waited for the slab's alloca: the stores may also read it before it exists.
    assert report.classes == {"MISSED_WAIT", "USE_BEFORE_ALLOC"}
    assert {v.function for v in report.violations} == {"initializer#0"}


def test_stage_10_initializer_with_blocks_is_checked_path_by_path() -> None:
    """The initializer maps the constants (`try_map`) or, if that fails, reads them into an
    allocation (`file.read`) and joins at ^bb2: both paths are checked and proved."""
    report = verify_text(_text("10_elide_timepoints"), "10.mlir")
    assert report.ok and report.status == "proved", report.text()
    init = report.functions[0]
    assert init.name == "initializer#0" and init.checked and init.note == "2 control-flow path(s), each checked"
    assert init.stats.obligations > 0


def test_stage_10_initializer_joining_before_the_file_read_is_a_missed_wait_on_that_path() -> None:
    """Mutant: the read path passes the immediate timepoint to ^bb2 instead of the read's, so
    the host's `sync` await at ^bb2 no longer covers the read before the store publishes it."""
    text = _text("10_elide_timepoints")
    edge = '"cf.br"(%844, %842)[^bb2]'
    assert text.count(edge) == 1
    report = verify_text(text.replace(edge, '"cf.br"(%832, %842)[^bb2]'), "10.mlir")
    assert not report.ok and report.errors, report.text()
    assert {v.function for v in report.violations} == {"initializer#0"}
    assert all("on the path ^bb0 -> (false) ^bb1 -> ^bb2" in v.notes for v in report.violations), report.text()

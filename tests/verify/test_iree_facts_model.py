"""A small dynamic-shape program as IREE 3.13 compiles it (tests/data/iree_facts/dyn_mlp): every
stage is proved (its cf.assert shape checks read as straight-line checks, not control flow), the
stage-10 and final slabs only thanks to util.align's facts, and every pass between consecutive
stages refines."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT

from stream.ir import parse_module
from stream.ir.verifier import verify_structure
from verify import verify_module
from verify.refinement import check_refinement
from verify.symbolic import EVALUATORS

DATA = ROOT / "tests" / "data" / "iree_facts" / "dyn_mlp"
STAGES = sorted(DATA.glob("[0-9]*.generic.mlir"))


def _read(path: Path, text: str | None = None):  # type: ignore[no-untyped-def]
    module = parse_module(path.read_text() if text is None else text, str(path))
    verify_structure(module)
    return module


def test_the_data_is_there() -> None:
    assert [p.name[:2] for p in STAGES] == ["02", "03", "04", "05", "07", "10", "99"]
    assert all('"cf.assert"' in p.read_text() for p in STAGES)
    assert all('"util.align"' in p.read_text() for p in STAGES if p.name[:2] in ("10", "99"))


@pytest.mark.parametrize("path", STAGES, ids=lambda p: p.name[:2])
def test_every_stage_is_proved(path: Path) -> None:
    report = verify_module(_read(path))
    assert report.status == "proved" and not report.unknowns, report.text()


@pytest.mark.parametrize("stage", ["10", "99"])
def test_the_slab_needs_util_align(stage: str) -> None:
    path = next(p for p in STAGES if p.name.startswith(stage))
    rule = dict.pop(EVALUATORS, "util.align")
    try:
        without = verify_module(_read(path))
    finally:
        dict.__setitem__(EVALUATORS, "util.align", rule)
    assert "RACE_WRITE_AFTER_WRITE" in without.classes and "OUT_OF_BOUNDS" in without.classes
    # A mutant whose second slice starts below the first one's end races, with sizes as witness.
    text = path.read_text()
    assert text.count('"util.align"') == 1
    mutant = verify_module(_read(path, text.replace('"util.align"', '"arith.divui"')))
    assert "RACE_WRITE_AFTER_WRITE" in mutant.classes


@pytest.mark.parametrize("pair", list(zip(STAGES[:-2], STAGES[1:-1])), ids=lambda p: f"{p[0].name[:2]}-{p[1].name[:2]}")
def test_each_scheduling_pass_refines(pair: tuple[Path, Path]) -> None:
    before, after = (_read(p) for p in pair)
    report = check_refinement(before, after)
    assert report.ok, report.render_text()

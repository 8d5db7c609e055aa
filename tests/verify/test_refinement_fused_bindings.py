"""Refinement across FuseDispatchBindings (stage 10 -> 11 -> 99): the kernel's interface is its
subspans (`verify.refinement.bindings`), so a fused dispatch (whole-slab bindings, offsets as
i32 push constants, two bindings of one resource fused into one) computes the same terms of the
same bytes as at stage 10, and a wrong offset inside the executable is a mismatch."""

from __future__ import annotations

from pathlib import Path

import pytest

from stream.ir import Module, parse_module
from verify.refinement import check_refinement

DATA = Path(__file__).resolve().parent.parent / "data"
PROGRAMS = ("b_diamond", "d_inplace", "f_multidevice", "i_multidevice_overlap")
PAIRS = (("10_elide_timepoints", "11_fuse_dispatch_bindings"), ("11_fuse_dispatch_bindings", "99_final"))


def _read(path: Path, text: str | None = None) -> Module:
    return parse_module(path.read_text() if text is None else text, str(path))


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0][:2]}->{p[1][:2]}")
def test_fusing_the_bindings_refines(program: str, pair: tuple[str, str]) -> None:
    before, after = (DATA / "iree" / program / f"{name}.mlir" for name in pair)
    report = check_refinement(_read(before), _read(after))
    assert report.ok, report.render_text()


@pytest.mark.parametrize("model", ["alexnet", "lstm_defaults", "multidevice_pipeline"])
def test_the_final_stage_of_a_real_model_refines_stage_10(model: str) -> None:
    """alexnet fuses two bindings of one resource into one with two subspans; multidevice_pipeline
    passes a dynamic dim as two i32 halves, which stage 10 passes as one index."""
    folder = DATA / "iree_models" / model
    report = check_refinement(_read(folder / "10_elide_timepoints.generic.mlir"), _read(folder / "99_final.generic.mlir"))
    assert report.ok, report.render_text()


def test_a_wrong_subspan_offset_in_the_executable_is_caught() -> None:
    # b_diamond stage 99: @diamond_dispatch_1 writes its product at 16384 of the widened slab;
    # writing it at 0 instead overwrites @diamond_dispatch_0's.
    path = DATA / "iree" / "b_diamond" / "99_final.mlir"
    text = path.read_text()
    old = "%2 = stream.binding.subspan %arg2[%c16384]"
    assert text.count(old) == 1
    before = _read(DATA / "iree" / "b_diamond" / "10_elide_timepoints.mlir")
    report = check_refinement(before, _read(path, text.replace(old, "%2 = stream.binding.subspan %arg2[%c0]")))
    assert report.status == "mismatch", report.render_text()

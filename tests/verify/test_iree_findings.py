"""The findings on IREE's output written up in docs/IREE_FINDINGS.md, checked on the stored files.

tests/data/iree_findings/ holds small inputs written for streamproof and what IREE 3.13.0 made of
them (see its README). The byte ranges asserted here are worked out by hand from the dense
row-major layout of each tensor (each input file says which bytes may change), not read off the
verifier's output: IREE's `iree-stream-encode-host-tensors` writes one contiguous byte range for an
N-d sub-region, and its fill length is the linearised *index* of the lengths vector, so a 1x1 fill
of a 2x4xf32 tensor writes 20 bytes. `--refines` must keep reporting that; the contiguous cases
(whole rows) must stay proved.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stream.ir import parse_module
from verify import verify_module
from verify.refinement import RefinementReport, check_refinement

DATA = Path(__file__).resolve().parent.parent / "data" / "iree_findings"
ENCODE = DATA / "encode_host_tensors"


def refines(before: Path, after: Path) -> RefinementReport:
    return check_refinement(parse_module(before.read_text(), str(before)),
                            parse_module(after.read_text(), str(after)))


def encode_case(name: str) -> RefinementReport:
    return refines(ENCODE / f"{name}.in.mlir", ENCODE / f"{name}.out.mlir")


def first_ranges(report: RefinementReport) -> set[tuple[str, tuple[str, str] | None]]:
    return {(m.observable, m.byte_range) for m in report.mismatches}


# (case, the first byte range where IREE's output differs from the input's meaning)
MISCOMPILED = [
    # element (0,0) is bytes [0, 4); IREE fills [0, 20): elements (0,1)..(1,0) change too
    ("fill_corner", ("4", "20")),
    # the block's row 1 is bytes [20, 28), row 2 [36, 44); IREE copies the 16 update bytes to
    # [20, 36): bytes [28, 36) (elements (1,3), (2,0)) get update row 1 instead of keeping theirs
    ("update_block", ("28", "36")),
    # the column is elements (0,1) (1,1) (2,1) (3,1) = source bytes 4, 12, 20, 28; IREE slices
    # source bytes [4, 20): result bytes [4, 8) are source element (1,0) (bytes [8, 12)), not (1,1)
    ("slice_column", ("4", "8")),
]


@pytest.mark.parametrize("name,first", MISCOMPILED, ids=[c for c, _ in MISCOMPILED])
def test_encode_host_tensors_of_an_nd_sub_region_is_a_value_mismatch(name: str, first: tuple[str, str]) -> None:
    report = encode_case(name)
    assert not report.ok and report.unknowns == []
    assert {m.klass for m in report.mismatches} == {"VALUE_MISMATCH"}
    assert ("result", first) in first_ranges(report)
    ops = {m.op for m in report.mismatches}
    assert ops <= {"stream.async.fill", "stream.async.update", "stream.async.slice"} and ops


def test_whole_rows_are_contiguous_and_refine() -> None:
    # rows 1-2 of a 4x4xf32 tensor are bytes [16, 48), exactly the range IREE writes
    report = encode_case("update_rows")
    assert report.ok, [m.render_text() for m in report.mismatches]


def test_a_whole_row_fill_writes_past_the_resource() -> None:
    # row 1 of a 2x4xf32 tensor is bytes [16, 32) of the 32-byte resource; IREE's length is
    # linearise(1, 4) = 8 elements, so it fills [16, 48)
    out = ENCODE / "fill_row.out.mlir"
    report = verify_module(parse_module(out.read_text(), str(out)))
    assert "OUT_OF_BOUNDS" in report.classes
    assert any("[16, 48)" in v.text() for v in report.errors)


def test_the_dynamic_fill_differs_for_some_sizes() -> None:
    # %i, %j, %rows symbolic: the mismatch starts right after the filled element, at
    # 16*%i + 4*%j + 4, whenever the resource holds more bytes than that
    report = encode_case("fill_dynamic")
    assert not report.ok and report.mismatches
    m = next(m for m in report.mismatches if m.observable == "result")
    assert m.byte_range is not None and m.byte_range[0] == "16*%i + 4*%j + 4"
    size, i, j = m.example["%size"], m.example["%i"], m.example["%j"]
    assert size > 16 * i + 4 * j + 4


def test_tensor_insert_through_iree_compile_is_reported_at_the_encode_step() -> None:
    # `tensor.insert %v into %t[0, 1]` of a 2x4xf32 tensor: only bytes [4, 8) may change. The
    # stages around iree-stream-encode-host-tensors in iree-compile's own pipeline: the fill of
    # [4, 24) makes result bytes [8, 24) (elements (0,2)..(1,1)) differ, as IREE's runtime shows
    report = refines(DATA / "tensor_insert" / "before_encode_host_tensors.generic.mlir",
                     DATA / "tensor_insert" / "after_encode_host_tensors.generic.mlir")
    assert ("result", ("8", "24")) in first_ranges(report)


def test_tensor_insert_mutates_the_callers_buffer() -> None:
    # iree-compile's stream output fills the imported (not consumed) argument in place
    path = DATA / "tensor_insert" / "stream.mlir"
    report = verify_module(parse_module(path.read_text(), str(path)))
    assert report.classes == {"BORROWED_INPUT_MUTATED"}
    assert any("[4, 24)" in v.text() for v in report.errors)

"""Real IREE 3.13 output (tests/data/iree/): what the verifier finds, and why it is right.

* Stages 07 and 10 (generic and pretty) are proved, except `d_inplace`, which IREE really gets
  wrong: `@kv_update` copies into and dispatches `rw` on `%cache`, imported without `consume`
  (IREE #16168), and `@scatter_rows` dispatches `rw` on the borrowed `%dst`:
  BORROWED_INPUT_MUTATED. `@scatter_rows` also writes `%dst[%row * 64 for 512]` with a
  caller-chosen `%row` that nothing bounds: OUT_OF_BOUNDS for `%row > 120` (the source
  `tensor.insert_slice` is undefined there too; IREE inserts no check).
* Stage 07 of the two multi-device programs keeps the cross-device transient `%result` without a
  dealloca (ARC adds it at stage 08): a LEAK warning, which stage 08 and later no longer have.
* Every async-level stage (01-06) is proved except `d_inplace` (the same two findings, at the
  async level: the tied `stream.async.update`/dispatch on the borrowed import).
* The tensor level (00) is proved (ties are not binding before copy-on-write; sizes of dense
  tensors are exact), except `d_inplace`'s unbounded `%row`: the `stream.tensor.update` of
  `@scatter_rows` writes rows [%row, %row + 8) of 128, OUT_OF_BOUNDS (in elements of dim 0) for
  `%row > 120`, the same finding the later stages make in bytes.
* Stage 11 (`FuseDispatchBindings`) and the final output widen every binding to the whole slab
  and pass the real offsets as push constants: by the `cmd.dispatch` contract alone (a binding
  may touch all of its range) two dispatches of one wave would write the same bytes, and one
  dispatch would bind the same bytes `ro` and `wo` (the shape of IREE #19347). The verifier
  narrows each binding to the subspans its executable addresses (`verify.bindings`, reading the
  pretty dumps' verbatim executables too), so these stages get stage 10's verdicts: the two
  multi-device programs and `b_diamond` are proved, and `d_inplace` keeps all three findings,
  `@scatter_rows`'s OUT_OF_BOUNDS now as its executable's subspan at `%row * 64` (passed as two
  i32 halves) running past the whole-slab binding.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import IREE, parse

from verify import verify_module

GENERIC = sorted(IREE.glob("*/generic/*.mlir"))
PRETTY = sorted(IREE.glob("*/[0-9]*.mlir"))

D_INPLACE = {
    ("BORROWED_INPUT_MUTATED", "kv_update"): 2,
    ("BORROWED_INPUT_MUTATED", "scatter_rows"): 1,
    ("OUT_OF_BOUNDS", "scatter_rows"): 1,
}


def expected(program: str, stage: str) -> tuple[str, dict[tuple[str, str], int]]:
    """(status, {(class, function): count}) for one dump."""
    n = int(stage[:2])
    if program == "d_inplace" and n == 0:
        return "violated", {("OUT_OF_BOUNDS", "scatter_rows"): 1}
    if program == "d_inplace" and n >= 1:
        return "violated", D_INPLACE
    if n == 7 and program in ("f_multidevice", "i_multidevice_overlap"):
        func = "two_dev" if program == "f_multidevice" else "two_dev_overlap"
        return "proved", {("LEAK", func): 1}
    return "proved", {}


def found(path: Path) -> tuple[str, dict[tuple[str, str], int]]:
    report = verify_module(parse(path.read_text(), str(path)))
    counts: dict[tuple[str, str], int] = {}
    for v in report.violations:
        counts[(v.cls, v.function)] = counts.get((v.cls, v.function), 0) + 1
    assert not report.unknowns
    return report.status, counts


@pytest.mark.parametrize("path", GENERIC + PRETTY, ids=lambda p: f"{p.parts[-3] if p.parent.name == 'generic' else p.parent.name}/{p.name}")
def test_iree_dump_verdict(path: Path) -> None:
    program = path.parent.parent.name if path.parent.name == "generic" else path.parent.name
    assert found(path) == expected(program, path.name)


def test_stages_07_and_10_are_proved_except_the_real_bug() -> None:
    checked = 0
    for path in GENERIC:
        if path.name[:2] in ("07", "10"):
            status, _ = found(path)
            assert status == ("violated" if "d_inplace" in str(path) else "proved"), path
            checked += 1
    assert checked == 8


def test_d_inplace_findings_name_the_borrowed_storage_and_the_row_bound() -> None:
    path = IREE / "d_inplace" / "10_elide_timepoints.mlir"
    report = verify_module(parse(path.read_text(), str(path)))
    borrowed = [v for v in report.violations if v.cls == "BORROWED_INPUT_MUTATED"]
    assert {v.ops[0].text.split()[0] for v in borrowed} == {"stream.cmd.copy", "stream.cmd.dispatch"}
    assert all(v.allocation is not None and v.allocation[1] == "import" for v in borrowed)
    kv = [v for v in borrowed if v.function == "kv_update"]
    assert sorted(v.bytes for v in kv) == [(0, 1024), (2048, 3072)]  # the two tiles written into %cache
    oob = next(v for v in report.violations if v.cls == "OUT_OF_BOUNDS")
    assert oob.symbols["%arg2"] > 120 and oob.symbols["%arg2"] * 64 + 512 > 8192


def test_the_final_stage_keeps_the_row_bound_inside_the_executable() -> None:
    """At stage 99 the `%row * 64` offset is an i32 pair the executable joins (after a
    `util.assume.int` the pretty dump keeps verbatim) and adds to the subspan of a whole-slab
    binding: the subspan runs past the binding for the same rows as stage 10's range."""
    path = IREE / "d_inplace" / "99_final.mlir"
    report = verify_module(parse(path.read_text(), str(path)))
    (oob,) = [v for v in report.violations if v.cls == "OUT_OF_BOUNDS"]
    assert "the rw subspan range" in oob.message and "of the binding" in oob.message
    assert oob.symbols["%arg2"] > 120 and oob.symbols["%arg2"] * 64 + 512 > 8192
    assert not [n for f in report.functions for n in f.notes]  # every executable was read

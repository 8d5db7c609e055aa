"""The proof gate under pytest: every lemma in proofs/lemmas/ and every program in
proofs/corpus/ must come out as its file says (the same check `streamproof prove` runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify.prove import check_lemma, check_program

HERE = Path(__file__).resolve().parent
LEMMAS = sorted(p for p in (HERE / "lemmas").glob("*.py") if not p.name.startswith(("_", "test_")))
PROGRAMS = sorted((HERE / "corpus").glob("*.mlir"))


def test_gate_is_populated() -> None:
    assert len(LEMMAS) >= 7 and len(PROGRAMS) >= 30


@pytest.mark.parametrize("path", LEMMAS, ids=lambda p: p.stem)
def test_lemma(path: Path) -> None:
    result = check_lemma(path)
    assert result.ok, result.line()


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_corpus_program(path: Path) -> None:
    result = check_program(path)
    assert result.ok, result.line()

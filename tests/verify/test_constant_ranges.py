"""Constant byte ranges outside their resource (issue 9 item 7) are program bugs, not unreadable
input: IREE's parser and op verifiers accept them, so the structural verifier does too, the text
round-trips through `compile --pass-pipeline=`, and `verify` reports OUT_OF_BOUNDS with a witness
(exit 1) where it used to refuse the file (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CORPUS

import stream.ir as ir
from stream.ir.equality import structurally_equal
from stream.ir.verifier import structural_diagnostics
from streamproof.cli import main

PROGRAMS = ["async_slice_constant_oob.mlir", "cmd_oob_constant.mlir"]


@pytest.mark.parametrize("name", PROGRAMS)
def test_structure_accepts_a_constant_range_past_the_end(name: str) -> None:
    assert structural_diagnostics(ir.parse_module((CORPUS / name).read_text(), name)) == []


@pytest.mark.parametrize("name", PROGRAMS)
def test_round_trip(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.mlir"
    assert main(["compile", str(CORPUS / name), "--pass-pipeline=", "-o", str(out)]) == 0
    before = ir.parse_module((CORPUS / name).read_text(), name)
    assert structurally_equal(before, ir.parse_module(out.read_text(), "out.mlir"))


def test_verify_reports_out_of_bounds_with_a_witness(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(CORPUS / "cmd_oob_constant.mlir")]) == 1
    out = capsys.readouterr().out
    assert "error: OUT_OF_BOUNDS in @oob_constant: the target range [32, 80) exceeds the 64 bytes of %d" in out
    assert "error: OUT_OF_BOUNDS in @oob_constant: the rw range [200, 264) exceeds the 256 bytes of %s" in out
    assert out.count("witness:") == 2


def test_a_negative_constant_offset_is_out_of_bounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (CORPUS / "async_slice_constant_oob.mlir").read_text()
    text = text.replace("arith.constant 224", "arith.constant -8").replace("arith.constant 288", "arith.constant 56")
    path = tmp_path / "neg.mlir"
    path.write_text(text)
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "OUT_OF_BOUNDS in @slice_const_oob: the source range [-8, 56) starts before byte 0 of the 256 bytes of %a" in out
    assert "witness:" in out

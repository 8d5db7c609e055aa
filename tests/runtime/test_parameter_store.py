"""The executor's parameter store: a deterministic stand-in archive (runtime/parameter_ops.py).

Byte i of `scope::key` is byte i % 64 of BLAKE2b-512(scope NUL key NUL str(i // 64)); the expected
bytes below are computed here with hashlib, independently of the runtime's helper."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from rt_support import ROOT_DIR

import stream.ir as ir
from runtime import run_module

CORPUS = ROOT_DIR / "proofs" / "corpus"


def archive(scope: bytes, key: bytes, offset: int, length: int) -> bytes:
    stream = b"".join(hashlib.blake2b(scope + b"\0" + key + b"\0" + str(i).encode()).digest() for i in range(0, (offset + length) // 64 + 1))
    return stream[offset:offset + length]


@pytest.mark.parametrize("driver", ["sync", "task", "chaos"])
def test_load_returns_the_parameters_bytes(driver: str) -> None:
    module = ir.parse_module((CORPUS / "cmd_parameter_load_ok.mlir").read_text(), "load.mlir")
    result = run_module(module, [np.zeros(64, np.uint8)], driver=driver, check_races=True)
    assert not result.findings
    out = np.asarray(result.results[0]).tobytes()
    assert out == archive(b"", b"w0", 0, 32) + archive(b"", b"w1", 0, 32)


def test_gather_rows_land_at_their_target_ranges() -> None:
    module = ir.parse_module((CORPUS / "cmd_parameter_ok.mlir").read_text(), "gather.mlir")
    result = run_module(module, [np.zeros(64, np.uint8)], driver="sync", check_races=True)
    assert not result.findings
    out = np.asarray(result.results[0]).tobytes()
    # w0 from offset 0 into [0, 32); w1 from offset 8 (crossing no block) into [32, 64).
    assert out == archive(b"model", b"w0", 0, 32) + archive(b"model", b"w1", 8, 32)
    assert archive(b"model", b"w1", 60, 10) == archive(b"model", b"w1", 0, 70)[60:]  # overlapping reads agree


def test_a_read_the_copy_does_not_await_is_a_race() -> None:
    module = ir.parse_module((CORPUS / "cmd_parameter_race.mlir").read_text(), "race.mlir")
    kinds = set()
    for seed in range(6):
        result = run_module(module, [np.zeros(64, np.uint8)], driver="chaos", seed=seed, check_races=True)
        kinds |= {f.kind for f in result.findings}
    assert kinds & {"RACE_READ_AFTER_WRITE", "MISSED_WAIT"}

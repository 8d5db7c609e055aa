"""Shared helpers of the verifier tests.

This directory is called `verify`, like the package under test; make `import verify` find the
real package whatever pytest put on sys.path first (see tests/runtime/conftest.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if "verify" in sys.modules and getattr(sys.modules["verify"], "__file__", None) is None:
    del sys.modules["verify"]

import pytest  # noqa: E402

import stream.ir as ir  # noqa: E402
from stream.ir.verifier import verify_structure  # noqa: E402
from verify import Report, verify_module  # noqa: E402

CORPUS = ROOT / "proofs" / "corpus"
IREE = ROOT / "tests" / "data" / "iree"


def parse(text: str, name: str = "test.mlir") -> ir.Module:
    module = ir.parse_module(text, name)
    verify_structure(module)
    return module


def check(text: str, **options: object) -> Report:
    return verify_module(parse(text), **options)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def corpus() -> Path:
    return CORPUS

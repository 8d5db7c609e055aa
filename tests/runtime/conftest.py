"""Shared fixtures of the runtime tests.

This directory is called `runtime`, like the package under test; pytest puts `tests/` on sys.path,
where `runtime` would resolve to this directory as a namespace package. Putting the repository root
first makes `import runtime` find the real (regular) package, whatever the import order.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if "runtime" in sys.modules and getattr(sys.modules["runtime"], "__file__", None) is None:
    del sys.modules["runtime"]

import pytest  # noqa: E402

from runtime.kernels import load_kernel_file  # noqa: E402

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def iree_kernels() -> None:
    """Register the kernels of tests/runtime/iree_kernels.py (IREE dispatch symbols)."""
    load_kernel_file(HERE / "iree_kernels.py")



"""Helpers and fixtures shared by the runtime tests (imported as `rt_support`; deliberately not a
conftest.py, so that other directories' `from conftest import ...` never find this one)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import stream.ir as ir
from runtime.kernels import load_kernel_file

HERE = Path(__file__).resolve().parent
ROOT_DIR = HERE.parent.parent
DATA = HERE.parent / "data" / "iree"
DRIVERS = ("sync", "task", "chaos")


def parse(text: str, name: str = "test.mlir") -> ir.Module:
    return ir.parse_module(text, name)


def bounded(fn: Callable[[], Any], seconds: float = 20.0) -> Any:
    """Run `fn` on a thread and fail the test (instead of hanging the suite) when it does not
    finish within `seconds`. Returns fn's result or re-raises its exception."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised below
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        pytest.fail(f"did not finish within {seconds} s (a hang)")
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.fixture(scope="session")
def iree_kernels() -> None:
    """Register the kernels of tests/runtime/iree_kernels.py (IREE dispatch symbols)."""
    load_kernel_file(HERE / "iree_kernels.py")

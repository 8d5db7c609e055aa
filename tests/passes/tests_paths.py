"""Paths shared by the pass tests."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IREE = ROOT / "tests" / "data" / "iree"

"""Recursion headroom for IR nested up to the parser's limits.

The parser refuses regions, attributes and types nested deeper than `MAX_NESTING` (256) levels,
so every recursive walk downstream (printing, the structural verifier, passes, equality,
hashing of frozen attributes, the executor's nested command regions) is bounded by those
limits. Python's default recursion limit (1000 frames) is below what a walk of the deepest
accepted module takes (about 9 frames per region level when printing), so the parser raises it
to `RECURSION_LIMIT` (when `stream.ir.parser` is imported, and again at each parse); it never
lowers a limit the embedding program set higher.

In CPython 3.11 a Python-to-Python call does not grow the C stack, and the walks that do recurse
through C (`str`, `==`, `hash` of nested attributes) are bounded by the nesting limits, so the
raised limit stays far inside the 8 MiB main-thread stack (and the worker threads' stacks).
"""

from __future__ import annotations

import sys

__all__ = ["RECURSION_LIMIT", "ensure_recursion_headroom"]

# 256 region levels at ~9 frames each, plus 256 attribute levels at ~5 frames each inside the
# deepest region, plus the frames of the caller (the CLI, pytest, a pass manager): ~4 000, doubled.
RECURSION_LIMIT = 8000


def ensure_recursion_headroom() -> None:
    """Raise the interpreter's recursion limit to `RECURSION_LIMIT` if it is lower."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)

"""Stand-in kernels for `streamproof run --kernels` in the fuzz test: every dispatch symbol of the
seed programs (`@ex::@produce`, IREE's `@diamond_dispatch_0::@...`) becomes a kernel that takes its
bindings as raw bytes and bumps the writable ones, so cmd-level seeds and their mutants run without
real kernels (the point is the command's behaviour on odd input, not the numbers)."""

import re
from pathlib import Path

import streamproof

ROOT = Path(__file__).resolve().parents[2]
SEED_DIRS = ("proofs/corpus", "examples", "tests/data")


def _touch(*arrays):
    for a in arrays:
        if a.flags.writeable:
            a += 1


_names: set[str] = set()
for directory in SEED_DIRS:
    for path in (ROOT / directory).rglob("*.mlir"):
        for root, leaf in re.findall(r"@([\w$.-]+)::@([\w$.-]+)", path.read_text(encoding="utf-8", errors="replace")):
            _names.add(f"{root}::{leaf}")
for _name in sorted(_names):
    streamproof.kernel(_name, bindings="bytes")(_touch)

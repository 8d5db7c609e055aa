"""Ops the passes create carry the source location of the op they were made for, so that a
diagnostic on a compiled program (a deadlock at run time, a counterexample) points into the
user's file instead of `<unknown>:0:0`."""

from __future__ import annotations

from pathlib import Path

import pytest

import stream.ir as ir
from stream.ir.walk import functions
from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.mlir"))
# Terminators of regions are structural; their location says nothing a user could act on.
STRUCTURAL = frozenset({"stream.yield"})


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_op_of_a_compiled_example_has_a_source_location(path: Path) -> None:
    module = ir.parse_module(path.read_text(), str(path))
    compiled, _ = run_pipeline(module, parse_pipeline(",".join(DEFAULT_PIPELINE)), verify="none")
    unknown = sorted({op.name for f in functions(compiled) for op in f.op.walk()
                      if op.location.file != str(path) and op.name not in STRUCTURAL})
    assert unknown == []

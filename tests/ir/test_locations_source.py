"""A location carries the source text it points into, so a diagnostic raised long after parsing
(by the structural verifier, the property checker or a pass) shows the line of the module the op
came from, even when another text was parsed later under the same file name (the API's default
`"<string>"`, or a file edited and re-read by a long-running process)."""

from __future__ import annotations

import pytest

import stream.ir as ir
import streamproof
from stream.ir.diagnostics import DiagnosticError, SourceFile, source_line
from stream.ir.verifier import verify_structure
from stream.ir.walk import functions

# A call to an undefined function: the structural verifier rejects it (after parsing).
BROKEN = """util.func public @main(%arg0: index) -> index {
  %0 = util.call @missing(%arg0) : (index) -> index
  util.return %0 : index
}
"""

# Another module with different text on the same line numbers.
OTHER = """util.func public @other(%arg0: index) -> index {
  %c1 = arith.constant 1 : index
  %0 = arith.addi %arg0, %c1 : index
  util.return %0 : index
}
"""


def test_a_diagnostic_shows_its_own_modules_line_after_another_parse_under_the_same_name() -> None:
    broken = ir.parse_module(BROKEN, "<string>")
    ir.parse_module(OTHER, "<string>")  # parsed later under the same name
    with pytest.raises(DiagnosticError) as caught:
        verify_structure(broken)
    text = str(caught.value)
    assert text.startswith("<string>:2:"), text
    assert "util.call @missing(%arg0)" in text, text
    assert "arith.constant 1" not in text, text


def test_the_api_default_file_name_reports_the_verified_programs_line() -> None:
    """`streamproof.compile` and `verify` parse under "<string>" by default: a program compiled
    in between does not change what a later diagnostic about an earlier module quotes."""
    broken = ir.parse_module(BROKEN, "<string>")
    streamproof.compile(OTHER, verify="none")
    with pytest.raises(DiagnosticError) as caught:
        verify_structure(broken)
    assert "util.call @missing" in str(caught.value)


def test_a_location_carries_its_source_and_compares_by_position_only() -> None:
    a = ir.parse_module(BROKEN, "same.mlir")
    b = ir.parse_module(BROKEN, "same.mlir")
    op_a = functions(a)[0].body.ops[0]
    op_b = functions(b)[0].body.ops[0]
    assert op_a.location.source is not None and op_a.location.source.text == BROKEN
    assert op_a.location.source is not op_b.location.source
    # Equality and hashing stay by (file, line, col): the verifier matches a pass input's
    # violations to its output's by location, across modules parsed from the same text.
    assert op_a.location == op_b.location and hash(op_a.location) == hash(op_b.location)
    assert source_line(op_a.location) == "  %0 = util.call @missing(%arg0) : (index) -> index"


def test_a_location_without_a_source_has_no_line() -> None:
    SourceFile("nowhere.mlir", "some text\n")  # a source read under that name is not consulted
    assert source_line(ir.Location("nowhere.mlir", 1, 1)) is None


def test_split_input_chunks_keep_whole_file_line_numbers() -> None:
    chunk = ir.parse_module(BROKEN, "split.mlir", line_offset=10)
    with pytest.raises(DiagnosticError) as caught:
        verify_structure(chunk)
    assert str(caught.value).startswith("split.mlir:12:") and "util.call @missing" in str(caught.value)

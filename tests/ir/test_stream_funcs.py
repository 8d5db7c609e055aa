"""`stream.async.func` and `stream.cmd.func` declarations, read and printed as IREE 3.13 does."""

from __future__ import annotations

import pytest

from stream.ir import DiagnosticError, parse_module, print_module
from stream.ir.equality import first_difference

DECLS = """\
stream.async.func private @inplace(%arg0: !stream.resource<*>, %arg1: index) -> %arg0
stream.async.func private @fresh(%arg0: i64, %arg1: !stream.resource<*>) -> !stream.resource<*>
stream.cmd.func private @ranged(%arg0[%arg1 for %arg2]: !stream.resource<*>, %arg3: i32, %arg4[%arg5 for %arg6]: !stream.resource<transient>)
stream.cmd.func private @attrs(%arg0: i32 {a.b = 1 : i32}) -> (i32 {x.y}, i64)
"""

# What iree-opt 3.13 prints for DECLS with --mlir-print-op-generic (its parsers store one empty
# dictionary per argument and result).
IREE_GENERIC = """\
"builtin.module"() ({
  "stream.async.func"() <{arg_attrs = [{}, {}], function_type = (!stream.resource<*>, index) -> !stream.resource<*>, res_attrs = [{}], sym_name = "inplace", sym_visibility = "private", tied_operands = [0 : index]}> ({
  }) : () -> ()
  "stream.async.func"() <{arg_attrs = [{}, {}], function_type = (i64, !stream.resource<*>) -> !stream.resource<*>, res_attrs = [{}], sym_name = "fresh", sym_visibility = "private", tied_operands = [-1 : index]}> ({
  }) : () -> ()
  "stream.cmd.func"() <{arg_attrs = [{}, {}, {}, {}, {}, {}, {}], function_type = (!stream.resource<*>, index, index, i32, !stream.resource<transient>, index, index) -> (), sym_name = "ranged", sym_visibility = "private"}> ({
  }) : () -> ()
  "stream.cmd.func"() <{arg_attrs = [{a.b = 1 : i32}], function_type = (i32) -> (i32, i64), res_attrs = [{x.y}, {}], sym_name = "attrs", sym_visibility = "private"}> ({
  }) : () -> ()
}) : () -> ()
"""


def test_declarations_print_back_as_written() -> None:
    pretty = print_module(parse_module(DECLS, "decls.mlir"))
    for line in DECLS.splitlines():
        assert "  " + line in pretty


def test_a_ranged_resource_argument_is_three_inputs() -> None:
    generic = print_module(parse_module(DECLS, "decls.mlir"), generic=True)
    assert "function_type = (!stream.resource<*>, index, index, i32, !stream.resource<transient>, index, index) -> ()" in generic
    assert "tied_operands = [0 : index]" in generic


def test_iree_generic_print_is_the_same_module() -> None:
    ours = parse_module(DECLS, "decls.mlir")
    assert first_difference(ours, parse_module(IREE_GENERIC, "g.mlir")) is None
    for generic in (False, True):
        assert first_difference(ours, parse_module(print_module(ours, generic=generic), "p.mlir")) is None


def test_a_range_needs_for() -> None:
    with pytest.raises(DiagnosticError, match="expected 'for'"):
        parse_module("stream.cmd.func private @f(%arg0[%arg1, %arg2]: !stream.resource<*>)", "bad.mlir")

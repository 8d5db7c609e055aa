"""Text that is well-formed MLIR but not what streamproof models: a malformed op (an unknown
property, an attribute of the wrong kind, a signature its body disagrees with) prints in generic
form, as MLIR prints ops that fail to verify, so that print -> parse still gives the same IR;
and only custom syntax streamproof does not model (`UnknownSyntaxError`) makes an executable's
body verbatim, while any other error in it is reported where it is."""

from __future__ import annotations

import pytest

import stream.ir as ir
from stream.ir.attributes import StringAttr
from stream.ir.equality import first_difference
from stream.ir.parser import UnknownSyntaxError

RESOURCE = "!stream.resource<external>"


def size_op(props: str) -> str:
    return (
        f"func.func @f(%r: {RESOURCE}) -> index {{\n"
        f'  %0 = "stream.resource.size"(%r) {props} : ({RESOURCE}) -> index\n'
        "  return %0 : index\n}\n"
    )


def workgroup_op(props: str) -> str:
    return f'func.func @f() -> index {{\n  %0 = "stream.dispatch.workgroup.id"() {props} : () -> index\n  return %0 : index\n}}\n'


def function_op(function_type: str) -> str:
    return f'"func.func"() <{{function_type = {function_type}, sym_name = "f"}}> ({{\n  "func.return"() : () -> ()\n}}) : () -> ()\n'


# (module text, the generic spelling the malformed op keeps in pretty form)
MALFORMED = {
    "unknown property": (size_op("<{bogus = 1 : i32}>"), '"stream.resource.size"(%r) <{bogus = 1 : i32}>'),
    "affinity that is a string": (size_op('<{affinity = "dev"}>'), '"stream.resource.size"(%r) <{affinity = "dev"}>'),
    "integer attribute that is a string": (workgroup_op('<{dimension = "x"}>'), '"stream.dispatch.workgroup.id"() <{dimension = "x"}>'),
    "integer attribute of the wrong type": (workgroup_op("<{dimension = 1 : i32}>"), '"stream.dispatch.workgroup.id"() <{dimension = 1 : i32}>'),
    "signature the entry block disagrees with": (function_op("(index) -> ()"), '"func.func"() <{function_type = (index) -> (), sym_name = "f"}>'),
    "function type that is not a function": (function_op("index"), '"func.func"() <{function_type = index, sym_name = "f"}>'),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_malformed_op_prints_generic_and_round_trips(case: str) -> None:
    text, generic_spelling = MALFORMED[case]
    module = ir.parse_module(text, "t.mlir")
    printed = ir.print_module(module)
    assert generic_spelling in printed
    again = ir.parse_module(printed, "printed.mlir")
    assert first_difference(module, again) is None
    assert ir.print_module(again) == printed


def test_only_the_malformed_op_falls_back() -> None:
    text = size_op("<{bogus = 1 : i32}>").replace("  return", f"  %1 = stream.resource.size %r : {RESOURCE}\n  return")
    printed = ir.print_module(ir.parse_module(text, "t.mlir"))
    assert f"func.func @f(%r: {RESOURCE}) -> index {{" in printed  # the function itself is fine
    assert f"%1 = stream.resource.size %r : {RESOURCE}" in printed
    assert "return %0 : index" in printed


def test_well_formed_ops_keep_their_custom_syntax() -> None:
    printed = ir.print_module(ir.parse_module(workgroup_op("<{dimension = 1 : index}>"), "t.mlir"))
    assert "%0 = stream.dispatch.workgroup.id[1] : index" in printed


# -- unmodelled syntax inside executables ---------------------------------------------------------
EXECUTABLE = """stream.executable private @ex {
  stream.executable.export public @f workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @f(%a: index, %b: index) {
BODY
      return
    }
  }
}
"""


def executable(body: str) -> str:
    return EXECUTABLE.replace("BODY", body)


def inner_ops(module: ir.Module) -> list[ir.Op]:
    return list(module.ops[0].regions[0].blocks[0].ops)


def test_unmodelled_custom_syntax_makes_the_body_verbatim() -> None:
    line = "      %0 = linalg.fill ins(%a : index) outs(%b : index) -> index"
    module = ir.parse_module(executable(line), "ex.mlir")
    ops = inner_ops(module)
    assert [op.name for op in ops] == ["streamproof.verbatim", "stream.executable.end"]
    text = ops[0].properties["text"]
    assert isinstance(text, StringAttr) and line.strip() in text.value and "stream.executable.export" in text.value
    printed = ir.print_module(module)
    assert line.strip() in printed
    assert first_difference(module, ir.parse_module(printed, "printed.mlir")) is None


def test_unmodelled_custom_syntax_outside_an_executable_names_the_op() -> None:
    text = "func.func @f(%a: index) {\n  %0 = linalg.fill ins(%a : index) -> index\n  return\n}\n"
    with pytest.raises(UnknownSyntaxError) as info:
        ir.parse_module(text, "t.mlir")
    assert str(info.value).startswith(
        "t.mlir:2:8: error: custom assembly of 'linalg.fill' is not known to streamproof; "
        "read IREE output in generic form (iree-compile --mlir-print-op-generic)"
    )


def test_modelled_ops_inside_an_executable_are_parsed() -> None:
    module = ir.parse_module(executable("      %0 = arith.addi %a, %b : index"), "ex.mlir")
    names = [op.name for op in module.walk()]
    assert "streamproof.verbatim" not in names and "arith.addi" in names


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("      %0 = arith.addi %a %b : index", "ex.mlir:8:26: error: expected ',', found '%b'"),
        ("      %0 = arith.addi %a, %zz : index", "ex.mlir:8:27: error: use of undefined value '%zz'"),
        ("      %0 = arith.addi %a, %b : indx", "ex.mlir:8:32: error: unknown type 'indx'"),
        ('      "t.x"() {a = "\\q"} : () -> ()', "ex.mlir:8:21: error: invalid escape in string literal"),
    ],
)
def test_an_error_inside_an_executable_body_is_reported_where_it_is(line: str, error: str) -> None:
    with pytest.raises(ir.DiagnosticError) as info:
        ir.parse_module(executable(line), "ex.mlir")
    assert not isinstance(info.value, UnknownSyntaxError)
    assert str(info.value).startswith(error)


def test_a_truncated_executable_is_reported_at_the_end_of_the_input() -> None:
    text = executable("      %0 = arith.addi %a, %b : index").split("      return")[0]
    with pytest.raises(ir.DiagnosticError) as info:
        ir.parse_module(text, "ex.mlir")
    assert str(info.value).startswith("ex.mlir:9:1: error: expected '}' to close the region (reached the end of the input")

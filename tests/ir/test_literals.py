"""MLIR literals as the lexer reads them: string escapes (`\\n \\t \\" \\\\` and two hex digits,
nothing else), integer spellings (leading zeros are decimal, `0x` is hex), and the
`file:line:col` diagnostics for a bad escape or an unterminated string. Expected values follow
MLIR's own lexer (`mlir/lib/AsmParser/Lexer.cpp`)."""

from __future__ import annotations

from pathlib import Path

import pytest

import stream.ir as ir
from stream.ir.attributes import ArrayAttr, IntegerAttr, StringAttr, SymbolRefAttr
from stream.ir.types import I32, I64, INDEX
from streamproof.cli import main


def the_op(text: str, name: str) -> ir.Op:
    return next(op for op in ir.parse_module(text, "t.mlir").walk() if op.name == name)


def attr(text: str) -> ir.Attribute:
    return the_op(f'"t.x"() {{a = {text}}} : () -> ()', "t.x").attributes["a"]


def error_of(text: str) -> str:
    with pytest.raises(ir.DiagnosticError) as info:
        ir.parse_module(text, "t.mlir")
    return str(info.value)


# -- string escapes ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spelled", "value"),
    [
        ('"a\\nb"', "a\nb"),
        ('"a\\tb"', "a\tb"),
        ('"say \\"hi\\""', 'say "hi"'),
        ('"back\\\\slash"', "back\\slash"),
        ('"\\41\\7a"', "Az"),  # two hex digits, either case
        ('"\\C3\\A9"', "é"),  # bytes of UTF-8
        ('"\\\\41"', "\\41"),  # an escaped backslash, then plain digits
        ('"a//b"', "a//b"),  # not a comment inside a string
    ],
)
def test_valid_escapes_decode(spelled: str, value: str) -> None:
    assert attr(spelled) == StringAttr(value)


def test_escapes_in_a_quoted_symbol_name() -> None:
    assert attr('@"odd\\22name"') == SymbolRefAttr('odd"name')


# (text after `{a = `, column of the bad backslash in the whole line `"t.x"() {a = ...`)
BAD_ESCAPES = [
    ('"ok\\q"', 17),
    ('"\\4"', 15),  # one hex digit is not an escape
    ('"\\4g"', 15),
    ('"a\\"b\\q"', 19),  # an escaped quote before the bad escape does not end the string
    ('"a\\\\\\q"', 18),  # `\\` is one escape; the next backslash starts a bad one
    ('@"x\\q"', 17),
]


@pytest.mark.parametrize(("text", "column"), BAD_ESCAPES)
def test_invalid_escape_is_reported_at_its_backslash(text: str, column: int) -> None:
    message = error_of(f'"t.x"() {{a = {text}}} : () -> ()')
    first, source, caret = message.splitlines()[:3]
    assert first == f"t.mlir:1:{column}: error: invalid escape in string literal (MLIR knows \\n, \\t, \\\", \\\\ and \\XX)"
    assert caret.index("^") == column - 1 and source[column - 1] == "\\"


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('"t.x"() {a = "abc} : () -> ()\n', 1, 14),
        ('"t.x"() {a = "abc', 1, 14),  # end of input
        ('"t.x"() {a = "ab\ncd"} : () -> ()', 1, 14),  # a string does not span lines
        ('"t.x"() {a = "a\\\\q} : () -> ()', 1, 14),  # only valid escapes before the end of the line
        ('"t.x"() {a = "a\\"} : () -> ()', 1, 14),  # the quote is escaped
        ('\n  "t.x"() {a = @"sym} : () -> ()', 2, 17),
    ],
)
def test_unterminated_string_is_reported_at_its_opening_quote(text: str, line: int, column: int) -> None:
    first = error_of(text).splitlines()[0]
    assert first == f"t.mlir:{line}:{column}: error: unterminated string literal: no closing '\"' on this line"


def test_bad_string_on_the_command_line_exits_2_without_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text('func.func @f() {\n  "t.x"() {note = "50\\%"} : () -> ()\n  return\n}\n')
    code = main(["compile", str(path), "--pass-pipeline="])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"{path}:2:22: error: invalid escape in string literal") and "Traceback" not in err


# -- integer literals -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("007 : i32", IntegerAttr(7, I32)),  # leading zeros are decimal, not octal
        ("010", IntegerAttr(10, I64)),
        ("-010 : i32", IntegerAttr(-10, I32)),
        ("00 : index", IntegerAttr(0, INDEX)),
        ("0x10 : i32", IntegerAttr(16, I32)),
        ("0x00ff : index", IntegerAttr(255, INDEX)),
        ("-0x10 : i64", IntegerAttr(-16, I64)),
        ("[08, 0x08]", ArrayAttr((IntegerAttr(8, I64), IntegerAttr(8, I64)))),
    ],
)
def test_integer_spellings(text: str, value: ir.Attribute) -> None:
    assert attr(text) == value


def test_leading_zeros_in_pretty_form_constants_and_styled_integers() -> None:
    text = """func.func @f() -> (index, index, index) {
  %a = arith.constant 0042 : index
  %b = stream.dispatch.workgroup.id [02] : index
  %c = stream.dispatch.workgroup.size [0x1] : index
  return %a, %b, %c : index, index, index
}"""
    module = ir.parse_module(text, "t.mlir")
    a, b, c = module.ops[0].regions[0].blocks[0].ops[:3]
    assert a.properties["value"] == IntegerAttr(42, INDEX)
    assert b.properties["dimension"] == IntegerAttr(2, INDEX) and c.properties["dimension"] == IntegerAttr(1, INDEX)
    printed = ir.print_module(module)
    assert "arith.constant 42 : index" in printed
    assert "stream.dispatch.workgroup.id[2] : index" in printed and "stream.dispatch.workgroup.size[1] : index" in printed

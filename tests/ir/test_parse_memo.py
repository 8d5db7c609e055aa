"""The parser remembers the text of simple function types and attribute values (once per
module) and looks later spellings up: a module must parse to exactly what it parses to without
the memo, and an error must still be reported where it is."""

from __future__ import annotations

from pathlib import Path

import pytest

import stream.ir as ir
from stream.ir import parse_attrs
from stream.ir.equality import first_difference

ROOT = Path(__file__).resolve().parents[2]
IREE_GENERIC = sorted((ROOT / "tests/data/iree").glob("*/generic/*.mlir"))

# Spellings that look alike but differ, each written several times so that later ones are hits.
TRICKY = """
func.func @f(%a: index, %r: !stream.resource<transient>) -> index {
  %0 = "test.op"(%a) <{x = 0 : index, y = array<i32: 1, 2>}> : (index) -> index
  %1 = "test.op"(%a) <{x = 0 : i32 , y = array<i32: 1, 2>}> : (index) -> index loc("a.mlir":3:4)
  %2 = "test.op"(%a) <{x = 0 : index, y = array<i32: 1, 2, 3>}> : (index) -> index
  %3 = "test.op"(%a) <{x = 0, y = [1 : i32, 2 : i32]}> : (index) -> i32
  %4 = "test.op"(%a) <{x = 0 : index, y = [1 : i32, 2 : i32], z}> : (index) -> index
  %5 = "test.op"(%r) <{x = #hal.device.affinity<@dev0>}> {x = 0 : index} : (!stream.resource<transient>) -> !stream.resource<transient>
  %6 = "test.op"(%r) <{x = #hal.device.affinity<@dev1>}> {x = 0 : index} : (!stream.resource<transient>) -> !stream.resource<external>
  %7 = "test.op"(%r) <{x = #hal.device.affinity<@dev0>}> {x = 0 : index} : (!stream.resource<transient>) -> !stream.resource<transient>
  "func.return"(%0) : (index) -> ()
}
"""


def _without_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    never = parse_attrs.re.compile(r"(?!)()")
    monkeypatch.setattr(parse_attrs, "_SIMPLE_FUNCTION_TYPE", never)
    monkeypatch.setattr(parse_attrs, "_SIMPLE_ENTRY_VALUE", never)


@pytest.mark.parametrize("path", [None, *IREE_GENERIC], ids=lambda p: "tricky" if p is None else f"{p.parent.parent.name}/{p.name}")
def test_memo_changes_nothing(path: Path | None, monkeypatch: pytest.MonkeyPatch) -> None:
    text = TRICKY if path is None else path.read_text()
    with_memo = ir.parse_module(text, "m.mlir")
    with monkeypatch.context() as m:
        _without_memo(m)
        plain = ir.parse_module(text, "m.mlir")
    assert first_difference(with_memo, plain) is None
    assert ir.print_module(with_memo, generic=True) == ir.print_module(plain, generic=True)


def test_memo_is_used_and_values_are_shared() -> None:
    module = ir.parse_module(TRICKY, "m.mlir")
    ops = next(o for o in module.ops if o.name == "func.func").regions[0].blocks[0].ops
    assert ops[0].properties["y"] is ops[1].properties["y"]  # one parse of `array<i32: 1, 2>`
    assert ops[0].properties["x"] != ops[1].properties["x"]  # `0 : index` is not `0 : i32`
    assert ops[2].properties["y"] != ops[0].properties["y"]
    assert [str(r.type) for r in ops[5].results + ops[6].results] == ["!stream.resource<transient>", "!stream.resource<external>"]
    assert ops[1].loc is not None and "3:4" in str(ops[1].loc)


def test_an_error_after_a_remembered_spelling_is_reported_where_it_is() -> None:
    good = '  %{} = "test.op"(%a) <{{x = 0 : index}}> : (index) -> index\n'
    text = "func.func @f(%a: index) {\n" + good.format(0) + good.format(1) + '  %2 = "test.op"(%a) <{x = 0 : index}> : (index) -> index2\n}\n'
    with pytest.raises(ir.DiagnosticError) as e:
        ir.parse_module(text, "m.mlir")
    assert str(e.value).startswith("m.mlir:4:53: error: unknown type 'index2'"), str(e.value)

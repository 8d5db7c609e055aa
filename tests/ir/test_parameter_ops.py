"""The parameter ops read and print exactly as IREE 3.13 prints them (tests/data/iree_parameters/),
and their interfaces give one access per parameter row."""

from __future__ import annotations

from pathlib import Path

import pytest

import stream.ir as ir
from stream.ir.diagnostics import DiagnosticError
from stream.ir.interfaces import bound_accesses
from stream.ir.spec import spec_of
from stream.ir.walk import functions

DATA = Path(__file__).resolve().parent.parent / "data" / "iree_parameters"


@pytest.mark.parametrize("level", ["async", "cmd"])
@pytest.mark.parametrize("source", ["input", "pretty", "generic"])
def test_prints_both_forms_as_iree_does(level: str, source: str) -> None:
    m = ir.parse_module((DATA / f"{level}.{source}.mlir").read_text(), f"{level}.{source}.mlir")
    if source != "input":  # (the pretty form keeps the input's value names; IREE renames them)
        assert ir.print_module(m) == (DATA / f"{level}.pretty.mlir").read_text()
    generic, expected = ir.print_module(m, generic=True), (DATA / f"{level}.generic.mlir").read_text()
    if source == "generic":
        assert generic == expected
    else:  # from the pretty form, IREE's util.func adds `sym_visibility`/`tied_operands` (not these ops' business)
        assert [line for line in generic.splitlines() if "parameter" in line or "buffer" in line] == \
            [line for line in expected.splitlines() if "parameter" in line or "buffer" in line]


def _ops(level: str) -> dict[str, list[ir.Op]]:
    m = ir.parse_module((DATA / f"{level}.pretty.mlir").read_text(), f"{level}.mlir")
    out: dict[str, list[ir.Op]] = {}
    for op in functions(m)[0].body.ops:
        out.setdefault(op.name, []).append(op)
    return out


def test_a_gather_touches_each_row_of_its_target() -> None:
    for level in ("async", "cmd"):
        op = _ops(level)[f"stream.{level}.parameter.gather"][0]
        spec = spec_of(op)
        assert spec is not None
        accesses = bound_accesses(spec, op) or []
        assert [(a.mode, a.element) for a in accesses] == [("write", 0), ("write", 1)]
        assert len({a.value for a in accesses}) == 1 and accesses[0].offset is not accesses[1].offset


def test_a_scatter_reads_each_row_of_its_source() -> None:
    op = _ops("cmd")["stream.cmd.parameter.scatter"][0]
    spec = spec_of(op)
    assert spec is not None
    assert [a.mode for a in bound_accesses(spec, op) or []] == ["read", "read"]


def test_rows_must_share_scope_and_target() -> None:
    text = (DATA / "cmd.pretty.mlir").read_text()
    bad = text.replace("%buffer_cst::%buffer_cst_1[%c8_i64] -> %arg0[%c32 for %c32]", "%buffer_cst_1[%c8_i64] -> %arg0[%c32 for %c32]")
    assert bad != text
    with pytest.raises(DiagnosticError, match="each operation must use the same scope and target resource"):
        ir.parse_module(bad, "bad.mlir")


def test_a_variadic_resource_group_keeps_one_access_per_operand() -> None:
    """Repeating a single resource per range must not touch variadic groups (a dispatch's
    operands keep their own operand index and size: a regression of the gather change)."""
    cases = (Path(__file__).resolve().parent.parent / "golden" / "elide_async_copies.mlir").read_text().split("// -----")
    ops = [op for text in cases for f in functions(ir.parse_module(text, "dispatch.mlir")) for op in f.body.ops
           if op.name == "stream.async.dispatch"]
    assert any(len(op.operands) >= 2 for op in ops)
    for op in ops:
        spec = spec_of(op)
        assert spec is not None
        accesses = bound_accesses(spec, op) or []
        assert len({a.index for a in accesses}) == len(accesses) and [a.element for a in accesses] == list(range(len(accesses)))

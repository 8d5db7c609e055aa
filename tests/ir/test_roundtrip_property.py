"""Property: random well-formed modules (`ir_strategies.modules`) print -> parse -> compare
equal, in pretty and in generic form, and printing is a fixed point after one round."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from ir_strategies import FAMILIES, modules

import stream.ir as ir
from stream.ir.equality import first_difference

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PER_FAMILY = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _check(module: ir.Module, generic: bool) -> None:
    text = ir.print_module(module, generic=generic)
    try:
        reparsed = ir.parse_module(text, "printed.mlir")
    except ir.DiagnosticError as e:
        raise AssertionError(f"printed module does not parse:\n{e}\n--- printed ---\n{text}") from None
    difference = first_difference(module, reparsed)
    assert difference is None, f"{difference}\n--- printed ---\n{text}"
    assert ir.print_module(reparsed, generic=generic) == text


@SETTINGS
@given(modules())
def test_pretty_form_round_trips(module: ir.Module) -> None:
    _check(module, generic=False)


@SETTINGS
@given(modules())
def test_generic_form_round_trips(module: ir.Module) -> None:
    _check(module, generic=True)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_op_family_round_trips_in_both_forms(family: str) -> None:
    """Function bodies made only of one family's ops, so every op of the tables is drawn."""

    @PER_FAMILY
    @given(modules(max_ops=1, family=family))
    def check(module: ir.Module) -> None:
        _check(module, generic=False)
        _check(module, generic=True)

    check()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(modules())
def test_pretty_and_generic_forms_parse_to_equal_ir(module: ir.Module) -> None:
    from_pretty = ir.parse_module(ir.print_module(module), "pretty.mlir")
    from_generic = ir.parse_module(ir.print_module(module, generic=True), "generic.mlir")
    assert first_difference(from_pretty, from_generic) is None


def test_families_cover_every_registered_op() -> None:
    from stream.ir.spec_registry import registered_names

    drawn = {name for family in FAMILIES.values() for name in family}
    # Terminators and containers are drawn by the recipes that build their parents.
    structural = {"func.func", "util.func", "func.return", "util.return", "stream.yield", "stream.return", "builtin.module",
                  "util.global", "util.initializer", "stream.executable", "stream.executable.end", "stream.executable.export",
                  "stream.binding.subspan", "stream.dispatch.workgroup.id", "stream.dispatch.workgroup.count",
                  "stream.dispatch.workgroup.size", "stream.async.func", "stream.cmd.func",
                  "scf.yield", "scf.condition", "cf.br", "cf.cond_br", "cf.switch"}  # the cf ones: multi_block_region
    assert sorted(set(registered_names()) - drawn - structural) == []

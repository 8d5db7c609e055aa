"""Parsing and printing pause the cyclic garbage collector (bulk construction of acyclic IR) and
must leave it exactly as they found it, also when the input is bad."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import stream.ir as ir
from stream.ir.gc_pause import paused_gc

TEXT = "func.func @f(%a: index) -> index {\n  %0 = arith.addi %a, %a : index\n  return %0 : index\n}\n"


@pytest.fixture
def gc_state() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.parametrize("enabled", [True, False])
def test_parse_and_print_leave_the_collector_as_they_found_it(enabled: bool, gc_state: None) -> None:
    gc.enable() if enabled else gc.disable()
    module = ir.parse_module(TEXT, "t.mlir")
    assert gc.isenabled() is enabled
    ir.print_module(module)
    ir.print_module(module, generic=True)
    assert gc.isenabled() is enabled
    with pytest.raises(ir.DiagnosticError):
        ir.parse_module(TEXT.replace("%a, %a", "%a, %b"), "t.mlir")
    assert gc.isenabled() is enabled


def test_the_collector_is_off_inside_and_nested_pauses_restore_it(gc_state: None) -> None:
    gc.enable()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause found it off and leaves it off
    assert gc.isenabled()

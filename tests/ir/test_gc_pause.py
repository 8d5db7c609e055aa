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


def test_overlapping_pauses_in_two_threads_keep_it_off_until_the_last_ends(gc_state: None) -> None:
    """Thread A pauses, thread B pauses, A ends: the collector stays off until B ends too (a
    pause that restored the state it found would turn it back on under B)."""
    import threading

    gc.enable()
    a_in, b_in, a_out, b_may_end = (threading.Event() for _ in range(4))
    seen: dict[str, bool] = {}

    def a() -> None:
        with paused_gc():
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def b() -> None:
        a_in.wait(5)
        with paused_gc():
            b_in.set()
            a_out.wait(5)
            seen["after A ended"] = gc.isenabled()
            b_may_end.wait(5)

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    a_out.wait(5)
    b_may_end.set()
    for t in threads:
        t.join(5)
    assert seen == {"after A ended": False}
    assert gc.isenabled()


def test_the_pause_is_restored_when_the_block_raises(gc_state: None) -> None:
    gc.enable()
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_no_product_module_turns_the_collector_off_by_hand() -> None:
    """One helper: everything that pauses the collector goes through `paused_gc`."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    offenders = [
        str(p.relative_to(root))
        for package in ("stream", "verify", "runtime", "streamproof", "bench")
        for p in sorted((root / package).rglob("*.py"))
        if p.name != "gc_pause.py" and "gc.disable(" in p.read_text()
    ]
    assert offenders == []

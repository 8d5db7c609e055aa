"""The pass manager: records, and the cyclic garbage collector paused while a pass runs."""

from __future__ import annotations

import gc

import pytest

import stream.ir as ir
from stream.ir.core import Module
from stream.passes import PassInfo, run_pipeline

TEXT = """
util.func public @f(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  util.return %arg0 : !stream.resource<external>
}
"""


def test_the_collector_is_paused_during_a_pass_and_restored_after() -> None:
    seen: list[bool] = []

    def probe(module: Module) -> Module:
        seen.append(gc.isenabled())
        return module

    assert gc.isenabled()
    out, records = run_pipeline(ir.parse_module(TEXT, "t.mlir"), [(PassInfo("probe", probe), None)] * 2, verify="none")
    assert seen == [False, False]
    assert gc.isenabled()
    assert [r.name for r in records] == ["probe", "probe"] and records[-1].output is out


def test_the_collector_is_restored_when_a_pass_raises() -> None:
    def broken(module: Module) -> Module:
        raise RuntimeError("pass failed")

    with pytest.raises(RuntimeError, match="pass failed"):
        run_pipeline(ir.parse_module(TEXT, "t.mlir"), [(PassInfo("broken", broken), None)], verify="none")
    assert gc.isenabled()


def test_a_collector_the_caller_paused_stays_paused() -> None:
    gc.disable()
    try:
        run_pipeline(ir.parse_module(TEXT, "t.mlir"), [(PassInfo("noop", lambda m: m), None)], verify="none")
        assert not gc.isenabled()
    finally:
        gc.enable()

"""The pass manager: records, the verification hook each run is given, and the cyclic garbage
collector paused while a pass runs."""

from __future__ import annotations

import gc

import pytest

import stream.ir as ir
import stream.passes
from stream.ir.core import Module
from stream.passes import PassInfo, PassVerificationError, run_pipeline

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


def _recording_hook(calls: list[tuple[str, str]], tag: str, fail: str | None = None):  # type: ignore[no-untyped-def]
    def hook(before: Module, after: Module, pass_name: str) -> str:
        calls.append((tag, pass_name))
        if pass_name == fail:
            raise PassVerificationError(pass_name, f"{tag} report", f"{tag} rejects {pass_name}")
        return f"{tag} report"

    return hook


def test_each_run_uses_the_hook_it_is_given() -> None:
    """Two pipelines with different hooks, one run inside the other's pass (as a pass that
    compiles a callee would): each run calls only its own hook; nothing is process-wide."""
    calls: list[tuple[str, str]] = []
    inner_hook = _recording_hook(calls, "inner")
    outer_hook = _recording_hook(calls, "outer")

    def nested(module: Module) -> Module:
        out, records = run_pipeline(module, [(PassInfo("inner-pass", lambda m: m), None)], hook=inner_hook)
        assert records[0].report == "inner report"
        return out

    module = ir.parse_module(TEXT, "t.mlir")
    _, records = run_pipeline(module, [(PassInfo("outer-pass", nested), None), (PassInfo("last", lambda m: m), None)], hook=outer_hook)
    assert calls == [("inner", "inner-pass"), ("outer", "outer-pass"), ("outer", "last")]
    assert [r.report for r in records] == ["outer report", "outer report"]
    assert not hasattr(stream.passes, "set_verify_hook")


def test_final_verification_calls_the_hook_once_on_the_whole_pipeline() -> None:
    calls: list[tuple[str, str]] = []
    passes = [(PassInfo("a", lambda m: m), None), (PassInfo("b", lambda m: m), None)]
    _, records = run_pipeline(ir.parse_module(TEXT, "t.mlir"), passes, hook=_recording_hook(calls, "h"), verify="final")
    assert calls == [("h", "pipeline")]
    assert [r.report for r in records] == [None, "h report"]


def test_a_failing_hook_carries_the_records_and_without_a_hook_nothing_is_verified() -> None:
    calls: list[tuple[str, str]] = []
    passes = [(PassInfo("a", lambda m: m), None), (PassInfo("b", lambda m: m), None)]
    module = ir.parse_module(TEXT, "t.mlir")
    with pytest.raises(PassVerificationError, match="h rejects b") as caught:
        run_pipeline(module, passes, hook=_recording_hook(calls, "h", fail="b"))
    assert [r.name for r in caught.value.records] == ["a"] and caught.value.failed is not None
    _, records = run_pipeline(module, passes)  # no hook: verify defaults to "none"
    assert all(r.report is None for r in records)


@pytest.mark.parametrize("mode", ["each", "final"])
def test_verification_without_a_hook_is_refused(mode: str) -> None:
    with pytest.raises(ValueError, match="needs a verification hook"):
        run_pipeline(ir.parse_module(TEXT, "t.mlir"), [(PassInfo("a", lambda m: m), None)], verify=mode)


def test_an_unknown_verify_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="verify must be"):
        run_pipeline(ir.parse_module(TEXT, "t.mlir"), [], verify="sometimes")


def test_keep_outputs_false_leaves_records_empty_but_after_pass_sees_each_output() -> None:
    def probe(module: Module) -> Module:
        return module.replace()

    seen: list[Module] = []
    out, records = run_pipeline(ir.parse_module(TEXT, "t.mlir"), [(PassInfo("probe", probe), None)] * 2, verify="none",
                                keep_outputs=False, after_pass=lambda name, m: seen.append(m))
    assert [r.output for r in records] == [None, None]
    assert len(seen) == 2 and seen[-1] is out and seen[0] is not out

"""schedule-concurrency: waves equal IREE's on the example corpus, wave invariants on random
programs (checked by the verifier, not by the analysis that built them), options, fault
injection."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scheduling_helpers import EXAMPLES, classes, iree_stage, lower, reject, run
from strategies import RandomProgram, programs

import stream.ir as ir
from stream.analysis import resource_hazards
from stream.analysis.streamability import used_values
from stream.ir.equality import first_difference
from stream.ir.walk import functions
from stream.passes import PipelineError, parse_pipeline, run_pipeline
from stream.passes.schedule_concurrency import ScheduleConcurrencyOptions, schedule_concurrency
from verify.hook import make_hook


@pytest.mark.parametrize("example", EXAMPLES)
def test_waves_equal_iree_on_its_own_regions(example: str) -> None:
    """From IREE's stage 03, the default favor gives exactly IREE's stage 04."""
    before = iree_stage(example, "03_schedule_execution")
    text = ir.print_module(before)
    out = run(before, "schedule-concurrency")
    assert ir.print_module(before) == text, "the pass mutated its input"
    assert first_difference(out, iree_stage(example, "04_schedule_concurrency")) is None


@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("favor", ["min-peak-memory", "max-concurrency"])
def test_a_second_run_changes_nothing(example: str, favor: str) -> None:
    options = ScheduleConcurrencyOptions(favor)
    once = schedule_concurrency(run(iree_stage(example, "02_place_transfer_executions"), "schedule-execution"), options)
    assert first_difference(schedule_concurrency(once, options), once) is None


def test_options() -> None:
    ((_, options),) = parse_pipeline("schedule-concurrency{favor=max-concurrency}")
    assert options == ScheduleConcurrencyOptions("max-concurrency")
    ((_, options),) = parse_pipeline("schedule-concurrency")
    assert options.favor == "min-peak-memory"
    with pytest.raises(PipelineError, match="must be one of min-peak-memory, max-concurrency, debug"):
        parse_pipeline("schedule-concurrency{favor=fastest}")
    module = run(iree_stage("b_diamond", "02_place_transfer_executions"), "schedule-execution")
    assert schedule_concurrency(module, ScheduleConcurrencyOptions("debug")) is module


def wave_members_are_independent(module: ir.Module) -> None:
    """No op of a wave uses a value another op of the same wave defines."""
    for f in functions(module):
        for top in f.body.ops:
            for wave in top.walk():
                if wave.name != "stream.async.concurrent":
                    continue
                ops = wave.regions[0].blocks[0].ops[:-1]
                defined = {r: i for i, op in enumerate(ops) for r in op.results}
                for i, op in enumerate(ops):
                    assert all(defined.get(v, i) == i for v in used_values(op)), f"wave member {op.name} uses another member"


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(programs(), st.sampled_from(["min-peak-memory", "max-concurrency"]))
def test_random_programs_verify_under_both_favors(p: RandomProgram, favor: str) -> None:
    module = run(lower(p.text), "schedule-execution")
    out, _ = run_pipeline(module, parse_pipeline(f"schedule-concurrency{{favor={favor}}}"), hook=make_hook())
    wave_members_are_independent(out)


KEEP_TIED_SEPARATE = """
util.func public @f(%arg0: !stream.resource<transient>) -> (!stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %r:2, %t = stream.async.execute with(%arg0 as %x: !stream.resource<transient>{%c4}) -> (!stream.resource<transient>{%c4}, %arg0{%c4}) {
    %1 = stream.async.dispatch @ex::@read(%x[%c0 to %c4 for %c4]) : (!stream.resource<transient>{%c4}) -> !stream.resource<transient>{%c4}
    %2 = stream.async.dispatch @ex::@write_in_place(%x[%c0 to %c4 for %c4]) : (!stream.resource<transient>{%c4}) -> %x{%c4}
    stream.yield %1, %2 : !stream.resource<transient>{%c4}, !stream.resource<transient>{%c4}
  } => !stream.timepoint
  %w:2 = stream.timepoint.await %t => %r#0, %r#1 : !stream.resource<transient>{%c4}, !stream.resource<transient>{%c4}
  util.return %w#0, %w#1 : !stream.resource<transient>, !stream.resource<transient>
}
"""


def test_fault_injection_ssa_only_hazards_put_a_write_after_read_race_in_one_wave(monkeypatch: pytest.MonkeyPatch) -> None:
    """IREE #14889 on purpose: with no storage-hazard edges (only use-def chains, as IREE's
    analysis saw it), the reader and the in-place writer of %x share a wave; the verifier
    rejects it as a race and names the pass."""
    module = ir.parse_module(KEEP_TIED_SEPARATE, "tied.mlir")
    assert "stream.async.concurrent" not in ir.print_module(run(module, "schedule-concurrency"))
    monkeypatch.setattr(resource_hazards.HazardAnalysis, "edges", lambda self, units: [])
    broken = run(module, "schedule-concurrency")
    assert "stream.async.concurrent" in ir.print_module(broken)
    error = reject(module, "schedule-concurrency", lambda m: run(m, "schedule-concurrency"))
    assert error.pass_name == "schedule-concurrency"
    assert classes(error) & {"RACE_WRITE_AFTER_READ", "RACE_READ_AFTER_WRITE"}

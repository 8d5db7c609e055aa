"""propagate-timepoints: IREE equality, the chaining invariant, no redundant waits, random
programs, fault injection."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from scheduling_helpers import EXAMPLES, SCHEDULE, awaited_by, classes, executes, iree_stage, lower, reject, run
from strategies import RandomProgram, programs

import stream.ir as ir
from stream.ir.equality import first_difference
from stream.ir.spec import spec_of
from stream.ir.walk import functions
from stream.passes import parse_pipeline, run_pipeline
from stream.passes.propagate_timepoints import _Propagator
from verify.hook import make_hook


@pytest.mark.parametrize("example", EXAMPLES)
def test_equals_iree_from_its_own_stage_04(example: str) -> None:
    before = iree_stage(example, "04_schedule_concurrency")
    text = ir.print_module(before)
    out = run(before, "propagate-timepoints")
    assert ir.print_module(before) == text, "the pass mutated its input"
    assert first_difference(out, iree_stage(example, "06_async_final")) is None


@pytest.mark.parametrize("example", ["b_diamond", "d_inplace", "f_multidevice"])
def test_the_whole_scheduling_chain_equals_iree_where_iree_overlaps_already(example: str) -> None:
    out = run(iree_stage(example, "02_place_transfer_executions"), *SCHEDULE)
    assert first_difference(out, iree_stage(example, "06_async_final")) is None


def check_chaining(module: ir.Module) -> None:
    """The invariant: regions take un-awaited values and wait on the device for every region that
    produced one; host awaits feed only host ops; no region waits for a timepoint another of its
    waits already implies."""
    waits = awaited_by(module)
    regions = executes(module)
    produced_by = {r: op for op in regions for r in op.results[:-1]}
    for f in functions(module):
        awaited = {r for op in f.body.ops if op.name == "stream.timepoint.await" for r in op.results}
        for op in f.body.ops:
            if op.name != "stream.async.execute":
                continue
            spec = spec_of(op)
            assert spec is not None
            for capture in spec.operand_group(op, "resource_operands"):
                assert capture not in awaited, "a region captures a host-awaited value"
                if capture in produced_by:
                    assert produced_by[capture] in waits[op], "a region does not wait for the region producing its input"
            own = spec.operand_group(op, "await_timepoint")
            if own:
                direct = {r for r in regions if r.results[-1] is own[0]}
                joined = [j for j in f.body.ops if j.name == "stream.timepoint.join" and j.results[0] is own[0]]
                if joined:
                    direct = {r for r in regions if r.results[-1] in joined[0].operands}
                for r in direct:
                    assert not any(r in waits[other] for other in direct - {r}), "a redundant wait survived"


@pytest.mark.parametrize("example", EXAMPLES)
def test_chaining_invariant_on_the_examples(example: str) -> None:
    check_chaining(run(iree_stage(example, "02_place_transfer_executions"), *SCHEDULE))


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(programs())
def test_random_programs_verify_and_chain(p: RandomProgram) -> None:
    module = lower(p.text)
    out, _ = run_pipeline(module, parse_pipeline(",".join(SCHEDULE)), hook=make_hook())
    check_chaining(out)


TWO_DEVICE_CHAIN = """
util.func public @f(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r0, %t0 = stream.async.execute on(#hal.device.affinity<@dev_b>) with(%arg0 as %a: !stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16} {
    %0 = stream.async.dispatch @ex::@b(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
    %1 = stream.async.transfer %0 : !stream.resource<transient>{%c16} -> to(#hal.device.affinity<@dev_a>) !stream.resource<transient>{%c16}
    stream.yield %1 : !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %w0 = stream.timepoint.await %t0 => %r0 : !stream.resource<transient>{%c16}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev_a>) with(%w0 as %b: !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@a(%b[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %w1 = stream.timepoint.await %t1 => %r1 : !stream.resource<external>{%c16}
  util.return %w1 : !stream.resource<external>
}
"""


def test_fault_injection_a_region_that_forgets_its_producer_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drop the device-side wait: the consumer region captures the producer's result without
    waiting for it. The verifier must reject it and name the pass."""
    module = ir.parse_module(TWO_DEVICE_CHAIN, "chain.mlir")
    good = run(module, "propagate-timepoints")
    assert "await(%result_timepoint)" in ir.print_module(good)
    monkeypatch.setattr(_Propagator, "_prune", lambda self, sources: [])
    error = reject(module, "propagate-timepoints", lambda m: run(m, "propagate-timepoints"))
    assert error.pass_name == "propagate-timepoints"
    assert classes(error) & {"MISSED_WAIT", "RACE_READ_AFTER_WRITE"}


def test_fault_injection_a_host_use_without_an_await_is_a_missed_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    module = ir.parse_module(TWO_DEVICE_CHAIN, "chain.mlir")
    monkeypatch.setattr(_Propagator, "_await_for_host", lambda self, needs: ({v: self._raw(v) for v in needs}, 0))
    monkeypatch.setattr(_Propagator, "_await_leftovers", lambda self: None)
    error = reject(module, "propagate-timepoints", lambda m: run(m, "propagate-timepoints"))
    assert "MISSED_WAIT" in classes(error)

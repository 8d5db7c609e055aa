"""reuse-allocations: freed memory goes to allocations that wait for the free, and only to them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from concrete_semantics import assert_refines, infer_arg_sizes, random_inputs, run_function
from timeline_check import HappensBefore
from verifier_faults import accepted, rejection

import stream.ir as ir
from stream.analysis.liveness import allocation_uses
from stream.analysis.timepoint_coverage import TimepointCoverage
from stream.ir.core import Location, Op
from stream.ir.verifier import verify_structure
from stream.ir.walk import Function, functions
from stream.passes.automatic_reference_counting import automatic_reference_counting
from stream.passes.reuse_allocations import plan_reuses, reuse_allocations
from stream.passes.schedule_allocation import schedule_allocation

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "reuse_allocations.mlir"


def _load(name: str) -> Any:
    """A script of bench/ as a module (the independent schedule simulator and the bench DAGs)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def parse(text: str) -> ir.Module:
    return ir.parse_module(text, "test.mlir")


def golden_chunks() -> list[str]:
    return [chunk for chunk, _ in ir.split_input_file(GOLDEN.read_text())]


def _captured_allocations(f: Function) -> dict[tuple[Location, int], Op]:
    """(device op location, capture index) -> the alloca whose storage that capture is."""
    owner = {alias: u.alloca for u in allocation_uses(f.body) for alias in u.aliases}
    out: dict[tuple[Location, int], Op] = {}
    for op in f.body.ops:
        if op.name == "stream.cmd.execute":
            for i, v in enumerate(op.operands):
                if v in owner:
                    out[(op.location, i)] = owner[v]
    return out


def check_generations_ordered(before: ir.Module, after: ir.Module) -> int:
    """Whenever two allocations of `before` share storage in `after`, every device op using the
    earlier one finishes before any device op using the later one starts (independent HB
    check). Returns the number of allocations that disappeared."""
    removed = 0
    for f_before, f_after in zip(functions(before), functions(after)):
        hb = HappensBefore(f_after.body)
        execs = {op.location: op for op in f_after.body.ops if op.name == "stream.cmd.execute"}
        old, new = _captured_allocations(f_before), _captured_allocations(f_after)
        # after-allocation -> before-allocation -> device ops using it, in program order
        generations: dict[Op, dict[Op, list[Op]]] = {}
        for key, alloca in new.items():
            generations.setdefault(alloca, {}).setdefault(old[key], []).append(execs[key[0]])
        for gens in generations.values():
            ordered = sorted(gens.values(), key=lambda ops: hb.position[ops[0]])
            for i, earlier in enumerate(ordered):
                for later in ordered[i + 1 :]:
                    for a in earlier:
                        for b in later:
                            assert hb.finished_before_start(a.results[0], b), f"@{f_after.name}: reused storage is touched by two generations at once"
        removed += len(allocation_uses(f_before.body)) - len(allocation_uses(f_after.body))
    return removed


@pytest.mark.parametrize("index", range(len(golden_chunks())))
def test_golden_inputs_reuse_safely(index: int) -> None:
    module = parse(golden_chunks()[index])
    out = reuse_allocations(module)
    verify_structure(out)
    check_generations_ordered(module, out)
    for f in functions(module):
        args = random_inputs(module, f.name, infer_arg_sizes(module, f.name))
        assert [str(x) for x in run_function(module, f.name, args, "cmd")] == [str(x) for x in run_function(out, f.name, args, "cmd")]


def test_reuse_counts() -> None:
    module = parse("\n".join(golden_chunks()))
    out = reuse_allocations(module)
    counts = {f.name: sum(op.name == "stream.resource.alloca" for op in f.body.ops) for f in functions(out)}
    assert counts == {"exactReuse": 1, "largerReuse": 1, "noReuse": 4, "hostAwaitedFree": 1, "chain": 1, "chainThroughSubview": 1,
                      "sameSizeValue": 3, "smallestLargerFit": 2, "capturedAwaitedFree": 2, "gapHoldsAnotherAllocation": 3,
                      "gapWithRoom": 3}
    assert check_generations_ordered(module, out) == 10


def test_exact_chains_resolve_in_one_round() -> None:
    f = functions(parse(golden_chunks()[4]))[0]
    assert len(plan_reuses(f.body)) == 2  # both links at once: the second follows the first


def test_a_misplaced_free_is_not_handed_on() -> None:
    """A free that does not wait for every use of its storage is left alone: reusing it would turn
    the input's use-after-free into a race of the new allocation."""
    text = golden_chunks()[0].replace("%d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0)",
                                      "%d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t0)")
    assert "await(%t0) => %r0" in text
    assert plan_reuses(functions(parse(text))[0].body) == []
    assert len(plan_reuses(functions(parse(golden_chunks()[0]))[0].body)) == 1


TWO_REGIONS = """
util.func public @twoRegions(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %r0, %t0 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c256}) -> !stream.resource<external>{%c256} {
    %0 = stream.async.dispatch @ex::@f(%a[%c0 to %c256 for %c256]) : (!stream.resource<external>{%c256}) -> !stream.resource<transient>{%c256}
    %1 = stream.async.dispatch @ex::@g(%0[%c0 to %c256 for %c256]) : (!stream.resource<transient>{%c256}) -> !stream.resource<external>{%c256}
    stream.yield %1 : !stream.resource<external>{%c256}
  } => !stream.timepoint
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%r0 as %b: !stream.resource<external>{%c256}) -> !stream.resource<external>{%c256} {
    %0 = stream.async.dispatch @ex::@f(%b[%c0 to %c256 for %c256]) : (!stream.resource<external>{%c256}) -> !stream.resource<transient>{%c256}
    %1 = stream.async.dispatch @ex::@g(%0[%c0 to %c256 for %c256]) : (!stream.resource<transient>{%c256}) -> !stream.resource<external>{%c256}
    stream.yield %1 : !stream.resource<external>{%c256}
  } => !stream.timepoint
  %o = stream.timepoint.await %t1 => %r1 : !stream.resource<external>{%c256}
  util.return %o : !stream.resource<external>
}
"""


def test_second_region_reuses_the_first_slab() -> None:
    module = parse(TWO_REGIONS)
    counted = automatic_reference_counting(schedule_allocation(module))
    out = reuse_allocations(counted)
    verify_structure(out)

    def allocas(m: ir.Module) -> int:
        return sum(op.name == "stream.resource.alloca" for op in functions(m)[0].body.ops)

    # Two slabs and two results; the second slab reuses the first, the first result (freed
    # after the second region reads it) has no later allocation to go to.
    assert (allocas(counted), allocas(out)) == (4, 3)
    check_generations_ordered(counted, out)
    args = random_inputs(module, "twoRegions", infer_arg_sizes(module, "twoRegions"))
    assert_refines(module, out, "twoRegions", args)


def test_the_generation_check_is_not_vacuous() -> None:
    """An allocation that does not wait for the free must not reuse it: forcing it is caught."""
    text = golden_chunks()[2]  # @noReuse: %r1 awaits %e0, not the free %d0
    bad = text.replace("%r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%e0) => !stream.resource<transient>{%c64} => !stream.timepoint",
                       "%t1 = stream.timepoint.immediate => !stream.timepoint")
    bad = bad.replace("%r1 as %x", "%r0 as %x").replace("=> %r1 :", "=> %r0 :")
    bad = bad.replace("%d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%c64} => !stream.timepoint",
                      "%d0 = stream.timepoint.immediate => !stream.timepoint")
    with pytest.raises(AssertionError, match="two generations at once"):
        check_generations_ordered(parse(text), parse(bad))


# -- fault injection: broken variants of the pass must be rejected by the verifier ----------------

LIVE = """
util.func public @liveAllocation(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r0 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%c64} => !stream.timepoint
  %r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t1) => with(%arg1 as %b: !stream.resource<external>{%c64}, %r1 as %y: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %b[%c0], %y[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %y[%c0], %b[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r1 : !stream.resource<transient>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%d0, %d1) => !stream.timepoint
  %o:2 = stream.timepoint.await %j => %arg0, %arg1 : !stream.resource<external>{%c64}, !stream.resource<external>{%c64}
  util.return %o#0, %o#1 : !stream.resource<external>, !stream.resource<external>
}
"""


def test_fault_reusing_a_live_allocation_is_a_race(monkeypatch: pytest.MonkeyPatch) -> None:
    module = parse(LIVE)
    assert reuse_allocations(module) is not None and len(plan_reuses(functions(module)[0].body)) == 0
    accepted(module, reuse_allocations(module), "reuse-allocations")
    with monkeypatch.context() as patch:
        patch.setattr(TimepointCoverage, "host_covered", lambda self, position, t: True)  # every free looks awaited
        broken = reuse_allocations(module)
    assert len([op for op in functions(broken)[0].body.ops if op.name == "stream.resource.alloca"]) == 1
    assert rejection(module, broken, "reuse-allocations") & {"RACE_WRITE_AFTER_WRITE", "RACE_READ_AFTER_WRITE", "RACE_WRITE_AFTER_READ"}


MULTI_BLOCK = """
"util.func"() <{function_type = (index) -> (), sym_name = "f"}> ({
^bb0(%n: index):
  "cf.br"() [^bb1] : () -> ()
^bb1:
  %r, %t = "stream.resource.alloca"(%n) : (index) -> (!stream.resource<transient>, !stream.timepoint)
  %d = "stream.resource.dealloca"(%r, %n, %t) : (!stream.resource<transient>, index, !stream.timepoint) -> !stream.timepoint
  "util.return"() : () -> ()
}) : () -> ()
"""


def test_multi_block_functions_are_refused_not_skipped() -> None:
    from stream.ir.diagnostics import DiagnosticError

    with pytest.raises(DiagnosticError, match="reuse-allocations: @f has 2 blocks"):
        reuse_allocations(parse(MULTI_BLOCK))


def _unawaited_frees(n: int) -> str:
    """n allocations, none waiting for any earlier free: nothing can be reused."""
    lines = ["util.func public @f(%arg0: !stream.resource<external>) -> !stream.resource<external> {",
             "  %c0 = arith.constant 0 : index", "  %c64 = arith.constant 64 : index"]
    for i in range(n):
        lines += [
            f"  %r{i}, %t{i} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{{%c64}} => !stream.timepoint",
            f"  %e{i} = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t{i}) => with(%arg0 as %a: !stream.resource<external>{{%c64}}, "
            f"%r{i} as %x: !stream.resource<transient>{{%c64}}) {{",
            "    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}",
            "  } => !stream.timepoint",
            f"  %d{i} = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e{i}) => %r{i} : !stream.resource<transient>{{%c64}} => !stream.timepoint",
        ]
    lines += ["  util.return %arg0 : !stream.resource<external>", "}"]
    return "\n".join(lines) + "\n"


def test_each_allocation_looks_at_a_bounded_number_of_frees(monkeypatch: pytest.MonkeyPatch) -> None:
    """Candidates are the latest available frees before the allocation, at most SCAN of them:
    the pass stays linear (scanning every free of the block, later ones included, for every
    allocation was quadratic on 1k-dispatch programs)."""
    from stream.passes.reuse_allocations import SCAN

    calls = [0]
    real = TimepointCoverage.host_covered

    def counting(self, position, t):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return real(self, position, t)

    monkeypatch.setattr(TimepointCoverage, "host_covered", counting)
    n = 3 * SCAN
    assert plan_reuses(functions(parse(_unawaited_frees(n)))[0].body) == []
    assert calls[0] <= SCAN * n
    assert calls[0] >= SCAN * (n - 2 * SCAN)  # it does look (the bound is what limits it)


# -- the policy: reuse never raises the peak of live bytes -----------------------------------------


def _chunk(name: str) -> str:
    return next(c for c in golden_chunks() if f"@{name}(" in c)


def _force_every_covered_reuse(monkeypatch: pytest.MonkeyPatch, module: ir.Module) -> ir.Module:
    """The pass with the old policy: every free the allocation's await covers is handed over,
    however long the gap (the peak check always passes)."""
    from stream.passes import reuse_allocations as pass_module

    with monkeypatch.context() as patch:
        patch.setattr(pass_module._Profile, "gap_fits", lambda self, f, alloca: True)
        patch.setattr(pass_module._Profile, "subview_fits", lambda self, f, alloca, size: True)
        return reuse_allocations(module)


def _allocas(m: ir.Module) -> int:
    return sum(op.name == "stream.resource.alloca" for f in functions(m) for op in f.body.ops)


def test_no_reuse_across_a_gap_holding_another_allocation(monkeypatch: pytest.MonkeyPatch) -> None:
    """%r2 awaits the free of %r0, but %r1 is allocated in between: handing %r0 to %r2 would hold
    64 more bytes while %r1 lives. The old policy did it, and the simulated peak rose (64 -> 128)."""
    schedule = _load("bench_schedule")
    module = parse(_chunk("gapHoldsAnotherAllocation"))
    assert plan_reuses(functions(module)[0].body) == []
    old = _force_every_covered_reuse(monkeypatch, module)
    assert (_allocas(module), _allocas(old)) == (3, 2)
    assert (schedule.measure(module).peak, schedule.measure(old).peak) == (64, 128)


def test_a_reuse_across_a_gap_with_room_is_still_made() -> None:
    """The same gap under a higher peak (a 256-byte buffer used alongside %r0): holding %r0 over
    the gap stays below it, so %r2 reuses %r0, and the simulated peak is unchanged."""
    schedule = _load("bench_schedule")
    module = parse(_chunk("gapWithRoom"))
    out = reuse_allocations(module)
    assert (_allocas(module), _allocas(out)) == (4, 3)
    assert schedule.measure(out).peak == schedule.measure(module).peak == 320
    check_generations_ordered(module, out)


def test_no_subview_that_holds_a_larger_buffer_over_the_peak(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 64-byte allocation does not take a freed 128-byte buffer through a subview when the 64
    bytes it leaves unused would stay allocated at the peak: here a 128-byte staging buffer is
    allocated alongside it."""
    schedule = _load("bench_schedule")
    text = _chunk("largerReuse")
    # A second 128-byte buffer, allocated by %r1's await and used by %e1 only: the input's peak
    # is 128 + 64 (with %r1), the subview would make it 128 + 128.
    text = text.replace(
        "  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t1) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r1 as %x: !stream.resource<transient>{%c64}) {",
        "  %s, %ts = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%d0) => !stream.resource<staging>{%c128} => !stream.timepoint\n"
        "  %j1 = stream.timepoint.join max(%t1, %ts) => !stream.timepoint\n"
        "  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j1) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r1 as %x: !stream.resource<transient>{%c64}, %s as %y: !stream.resource<staging>{%c128}) {\n"
        "    stream.cmd.copy %a[%c0], %y[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<staging>{%c128}",
    )
    text = text.replace(
        "  %o = stream.timepoint.await %d1 => %arg0",
        "  %ds = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %s : !stream.resource<staging>{%c128} => !stream.timepoint\n"
        "  %j2 = stream.timepoint.join max(%d1, %ds) => !stream.timepoint\n"
        "  %o = stream.timepoint.await %j2 => %arg0",
    )
    module = parse(text)
    verify_structure(module)
    assert plan_reuses(functions(module)[0].body) == []
    old = _force_every_covered_reuse(monkeypatch, module)
    assert _allocas(old) == _allocas(module) - 1
    assert (schedule.measure(module).peak, schedule.measure(old).peak) == (192, 256)
    assert len(plan_reuses(functions(parse(_chunk("largerReuse")))[0].body)) == 1  # alone, the subview is still made


@pytest.mark.parametrize("index", range(len(golden_chunks())))
def test_golden_peaks_do_not_rise(index: int) -> None:
    """Independent check with bench/bench_schedule.py's simulator: no golden input's simulated
    peak of allocated bytes, nor its makespan, is raised by the pass."""
    schedule = _load("bench_schedule")
    module = parse(golden_chunks()[index])
    before, after = schedule.measure(module), schedule.measure(reuse_allocations(module))
    assert after.peak <= before.peak and after.makespan <= before.makespan


def test_bench_dag_keeps_its_peak_with_far_fewer_allocations() -> None:
    """The 300-dispatch bench DAG (bench/bench_vs_iree.py): the old policy's reuse chains raised
    the simulated peak several-fold (bench/RESULTS.md); now the peak and the makespan are those of
    the schedule without reuse, with under a third of its allocations."""
    schedule, bench = _load("bench_schedule"), _load("bench_vs_iree")
    from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline

    passes = list(DEFAULT_PIPELINE)
    module = parse(bench.streamproof_input(bench.dag(300, 0)))
    before, _ = run_pipeline(module, parse_pipeline(",".join(passes[: passes.index("reuse-allocations")])))
    after = reuse_allocations(before)
    a, b = schedule.measure(before), schedule.measure(after)
    assert (b.peak, b.makespan) == (a.peak, a.makespan)
    assert b.allocations * 3 < a.allocations

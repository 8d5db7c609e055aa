"""elide-timepoints: only redundant waits disappear, and none survive."""

from __future__ import annotations

from pathlib import Path

import pytest
from timeline_check import WAITING_OPS, HappensBefore, check_no_redundant_wait
from verifier_faults import accepted, rejection

import stream.ir as ir
from stream.analysis.timepoint_coverage import TimepointCoverage
from stream.ir.core import Block, Op, Value
from stream.ir.equality import first_difference
from stream.ir.verifier import verify_structure
from stream.ir.walk import functions
from stream.passes.automatic_reference_counting import automatic_reference_counting
from stream.passes.elide_timepoints import elide_timepoints
from stream.passes.reuse_allocations import reuse_allocations
from stream.passes.schedule_allocation import schedule_allocation

ROOT = Path(__file__).resolve().parents[2]
IREE = ROOT / "tests" / "data" / "iree"
EXAMPLES = ("b_diamond", "d_inplace", "f_multidevice", "i_multidevice_overlap")
GOLDEN = ROOT / "tests" / "golden" / "elide_timepoints.mlir"


def parse(text: str) -> ir.Module:
    return ir.parse_module(text, "test.mlir")


def golden_chunks() -> list[str]:
    return [chunk for chunk, _ in ir.split_input_file(GOLDEN.read_text())]


def _timepoints(block: Block) -> list[tuple[Op, Value]]:
    return [(op, r) for op in block.ops if op.name in WAITING_OPS for r in op.results if str(r.type) == "!stream.timepoint"]


def check_same_order(before: ir.Module, after: ir.Module) -> None:
    """For every device op and every device timepoint, "finished before it starts" is the same
    before and after the pass. The pass keeps every device op, in order, so they pair up by
    position."""
    for f_before, f_after in zip(functions(before), functions(after)):
        hb0, hb1 = HappensBefore(f_before.body), HappensBefore(f_after.body)
        ops0 = [op for op in f_before.body.ops if op.name in WAITING_OPS]
        ops1 = [op for op in f_after.body.ops if op.name in WAITING_OPS]
        assert [op.name for op in ops0] == [op.name for op in ops1]
        tps0, tps1 = _timepoints(f_before.body), _timepoints(f_after.body)
        for op0, op1 in zip(ops0, ops1):
            for (producer, t0), (_, t1) in zip(tps0, tps1):
                expected = hb0.finished_before_start(t0, op0)
                got = hb1.finished_before_start(t1, op1)
                assert expected == got, f"@{f_after.name}: {op0.name} at {op0.location} {'lost' if expected else 'gained'} a wait on {producer.name} at {producer.location}"


@pytest.mark.parametrize("index", range(len(golden_chunks())))
def test_golden_inputs_keep_order_and_lose_redundancy(index: int) -> None:
    module = parse(golden_chunks()[index])
    out = elide_timepoints(module)
    verify_structure(out)
    check_same_order(module, out)
    check_no_redundant_wait(out)
    assert ir.print_module(elide_timepoints(out)) == ir.print_module(out)  # a fixed point


@pytest.mark.parametrize("example", EXAMPLES)
def test_iree_reuse_stage(example: str) -> None:
    """On IREE's own stage-09 output our elision gives IREE's stage 10, or fewer waits."""
    module = parse((IREE / example / "09_reuse_allocations.mlir").read_text())
    reference = parse((IREE / example / "10_elide_timepoints.mlir").read_text())
    out = elide_timepoints(module)
    check_same_order(module, out)
    check_no_redundant_wait(out)
    for ours, theirs in zip(functions(out), functions(reference)):
        difference = first_difference(ir.Module((ours.op,)), ir.Module((theirs.op,)))
        if example == "i_multidevice_overlap":
            # IREE's ARC made one free wait for the other and its stage 10 joins both frees;
            # we wait for the last free only.
            assert len(ours.body.ops) == len(theirs.body.ops) - 1
        else:
            assert difference is None, difference


@pytest.mark.parametrize("example", EXAMPLES)
def test_whole_cmd_pipeline_on_iree_inputs(example: str) -> None:
    module = parse((IREE / example / "06_async_final.mlir").read_text())
    counted = automatic_reference_counting(schedule_allocation(module))
    out = elide_timepoints(reuse_allocations(counted))
    verify_structure(out)
    check_same_order(counted, out)
    check_no_redundant_wait(out)
    reference = parse((IREE / example / "10_elide_timepoints.mlir").read_text())

    def count(m: ir.Module, name: str) -> int:
        return sum(op.name == name for f in functions(m) for op in f.body.ops)

    for name in ("stream.timepoint.await", "stream.timepoint.join", "stream.resource.alloca", "stream.resource.dealloca", "stream.cmd.execute"):
        assert count(out, name) == count(reference, name), name


def test_union_at_select_would_drop_a_needed_wait() -> None:
    """The golden @selectIntersection keeps `%e0` next to `select(%c, %child, %other)`: with the
    union, `%child`'s coverage would wrongly excuse it. The HB check confirms it is needed."""
    module = parse((ROOT / "tests" / "golden" / "elide_timepoints_select.mlir").read_text())
    out = elide_timepoints(module)
    f = functions(out)[0]
    hb = HappensBefore(f.body)
    e0 = next(op for op in f.body.ops if op.name == "stream.cmd.execute").results[0]
    other = [op for op in f.body.ops if op.name == "stream.cmd.execute"][2].results[0]
    assert not hb.reached_before(e0, other)  # on the false side nothing waited for %e0
    e1 = [op for op in f.body.ops if op.name == "stream.cmd.execute"][4]
    assert hb.finished_before_start(e0, e1)


def test_dropping_a_needed_wait_is_caught_by_the_order_check() -> None:
    module = parse(golden_chunks()[1])
    bad = parse(golden_chunks()[1].replace("await(%e0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %arg1", "with(%arg0 as %a: !stream.resource<external>{%c64}, %arg1"))
    with pytest.raises(AssertionError, match="lost a wait"):
        check_same_order(module, bad)


# -- fault injection: broken variants of the pass must be rejected by the verifier ----------------


def test_fault_dropping_an_uncovered_wait_is_a_race(monkeypatch: pytest.MonkeyPatch) -> None:
    module = parse(golden_chunks()[1])  # @chainedAwaits: %e2 must wait for %e1's copy into %arg1
    accepted(module, elide_timepoints(module), "elide-timepoints")
    text = golden_chunks()[1].replace("%j1 = stream.timepoint.join max(%j0, %e1)", "%j1 = stream.timepoint.join max(%j0, %e1, %e0)")
    module = parse(text.replace("await(%e0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %arg1", "with(%arg0 as %a: !stream.resource<external>{%c64}, %arg1"))
    roots = TimepointCoverage.roots
    with monkeypatch.context() as patch:
        # Keep only the first candidate of every wait: drops waits nothing covers.
        patch.setattr(TimepointCoverage, "roots", lambda self, candidates, position=None, waited=(): roots(self, candidates, position, waited)[:1])
        broken = elide_timepoints(module)
    assert rejection(module, broken, "elide-timepoints") & {"RACE_WRITE_AFTER_WRITE", "RACE_READ_AFTER_WRITE", "RACE_WRITE_AFTER_READ", "MISSED_WAIT"}


CONTROL_FLOW = ROOT / "tests" / "golden" / "elide_timepoints_control_flow.mlir"


def control_flow_case(name: str) -> ir.Module:
    (chunk,) = [c for c, _ in ir.split_input_file(CONTROL_FLOW.read_text()) if f"@{name}(" in c]
    return parse(chunk)


@pytest.mark.parametrize("name", ["dominatedBlock", "joinPointKeepsWait", "hostWaitInDominator", "loopBody", "loopIsNoHostWait",
                                  "loopCarriedCoverage"])
def test_control_flow_outputs_are_proved(name: str) -> None:
    module = control_flow_case(name)
    accepted(module, elide_timepoints(module), "elide-timepoints")


def test_coverage_at_a_join_point_is_only_what_every_path_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    """Taking every earlier block as run (the union over the paths, not the intersection) drops
    the free's wait for the fill in ^bb3, since the host awaited the fill in ^bb1; on the path
    through ^bb2 nothing did."""
    import stream.passes.elide_timepoints as elide

    module = control_flow_case("joinPointKeepsWait")
    monkeypatch.setattr(elide, "dominators", lambda region: [set(range(i + 1)) for i in range(len(region.blocks))])
    broken = elide_timepoints(module)
    assert rejection(module, broken, "elide-timepoints") & {"USE_AFTER_FREE", "RACE_WRITE_AFTER_WRITE", "MISSED_WAIT"}


def test_a_loop_using_an_awaited_value_is_no_host_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Taken as a host consumer of the await (as any other op using its result would be), the
    `scf.for` would let the free drop its wait for the fill; with zero trips nothing waited."""
    import stream.passes.elide_timepoints as elide

    module = control_flow_case("loopIsNoHostWait")
    monkeypatch.setattr(elide, "_control", lambda op: op.dialect == "cf" or op.name == "scf.yield")
    broken = elide_timepoints(module)
    assert rejection(module, broken, "elide-timepoints")


def test_a_carried_timepoint_covers_only_what_every_iteration_passes_on() -> None:
    """The copy's wait for %bt is dropped only because every iteration passes on a timepoint
    covering %bt (the copy itself). Passing on the first alloca's timepoint instead breaks the
    induction: from the second iteration on %t does not cover %bt, and the join stays."""
    module = control_flow_case("loopCarriedCoverage")
    out = elide_timepoints(module)
    accepted(module, out, "elide-timepoints")
    assert "stream.timepoint.join" not in ir.print_module(out)
    text = ir.print_module(module).replace("scf.yield %copy : !stream.timepoint", "scf.yield %at : !stream.timepoint")
    assert "scf.yield %at" in text
    broken_induction = parse(text)
    out = elide_timepoints(broken_induction)
    accepted(broken_induction, out, "elide-timepoints")
    assert "stream.timepoint.join max(%t, %bt)" in ir.print_module(out)

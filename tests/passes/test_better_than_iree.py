"""Where IREE 3.13's Stream passes are weak, the whole pipeline does better, shown on the final
(cmd-level) schedule next to IREE's own final stage (`10_elide_timepoints`) for the flow-level
versions of its example programs (`bench/programs/`, written for streamproof):

* independent work of different devices goes in separate regions, so the devices overlap
  (IREE makes device_a's independent dispatch wait for device_b in `i_multidevice_overlap`);
* a borrowed input (an import without `consume`) is never written (IREE writes `%cache` and
  `%dst` in `d_inplace`, its #16168);
* host awaits count as coverage (IREE #9747): a region issued after the host waited for a
  timepoint does not wait for it again on the device;
* no wait that another awaited timepoint covers survives, on these programs and on random ones.

Coverage at alternatives (the intersection at `arith.select`, where IREE takes the union) cannot
come from a flow program; it is shown on cmd-level input in `test_timepoint_coverage.py`
(`test_select_takes_the_intersection`), `test_elide_timepoints.py`
(`test_union_at_select_would_drop_a_needed_wait`) and `tests/golden/elide_timepoints_select.mlir`.
The orders below are decided by `timeline_check.HappensBefore`, a naive search independent of
the passes' coverage analysis and of the verifier.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from timeline_check import HappensBefore, check_no_redundant_wait

import stream.ir as ir
from stream.ir.attributes import UnitAttr
from stream.ir.core import Module, Op, Value
from stream.ir.spec import spec_of, view
from stream.ir.walk import functions
from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline
from verify.api import verify_module
from verify.hook import make_hook

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = {"b_diamond": "diamond", "d_inplace": "inplace", "f_multidevice": "multidevice", "i_multidevice_overlap": "overlap"}




def compiled(example: str) -> Module:
    path = ROOT / "bench" / "programs" / f"{PROGRAMS[example]}.mlir"
    out, records = run_pipeline(ir.parse_module(path.read_text(), str(path)), parse_pipeline(",".join(DEFAULT_PIPELINE)), hook=make_hook())
    assert records[-1].report is not None and records[-1].report.ok
    return out


def iree_final(example: str) -> Module:
    path = ROOT / "tests" / "data" / "iree" / example / "10_elide_timepoints.mlir"
    return ir.parse_module(path.read_text(), str(path))


def overlapping_pairs(module: Module) -> tuple[int, int]:
    """(pairs of regions on different devices with no order between them, all such pairs)."""
    free = total = 0
    for f in functions(module):
        hb = HappensBefore(f.body)
        regions = [op for op in f.body.ops if op.name == "stream.cmd.execute"]
        for i, a in enumerate(regions):
            for b in regions[i + 1 :]:
                if str(a.properties.get("affinity")) == str(b.properties.get("affinity")):
                    continue
                total += 1
                free += not (hb.finished_before_start(a.results[0], b) or hb.finished_before_start(b.results[0], a))
    return free, total


def test_independent_device_work_overlaps_where_iree_serializes_it() -> None:
    ours, theirs = overlapping_pairs(compiled("i_multidevice_overlap")), overlapping_pairs(iree_final("i_multidevice_overlap"))
    assert theirs == (0, 1)  # IREE: device_a's only region waits for device_b's
    assert ours[0] >= 1, ours  # ours: device_a's tanh(x @ wa) runs while device_b works

    # And it is the independent dispatch that overlaps: its region waits for nothing on device_b.
    f = functions(compiled("i_multidevice_overlap"))[0]
    hb = HappensBefore(f.body)
    regions = [op for op in f.body.ops if op.name == "stream.cmd.execute"]
    on_b = [r for r in regions if "device_b" in str(r.properties.get("affinity"))]
    independent = [r for r in regions if "device_a" in str(r.properties.get("affinity"))
                   and any(o.name == "stream.cmd.dispatch" for o in r.walk())
                   and not any(hb.finished_before_start(b.results[0], r) for b in on_b)]
    assert independent, "every device_a dispatch waits for device_b"


def test_dependent_multidevice_work_stays_ordered() -> None:
    # f_multidevice has no independent work: nothing may overlap (a sanity check of the count).
    assert overlapping_pairs(compiled("f_multidevice"))[0] == 0


def borrowed_writes(module: Module) -> list[str]:
    """The cmd ops that write storage of an import without `consume` (found structurally: through
    awaits, subviews and region captures), independently of the verifier."""
    found = []
    for f in functions(module):
        borrowed: set[Value] = set()
        for op in f.body.ops:
            if op.name == "stream.tensor.import" and not isinstance(op.properties.get("consume"), UnitAttr):
                borrowed.add(op.results[0])
            elif op.name in ("stream.timepoint.await", "stream.resource.subview"):
                spec = spec_of(op)
                assert spec is not None
                for i, r in enumerate(op.results):
                    tied = spec.tied_operand(op, i)
                    if tied is not None and op.operands[tied] in borrowed:
                        borrowed.add(r)
            elif op.name == "stream.cmd.execute":
                body = op.regions[0].blocks[0]
                captured = {arg for arg, v in zip(body.arguments, view(op).resource_operands) if v in borrowed}
                found += [f"@{f.name}: {inner.name} at {inner.location}" for inner in op.walk() if _writes(inner) & captured]
    return found


def _writes(op: Op) -> set[Value]:
    if op.name == "stream.cmd.dispatch":
        spec = spec_of(op)
        assert spec is not None
        modes = [int(str(a).split(" ")[0]) for a in op.properties["resource_accesses"].elements]  # type: ignore[attr-defined]
        return {v for v, m in zip(spec.operand_group(op, "resources"), modes) if m & 2}
    if op.name in ("stream.cmd.copy", "stream.cmd.fill"):
        spec = spec_of(op)
        assert spec is not None
        return set(spec.operand_group(op, "target"))
    return set()


def test_a_borrowed_input_is_never_written_where_iree_writes_it() -> None:
    theirs, ours = iree_final("d_inplace"), compiled("d_inplace")
    assert len(borrowed_writes(theirs)) >= 3, borrowed_writes(theirs)  # %cache twice, %dst once
    assert "BORROWED_INPUT_MUTATED" in {v.cls for v in verify_module(theirs).errors}
    assert borrowed_writes(ours) == []
    report = verify_module(ours)
    assert report.ok, report.status
    # The borrowed inputs are read (so the check above looked at real accesses).
    assert any(op.name == "stream.tensor.import" and op.properties.get("consume") is None for f in functions(ours) for op in f.body.ops)


HOST_THEN_DEVICE = """
func.func @main(%x: tensor<4x4xf32>) -> (f32, tensor<4x4xf32>) {
  %c1 = arith.constant 1 : index
  %y = flow.dispatch @relu(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %v = flow.tensor.load %y[%c1, %c1] : tensor<4x4xf32>
  %s = flow.tensor.splat %v : tensor<4x4xf32>
  %z = flow.dispatch @add(%y, %s) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %v, %z : f32, tensor<4x4xf32>
}
"""


def test_a_host_await_counts_as_coverage() -> None:
    """The host waits for the first region to read %v. The free of the staging buffer it read
    is issued after that wait: before elide-timepoints it also waits for the region on the
    device, after it, it does not (the host await already orders them: IREE #9747, whose
    ElideTimepoints ignores host waits), and the free stays ordered after the region. The second
    region never waits for the first on the device (propagate-timepoints already knew the host
    had it), yet runs after it."""
    module = ir.parse_module(HOST_THEN_DEVICE, "host.mlir")
    before, _ = run_pipeline(module, parse_pipeline(",".join(DEFAULT_PIPELINE[:-1])), hook=make_hook())
    after, records = run_pipeline(before, parse_pipeline("elide-timepoints"), hook=make_hook())
    assert records[-1].report is not None and records[-1].report.ok

    def waits(m: Module) -> list[tuple[bool, bool]]:
        """(waits on the device, ordered at all) for the staging free and the second region,
        both against the first region."""
        f = functions(m)[0]
        hb, device_only = HappensBefore(f.body), HappensBefore(f.body)
        device_only.host_waits = []
        first, second = [op for op in f.body.ops if op.name == "stream.cmd.execute"]
        (free,) = [op for op in f.body.ops if op.name == "stream.resource.dealloca" and "staging" in str(op.operands[0].type)]
        return [(device_only.finished_before_start(first.results[0], op), hb.finished_before_start(first.results[0], op)) for op in (free, second)]

    assert waits(before) == [(True, True), (False, True)]
    assert waits(after) == [(False, True), (False, True)]


@pytest.mark.parametrize("example", sorted(PROGRAMS))
def test_no_covered_wait_survives(example: str) -> None:
    check_no_redundant_wait(compiled(example))

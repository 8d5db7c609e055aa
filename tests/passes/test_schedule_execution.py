"""schedule-execution: regions per device, awaits for host uses, IREE comparison, overlap,
diagnostics, fault injection, and end-to-end runs of flow-level programs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scheduling_helpers import (
    EXAMPLES,
    SCHEDULE,
    awaited_by,
    classes,
    dispatch_entries,
    executes,
    iree_stage,
    lower,
    reject,
    run,
)

import stream.ir as ir
from runtime.api import run_module
from runtime.reference import run_reference
from stream.analysis.streamability import is_streamable
from stream.ir.diagnostics import DiagnosticError
from stream.ir.equality import first_difference
from stream.ir.spec import affinity_of
from stream.ir.verifier import verify_structure
from stream.ir.walk import functions
from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline
from verify.hook import make_hook


@pytest.mark.parametrize("example", EXAMPLES)
def test_iree_examples_are_fully_scheduled(example: str) -> None:
    before = iree_stage(example, "02_place_transfer_executions")
    text = ir.print_module(before)
    out = run(before, "schedule-execution")
    assert ir.print_module(before) == text, "the pass mutated its input"
    verify_structure(out)
    for f in functions(out):
        assert not any(is_streamable(op) for op in f.body.ops), "a streamable op was left outside every region"
        for region in executes(out):
            for inner in region.regions[0].blocks[0].ops:
                assert affinity_of(inner) in (None, region.properties.get("affinity"))


@pytest.mark.parametrize("example", ["b_diamond", "d_inplace"])
def test_single_device_schedules_equal_iree(example: str) -> None:
    """On one device the regions, their captures, ties and awaits are IREE 3.13's (stage 03)."""
    out = run(iree_stage(example, "02_place_transfer_executions"), "schedule-execution")
    assert first_difference(out, iree_stage(example, "03_schedule_execution")) is None


def test_devices_overlap_where_iree_serializes_them() -> None:
    """i_multidevice_overlap: IREE 3.13 puts device_a's independent dispatch_0 in the region that
    waits for device_b. Here no device_a region holding dispatch_0 waits for device_b, and the
    region that needs device_b's result waits for it on the device, not on the host."""
    ours = run(iree_stage("i_multidevice_overlap", "02_place_transfer_executions"), *SCHEDULE)
    theirs = iree_stage("i_multidevice_overlap", "06_async_final")

    def dispatch0_waits_for_device_b(module: ir.Module) -> bool:
        waits = awaited_by(module)
        (holder,) = [r for r in waits if any("dispatch_0" in e for e in dispatch_entries(r))]
        return any("device_b" in str(w.properties.get("affinity")) for w in waits[holder])

    assert dispatch0_waits_for_device_b(theirs)
    assert not dispatch0_waits_for_device_b(ours)
    regions = executes(ours)
    assert len(regions) == 3
    (last,) = [r for r in regions if any("dispatch_2" in e for e in dispatch_entries(r))]
    assert {str(w.properties.get("affinity")) for w in awaited_by(ours)[last]} == {
        "#hal.device.affinity<@device_a>",
        "#hal.device.affinity<@device_b>",
    }


MULTI_BLOCK = """
util.func public @f(%arg0: !stream.resource<external>, %c: i1) -> !stream.resource<external> {
  cf.cond_br %c, ^bb1, ^bb1
^bb1:
  util.return %arg0 : !stream.resource<external>
}
"""

# scf.for and scf.if are scheduled (tests/passes/test_structured_control_flow.py); other scf ops
# are refused.
SCF = """
util.func public @f(%arg0: !stream.resource<external>, %c: i1) -> !stream.resource<external> {
  "scf.execute_region"() ({
    "scf.yield"() : () -> ()
  }) : () -> ()
  util.return %arg0 : !stream.resource<external>
}
"""


@pytest.mark.parametrize("pass_name", SCHEDULE)
@pytest.mark.parametrize(("text", "message"), [(MULTI_BLOCK, "has 2 blocks"), (SCF, "'scf.execute_region' in @f is not supported")])
def test_control_flow_is_refused_with_a_diagnostic(pass_name: str, text: str, message: str) -> None:
    try:
        module = ir.parse_module(text, "cf.mlir")
    except DiagnosticError:  # pragma: no cover - depends on the parser knowing cf.cond_br
        module = ir.parse_module(text.replace("cf.cond_br %c, ^bb1, ^bb1", '"cf.br"()[^bb1] : () -> ()'), "cf.mlir")
    with pytest.raises(DiagnosticError) as e:
        run(module, pass_name)
    assert message in str(e.value) and pass_name in str(e.value)
    assert str(e.value).startswith("cf.mlir:")


def drop_host_await(module: ir.Module) -> ir.Module:
    """A broken schedule-execution: the region result reaches the host without an await."""
    out = run(module, "schedule-execution")
    f = functions(out)[0]
    ops = list(f.body.ops)
    (i, await_op) = next((i, op) for i, op in enumerate(ops) if op.name == "stream.timepoint.await")
    replace = dict(zip(await_op.results, await_op.operands))
    from stream.analysis.region_outlining import remap_op

    body = tuple(remap_op(op, replace) for j, op in enumerate(ops) if j != i)
    return ir.Module(tuple(f.with_body(body).op if o is f.op else o for o in out.ops), out.attributes, out.sym_name, out.aliases)


def test_fault_injection_missing_host_await_is_a_missed_wait() -> None:
    module = iree_stage("b_diamond", "02_place_transfer_executions")
    error = reject(module, "schedule-execution", drop_host_await)
    assert error.pass_name == "schedule-execution"
    assert "MISSED_WAIT" in classes(error)
    assert "introduced by: schedule-execution" in str(error)


# Flow-level versions of the shared IREE example programs (written for streamproof, not copied).
FLOW_PROGRAMS = {
    "diamond": """
func.func @diamond(%x: tensor<16x16xf32>, %w0: tensor<16x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %a = flow.dispatch @matmul(%x, %w0) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %b = flow.dispatch @matmul(%x, %w1) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %ra = flow.dispatch @relu(%a) : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %tb = flow.dispatch @tanh(%b) : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = flow.dispatch @matmul(%tb, %w2) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %d = flow.dispatch @add(%ra, %c) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %d : tensor<16x16xf32>
}
""",
    "overlap": """
func.func @overlap(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a0 = flow.dispatch @matmul(%x, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %xb = flow.tensor.transfer %x : tensor<8x8xf32> to #hal.device.affinity<@dev1>
  %yb = flow.tensor.transfer %y : tensor<8x8xf32> to #hal.device.affinity<@dev1>
  %b0 = flow.dispatch @matmul(%xb, %yb) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %ba = flow.tensor.transfer %b0 : tensor<8x8xf32> to #hal.device.affinity<@dev0>
  %out = flow.dispatch @add(%a0, %ba) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %out : tensor<8x8xf32>
}
""",
    "inplace": """
func.func @inplace(%acc: tensor<8x8xf32> {iree.abi.consume}, %x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %s = flow.dispatch @tanh(%x) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = flow.dispatch @add(%acc, %s) : (tensor<8x8xf32>, tensor<8x8xf32>) -> %acc
  %t = flow.dispatch @relu(%x) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r, %t : tensor<8x8xf32>, tensor<8x8xf32>
}
""",
}


@pytest.mark.parametrize("name", sorted(FLOW_PROGRAMS))
def test_flow_programs_compile_verified_and_run_race_free(name: str) -> None:
    """The whole pipeline, every pass verified; then the chaos driver (random delays and order
    among ready work) with the race detector must reproduce the reference interpreter."""
    text = FLOW_PROGRAMS[name]
    module = ir.parse_module(text, f"{name}.mlir")
    compiled, records = run_pipeline(module, parse_pipeline(",".join(DEFAULT_PIPELINE)), hook=make_hook())
    assert [r.name for r in records] == list(DEFAULT_PIPELINE)
    f = functions(module)[0]
    rng = np.random.default_rng(7)
    args = [rng.standard_normal(t.shape).astype(np.float32) for t in f.type.inputs]  # type: ignore[attr-defined]
    expected = run_reference(module, [a.copy() for a in args], f.name)
    for seed in range(3):
        result = run_module(compiled, [a.copy() for a in args], driver="chaos", seed=seed, check_races=True)
        assert result.errors == [], result.errors
        for got, want in zip(result.results, expected):
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_flow_overlap_program_runs_devices_concurrently() -> None:
    """In the scheduled overlap program, dev0's independent matmul does not wait for dev1."""
    scheduled = run(lower(FLOW_PROGRAMS["overlap"]), *SCHEDULE)
    waits = awaited_by(scheduled)
    (first,) = [r for r in waits if dispatch_entries(r) == {"matmul"} and "dev0" in str(r.properties.get("affinity"))]
    assert waits[first] == set()


def test_cli_reports_refused_control_flow_with_exit_code_2(tmp_path: Path) -> None:
    source = tmp_path / "multi_block.mlir"
    source.write_text(MULTI_BLOCK.replace("cf.cond_br %c, ^bb1, ^bb1", '"cf.br"()[^bb1] : () -> ()'))
    proc = subprocess.run(
        [sys.executable, "-m", "streamproof", "compile", str(source), "--pass-pipeline=schedule-execution", "--no-verify"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "error: schedule-execution: @f has 2 blocks" in proc.stderr
    assert "Traceback" not in proc.stderr

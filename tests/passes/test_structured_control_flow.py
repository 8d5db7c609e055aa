"""Input-level `scf.for` / `scf.if` through the whole pipeline, every pass proved.

The programs in `tests/data/input_control_flow/` are the shapes the control-flow issue names: a
decode loop writing a KV cache in place, a recurrence reading a weight in every step, a branch
on a value read back from the device, a loop whose body runs on two devices, and a loop inside
a branch with a branch inside its body. Each is compiled with the verification hook (every
pass proved and refinement-checked), then run under every driver with the race detector and
compared with the reference interpreter, for trip counts 0, 1 and 3. `input_loop_programs()`
draws more of the same kind at random.

Mutation tests check that what the passes had to add is needed: without the timepoint a loop
carries, the copy before an in-place update in a loop body, or the wait before a free after a
branch, the verifier reports the hazard.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from input_loop_programs import input_loop_programs
from pipeline_helpers import compile_proved
from strategies import RandomProgram

import stream.ir as ir
from runtime.api import run_module
from runtime.reference import run_reference
from stream.ir.diagnostics import DiagnosticError
from stream.passes import DEFAULT_PIPELINE, PassVerificationError, parse_pipeline, run_pipeline
from verify import verify_module
from verify.hook import make_hook

DATA = Path(__file__).resolve().parents[1] / "data" / "input_control_flow"
PIPELINE = parse_pipeline(",".join(DEFAULT_PIPELINE))
DRIVERS = [("sync", 0), ("task", 0), ("chaos", 3)]


def _tensor(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# name -> (function, inputs for a trip count n)
PROGRAMS = {
    "kv_decode": ("decode", lambda n: [np.zeros((16, 64), np.float32), _tensor((4, 32), 1), _tensor((32, 64), 2) * 0.1, n]),
    "recurrence": ("recur", lambda n: [_tensor((4, 8), 3), _tensor((8, 8), 4) * 0.3, n]),
    "two_device_loop": ("ping", lambda n: [_tensor((8, 8), 5), _tensor((8, 8), 6) * 0.3, n]),
    "loop_in_branch": ("nest", lambda n: [np.abs(_tensor((2, 4), 7)), n]),
    "branch_on_device_value": ("pick", lambda n: [_tensor((4,), 8) * (1 if n % 2 else -1), np.abs(_tensor((4,), 9)) * (1 if n % 2 else -1)]),
}


def _compile(name: str) -> tuple[ir.Module, ir.Module]:
    source = ir.parse_module((DATA / f"{name}.mlir").read_text(), f"{name}.mlir")
    compiled, records = run_pipeline(source, PIPELINE, hook=make_hook())
    assert [r.name for r in records] == list(DEFAULT_PIPELINE)
    assert all(r.report is not None and r.report.ok for r in records), [(r.name, r.report.status) for r in records if r.report]
    return source, compiled


@pytest.fixture(scope="module")
def compiled() -> dict[str, tuple[ir.Module, ir.Module]]:
    return {name: _compile(name) for name in PROGRAMS}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_pass_is_proved_and_the_result_is_cmd_level(name: str, compiled: dict[str, tuple[ir.Module, ir.Module]]) -> None:
    text = ir.print_module(compiled[name][1])
    assert "stream.cmd.execute" in text and "stream.async." not in text and "flow." not in text
    assert verify_module(compiled[name][1], file=name, smt="full").status == "proved"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("trips", [0, 1, 3])
@pytest.mark.parametrize(("driver", "seed"), DRIVERS)
def test_runs_like_the_reference(name: str, trips: int, driver: str, seed: int, compiled: dict[str, tuple[ir.Module, ir.Module]]) -> None:
    source, module = compiled[name]
    function, inputs = PROGRAMS[name]
    expected = run_reference(source, inputs(trips), function)
    got = run_module(module, inputs(trips), function=function, driver=driver, seed=seed, check_races=True)
    assert not [f for f in got.findings if f.severity != "warning"], got.findings
    assert len(got.results) == len(expected)
    for g, e in zip(got.results, expected):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-5, atol=1e-6)


def test_a_loop_carries_each_resource_with_a_timepoint(compiled: dict[str, tuple[ir.Module, ir.Module]]) -> None:
    text = ir.print_module(compiled["recurrence"][1])
    # The carried state and its timepoint; the next iteration's region waits on the device for
    # the carried timepoint, not the host (no host await inside the body).
    loop = re.search(r"scf\.for .* iter_args\((%\w+) = %\w+, (%\w+) = %\w+\) -> \(!stream\.resource<\w+>, !stream\.timepoint\)", text)
    assert loop is not None, text
    body = text[loop.end():text.index("scf.yield", loop.end())]
    assert f"await({loop.group(2)})" in body
    assert "stream.timepoint.await" not in body


def test_a_branch_on_a_device_value_reads_it_back_before_the_branch(compiled: dict[str, tuple[ir.Module, ir.Module]]) -> None:
    text = ir.print_module(compiled["branch_on_device_value"][1])
    before = text[: text.index("scf.if")]
    # The condition comes from a host load of a staging copy, after a host await.
    assert re.search(r"stream\.timepoint\.await .*!stream\.resource<staging>", before)
    assert "stream.resource.load" in before


def test_a_kv_cache_update_in_a_loop_copies_the_carried_cache(compiled: dict[str, tuple[ir.Module, ir.Module]]) -> None:
    # The carried cache is updated in place: a copy of the iteration's incoming cache first
    # (a region argument is never written in place), in every iteration.
    text = ir.print_module(compiled["kv_decode"][1])
    body = text[text.index("scf.for"):text.index("scf.yield")]
    assert "stream.cmd.copy" in body


def test_a_dynamically_shaped_carried_tensor_is_refused() -> None:
    text = """
func.func @f(%x: tensor<?xf32>, %d: index, %n: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %y = flow.dispatch @relu(%x) : (tensor<?xf32>{%d}) -> tensor<?xf32>{%d}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %y) -> (tensor<?xf32>) {
    scf.yield %a : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
"""
    with pytest.raises(DiagnosticError, match=r"carries a dynamically shaped tensor"):
        run_pipeline(ir.parse_module(text, "dyn.mlir"), parse_pipeline("convert-to-stream"), verify="none")


# -- mutations: what the passes add is needed -------------------------------------------------------
def _final_text(name: str, compiled: dict[str, tuple[ir.Module, ir.Module]]) -> str:
    return ir.print_module(compiled[name][1])


def _status(text: str) -> tuple[str, list[str]]:
    report = verify_module(ir.parse_module(text, "mutant.mlir"), file="mutant.mlir")
    return report.status, sorted(report.classes)


def test_yielding_no_timepoint_for_the_carried_state_is_a_missed_wait(compiled: dict[str, tuple[ir.Module, ir.Module]]) -> None:
    # The body passes on an immediate instead of the timepoint covering the state it yields:
    # the next iteration (and the export after the loop) would read it before it is written.
    text = _final_text("recurrence", compiled)
    found = re.search(r"\n( *)scf\.yield (%\w+), (%\w+) :", text)
    assert found is not None, text
    indent, state, _timepoint = found.groups()
    mutant = (text[: found.start()] + f"\n{indent}%mutant = stream.timepoint.immediate => !stream.timepoint"
              + f"\n{indent}scf.yield {state}, %mutant :" + text[found.end():])
    status, classes = _status(mutant)
    assert status == "violated" and "MISSED_WAIT" in classes, (status, classes)


def test_dropping_the_wait_before_a_free_after_a_branch_is_caught(compiled: dict[str, tuple[ir.Module, ir.Module]]) -> None:
    text = _final_text("branch_on_device_value", compiled)
    after = text.index("scf.if")
    free = re.compile(r"stream\.resource\.dealloca on\((#hal\.device\.affinity<@dev0>)\) await\(%r#1\) => ")
    assert free.search(text, after), text[after:]
    mutant = text[:after] + free.sub(r"stream.resource.dealloca on(\1) ", text[after:], count=1)
    status, classes = _status(mutant)
    assert status == "violated" and classes, (status, classes)


def test_without_the_copy_the_kv_update_in_a_loop_is_not_proved() -> None:
    # elide-async-copies' output with the copy of the carried cache removed (as if the pass had
    # elided it): the first iteration would write the caller's cache in place while the update's
    # source is computed, and every iteration writes the storage its region argument names.
    source = ir.parse_module((DATA / "kv_decode.mlir").read_text(), "kv_decode.mlir")
    before = run_pipeline(source, parse_pipeline("convert-to-stream,encode-tensors,materialize-copy-on-write"), verify="none")[0]
    after = run_pipeline(before, parse_pipeline("elide-async-copies"), verify="none")[0]
    text = ir.print_module(after)
    loop = text.index("scf.for")
    clone = re.compile(r"\n *(%\w+) = stream\.async\.clone on\([^)]*\) (%\w+) : [^\n]*")
    found = clone.search(text, loop)
    assert found is not None, text
    copy, carried = found.group(1), found.group(2)
    mutant = text[: found.start()] + re.sub(rf"{copy}\b", carried, text[found.end():])
    hook = make_hook()
    hook(before, after, "elide-async-copies")  # the real output is proved
    with pytest.raises(PassVerificationError):
        hook(before, ir.parse_module(mutant, "mutant.mlir"), "elide-async-copies")


# -- random programs ------------------------------------------------------------------------------
def _inputs(p: RandomProgram, seed: int) -> list[object]:
    rng = np.random.default_rng(seed)
    return [a.value if a.kind == "index" else rng.standard_normal(a.shape).astype(np.float32) for a in p.args]


@settings(max_examples=int(os.environ.get("LOOP_PIPELINE_EXAMPLES", "20")), deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(input_loop_programs())
def test_random_input_loops_compile_proved_and_run_like_the_reference(p: RandomProgram) -> None:
    module, compiled, records = compile_proved(p.text, "random_loop.mlir")
    assert records[-1].report is not None and records[-1].report.ok
    assert verify_module(compiled, file="random_loop.mlir", smt="full").status == "proved", "the SMT modes disagree"
    expected = run_reference(module, _inputs(p, 0), p.function)
    for driver, seed in DRIVERS:
        got = run_module(compiled, _inputs(p, 0), function=p.function, driver=driver, seed=seed, check_races=True)
        assert not [f for f in got.findings if f.severity != "warning"], (driver, got.findings, p.text)
        for g, e in zip(got.results, expected):
            np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-5, atol=1e-6)

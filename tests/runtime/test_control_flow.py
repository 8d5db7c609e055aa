"""Host control flow on the runtime: blocks and branches (`cf.br`, `cf.cond_br`, `cf.switch`) and
`scf.for` / `if` / `while` / `execute_region` / `index_switch`, carrying resources, timepoints and
scalars (runtime.control_flow), in functions and in the initializers that run before them.

Every program pair of `control_flow_programs` runs its input-level half on the reference
interpreter and its cmd-level half on the executor under every driver (sync, task, chaos with
several seeds) with the race detector on; both must give the value numpy computes here from the
inputs, and the executor no error finding. The race detector keeps its semantics across
iterations (runtime.gates): an iteration that does not await the carried timepoint is reported
once a second iteration runs, and a value that carries an await through an iter_arg orders the
next iteration.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import control_flow_programs as P
import numpy as np
import pytest
from rt_support import DRIVERS, bounded, parse

from runtime import ExecutionError, RunResult, StatusCode, run_module, run_reference
from runtime.races import Finding
from stream.ir.diagnostics import DiagnosticError
from stream.ir.verifier import structural_diagnostics
from streamproof.cli import main

RUNS = [(d, 0) for d in DRIVERS] + [("chaos", seed) for seed in (1, 2, 3)]
RNG = np.random.default_rng(20240611)
X = RNG.standard_normal(4).astype(np.float32)
Y = RNG.standard_normal(4).astype(np.float32)


def _run(cmd: str, name: str, args: list[Any], driver: str, seed: int) -> RunResult:
    module = parse(cmd, f"{name}.cmd.mlir")
    result: RunResult = bounded(lambda: run_module(module, args, function=name, driver=driver, seed=seed, check_races=True))
    return result


def check(pair: P.Pair, args: list[Any], expected: list[Any]) -> None:
    """The reference and the executor (every driver, race detector on) give `expected`; no findings."""
    source = parse(pair.source, f"{pair.name}.mlir")
    assert structural_diagnostics(source) == [] and structural_diagnostics(parse(pair.cmd)) == []
    reference = run_reference(source, args, pair.name)
    _close(reference, expected, "reference")
    for driver, seed in RUNS:
        result = _run(pair.cmd, pair.name, args, driver, seed)
        assert [str(f) for f in result.findings] == [], (driver, seed)
        _close(result.results, expected, f"{driver} seed {seed}")
        _close(result.results, reference, f"{driver} seed {seed} against the reference")


def _close(got: list[Any], want: list[Any], what: str) -> None:
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol=1e-5, atol=1e-6, err_msg=what)


# Host-only programs (no tensors: the executor and the reference interpreter run the same text).
# fib(n) by a self-loop whose back-edge passes the block's own arguments in another order
# (`^bb1(%i, %b, %a)` gets `(%i1, %s, %b)`: all bound at once, `%a` takes the old `%b`).
FIB = """
func.func @fib(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "cf.br"(%c0, %c1, %c0)[^bb1] : (index, index, index) -> ()
^bb1(%i: index, %b: index, %a: index):
  %more = arith.cmpi ult, %i, %n : index
  %s = arith.addi %a, %b : index
  %i1 = arith.addi %i, %c1 : index
  "cf.cond_br"(%more, %i1, %s, %b, %a)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 3, 1>}> : (i1, index, index, index, index) -> ()
^bb2(%r: index):
  return %r : index
}
"""

# 100 for any k but 1 (10) and 5 (50): scf.index_switch (the default region first).
INDEX_SWITCH = """
func.func @pick(%k: index) -> index {
  %r = "scf.index_switch"(%k) <{cases = array<i64: 1, 5>}> ({
    %d = arith.constant 100 : index
    "scf.yield"(%d) : (index) -> ()
  }, {
    %a = arith.constant 10 : index
    "scf.yield"(%a) : (index) -> ()
  }, {
    %b = arith.constant 50 : index
    "scf.yield"(%b) : (index) -> ()
  }) : (index) -> index
  return %r : index
}
"""


# -- scf.for ------------------------------------------------------------------------------------
@pytest.mark.parametrize("bounds", [(0, 5, 1), (0, 0, 1), (5, 2, 1), (1, 8, 3)], ids=["5-trips", "zero-trip", "lb>ub", "step-3"])
def test_counted_loop_carries_a_resource_and_a_timepoint(bounds: tuple[int, int, int]) -> None:
    lb, ub, step = bounds
    acc = Y.copy()
    i = lb
    while i < ub:
        acc = acc + X * np.float32(i)
        i += step
    check(P.COUNT, [X, Y, lb, ub, step], [acc])


@pytest.mark.parametrize("n", [5, 1, 0])
def test_repeated_add_awaiting_the_carried_timepoint(n: int) -> None:
    expected = Y.copy()
    for _ in range(n):
        expected = expected + X
    check(P.Pair("loop", P.ADD_LOOP_SOURCE, P.add_loop(await_carried=True)), [X, Y, n], [expected])


@pytest.mark.parametrize("n", [0, 1, 4, 5])
def test_if_inside_a_loop(n: int) -> None:
    expected = Y.copy()
    for i in range(n):
        expected = expected + X if i % 2 == 0 else expected - X
    check(P.NESTED, [X, Y, n], [expected])


# -- scf.if / scf.execute_region / scf.index_switch ------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_if_on_a_host_comparison(n: int) -> None:
    check(P.PICK, [X, n], [np.maximum(X, 0) if n < 3 else -X])


@pytest.mark.parametrize("n", [0, 2])
def test_execute_region_with_blocks(n: int) -> None:
    check(P.REGION, [X, n], [np.maximum(X, 0) if n == 0 else -X])


@pytest.mark.parametrize("k", [0, 1, 5, 7])
def test_index_switch(k: int) -> None:
    module = parse(INDEX_SWITCH)
    expected = {1: 10, 5: 50}.get(k, 100)
    assert run_reference(module, [k], "pick") == [expected]
    for driver, seed in RUNS:
        assert _run(INDEX_SWITCH, "pick", [k], driver, seed).results == [expected]


# -- blocks and branches ----------------------------------------------------------------------------
@pytest.mark.parametrize("count", [0, 1, 4])
def test_back_edge_loop_with_a_trip_count_read_from_the_device(count: int) -> None:
    h0 = RNG.standard_normal((4, 4)).astype(np.float32)
    w = (RNG.standard_normal((4, 4)) / 2).astype(np.float32)
    h = h0
    for _ in range(count):
        h = np.tanh(h @ w)
    check(P.RNN, [np.array(count, np.int64), h0, w], [h])


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["positive", "negative"])
def test_branch_on_a_value_read_back_from_the_device(sign: float) -> None:
    x = (np.abs(X) * sign).astype(np.float32)
    check(P.SIGN, [x], [2 * x if x.sum() > 0 else -x])


@pytest.mark.parametrize("k", [0, 7, 3, -1])
def test_switch(k: int) -> None:
    expected = np.maximum(X, 0) if k == 0 else -X if k == 7 else np.tanh(X)
    check(P.SWITCH, [X, k], [expected])


@pytest.mark.parametrize("n", [0, 1, 2, 10])
def test_block_arguments_are_bound_at_once(n: int) -> None:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    module = parse(FIB)
    assert run_reference(module, [n], "fib") == [a]
    for driver, seed in RUNS:
        assert _run(FIB, "fib", [n], driver, seed).results == [a]


# -- scf.while --------------------------------------------------------------------------------------
@pytest.mark.parametrize("limit", [-100.0, 3.0, 20.0])
def test_while_with_a_condition_read_back_each_iteration(limit: float) -> None:
    x = (np.abs(X) + 0.5).astype(np.float32)
    acc = Y.copy()
    while np.float32(acc.sum(dtype=np.float32)) < np.float32(limit):
        acc = acc + x
    check(P.WHILE, [x, Y, np.float32(limit)], [acc])


# -- the race detector across iterations -----------------------------------------------------------
def _iteration_races(findings: list[Finding]) -> list[Finding]:
    """Races between two runs of the loop body's dispatch (both sides name it)."""
    return [f for f in findings if f.severity == "error" and f.first.startswith("stream.cmd.dispatch @add")
            and f.second.startswith("stream.cmd.dispatch @add")]


@pytest.mark.parametrize("driver,seed", RUNS)
def test_an_iteration_that_does_not_await_the_carried_timepoint_races(driver: str, seed: int) -> None:
    racy = P.add_loop(await_carried=False)
    assert racy != P.add_loop(await_carried=True)
    found = _iteration_races(_run(racy, "loop", [X, Y, 3], driver, seed).findings)
    assert found and {f.kind for f in found} <= {"MISSED_WAIT", "RACE_WRITE_AFTER_WRITE"}
    assert "run by two submissions" in found[0].note
    assert found[0].location.endswith(":12:7")  # the dispatch in the loop body
    # It is only a race when a second iteration runs.
    for n in (0, 1):
        result = _run(racy, "loop", [X, Y, n], driver, seed)
        assert [str(f) for f in result.findings] == [], n
        _close(result.results, [Y + n * X], f"{n} trip(s)")


@pytest.mark.parametrize("n", [0, 1, 5])
def test_an_await_carried_through_an_iter_arg_orders_the_next_iteration(n: int) -> None:
    check(P.CARRIED_AWAIT, [X, Y, n], [Y + n * X])


@pytest.mark.parametrize("driver,seed", RUNS[:3])
def test_yielding_the_unawaited_resource_races(driver: str, seed: int) -> None:
    # The await's result is not what the loop carries on: it orders nothing (stream.dialect.awaits).
    racy = P.carried_await(yield_awaited=False)
    assert _iteration_races(_run(racy, "loop", [X, Y, 3], driver, seed).findings)
    assert not _iteration_races(_run(racy, "loop", [X, Y, 1], driver, seed).findings)


# -- initializers ------------------------------------------------------------------------------------
def test_an_initializer_with_branches_runs_before_the_function() -> None:
    check(P.INITIALIZER, [X], [X + np.array([10, 20, 30, 40], np.float32)])


@pytest.mark.parametrize("driver,seed", RUNS)
def test_an_initializer_that_stores_an_unawaited_upload_is_reported(driver: str, seed: int) -> None:
    text = P.INITIALIZER.cmd.replace("util.global.store %w, @k", "util.global.store %r, @k")
    text = text.replace("%w = stream.timepoint.await sync %t => %r : !stream.resource<constant>{%c16}\n", "")
    assert "await sync" not in text and "store %r" in text
    try:
        findings = _run(text, "shift", [X], driver, seed).findings
    except ExecutionError as e:  # the chaos driver may really run the dispatch before the upload
        findings = e.findings  # type: ignore[attr-defined]
    assert "USE_BEFORE_ALLOC" in {f.kind for f in findings}


def test_a_global_nothing_stored_is_refused() -> None:
    module = parse(P.INITIALIZER.cmd.replace("util.global.store %w, @k : !stream.resource<constant>", ""))
    with pytest.raises(DiagnosticError, match="'util.global.load' of @k, which holds no value"):
        run_module(module, [X], function="shift", driver="sync")


# -- errors -----------------------------------------------------------------------------------------
BAD_STEP = """
func.func @f(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %r = "scf.for"(%c0, %n, %c0, %c0) ({
  ^bb0(%i: index, %a: index):
    "scf.yield"(%a) : (index) -> ()
  }) : (index, index, index, index) -> index
  return %r : index
}
"""


@pytest.mark.parametrize("interpreter", ["reference", "executor"])
def test_a_step_that_is_not_positive_fails(interpreter: str) -> None:
    module = parse(BAD_STEP)
    runs: dict[str, Callable[[], Any]] = {"reference": lambda: run_reference(module, [4], "f"),
                                          "executor": lambda: run_module(module, [4], function="f", driver="sync")}
    with pytest.raises(ExecutionError) as e:
        runs[interpreter]()
    assert e.value.status.code is StatusCode.INVALID_ARGUMENT and "step must be positive" in str(e.value)


H4 = RNG.standard_normal((4, 4)).astype(np.float32)
TRIPS: dict[str, tuple[P.Pair, Callable[[int], list[Any]]]] = {
    "scf.for": (P.COUNT, lambda n: [X, Y, 0, n, 1]),
    "blocks": (P.RNN, lambda n: [np.array(n, np.int64), H4, H4 / 8]),
    "scf.while": (P.WHILE, lambda n: [np.ones(4, np.float32), np.zeros(4, np.float32), np.float32(4 * n)]),
}


@pytest.mark.parametrize("interpreter", ["reference", "executor"])
@pytest.mark.parametrize("loop", sorted(TRIPS))
def test_a_loop_past_the_trip_limit_fails_naming_it(interpreter: str, loop: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A bound from a huge input (2^40 trips) would run for days; the limit fails the run instead.
    from runtime import control_flow

    monkeypatch.setattr(control_flow, "MAX_LOOP_TRIPS", 7)
    pair, inputs = TRIPS[loop]
    module = parse(pair.source if interpreter == "reference" else pair.cmd)

    def run(args: list[Any]) -> Any:
        if interpreter == "reference":
            return run_reference(module, args, pair.name)
        return run_module(module, args, function=pair.name, driver="sync")

    run(inputs(7))  # seven trips: within the limit
    with pytest.raises(ExecutionError) as e:
        run(inputs(8))
    assert e.value.status.code is StatusCode.RESOURCE_EXHAUSTED and "ran 7 iterations" in str(e.value), str(e.value)
    assert "MAX_LOOP_TRIPS" in str(e.value) and "--max-trips" in str(e.value)


def test_streamproof_run_max_trips(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from runtime import control_flow

    monkeypatch.setattr(control_flow, "MAX_LOOP_TRIPS", control_flow.MAX_LOOP_TRIPS)  # restored after the test
    src = tmp_path / "fib.mlir"
    src.write_text(FIB)
    assert main(["run", str(src), "--input", "30", "--max-trips", "10"]) == 1
    assert "ran 10 iterations" in capsys.readouterr().err
    assert main(["run", str(src), "--input", "30", "--max-trips", "0"]) == 2
    assert "--max-trips must be an integer >= 1" in capsys.readouterr().err


def test_an_op_without_a_rule_in_a_loop_body_is_refused() -> None:
    text = P.add_loop().replace('"scf.yield"(%a, %t2)', '"foo.bar"() : () -> ()\n    "scf.yield"(%a, %t2)')
    module = parse(text)
    with pytest.raises(DiagnosticError, match="'foo.bar' cannot be executed by the runtime"):
        run_module(module, [X, Y, 2], function="loop", driver="sync")


# -- streamproof run --------------------------------------------------------------------------------
def test_streamproof_run_checks_a_loop_against_its_reference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cmd, source = tmp_path / "count.cmd.mlir", tmp_path / "count.mlir"
    cmd.write_text(P.COUNT.cmd)
    source.write_text(P.COUNT.source)
    code = main(["run", str(cmd), "--reference", str(source), "--check", "--check-races", "--driver", "chaos", "--seed", "3",
                 "--input", "4xf32=1,2,3,4", "--input", "4xf32=0.5", "--input", "0", "--input", "4", "--input", "1"])
    out = capsys.readouterr()
    assert code == 0, out.err
    expected = 0.5 + np.array([1, 2, 3, 4]) * sum(range(4))
    assert f"4xf32={' '.join(f'{v:g}' for v in expected)}" in out.out, out.out

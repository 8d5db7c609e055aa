"""Input-level tensor globals through the whole pipeline: a KV cache kept in a `util.global`.

The programs in `tests/data/input_control_flow/global_kv_*.mlir` keep state between calls in
mutable globals: a decode step that writes a row of the cache and advances a position global, a
function that loads the cache once and carries it through an `scf.for`, one whose loop body loads
and stores the global in every iteration, one whose globals an `util.initializer` sets (with an
immutable weight global and an accumulator a tied dispatch updates in place), and one that stores
the cache on one branch and reads it again after the branch. Each is compiled
with the verification hook (every pass proved, refinement checked: a mutable global's value at
entry is the same unknown in both programs, its value at exit an observable), its structure is
checked (the `!stream.resource<variable>` global, its `__timepoint` companion, the regions that
read a loaded global waiting for the companion), and it is run for several calls in one session
under every driver with the race detector, against the reference interpreter's sequence of calls.

Mutants of the compiled output that drop what propagate-timepoints added (the wait for the
companion at a load, the timepoint stored with the value) are reported by the verifier, and bad
tensor globals are refused with a diagnostic (exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from pipeline_helpers import compile_proved

import stream.ir as ir
from runtime.api import run_module
from runtime.reference import run_reference_calls
from stream.passes import DEFAULT_PIPELINE
from streamproof.cli import main
from verify import verify_module

DATA = Path(__file__).resolve().parents[1] / "data" / "input_control_flow"
DRIVERS = [("sync", 0), ("task", 0), ("chaos", 3), ("chaos", 11)]


def _tensor(shape: tuple[int, ...], seed: int, scale: float = 1.0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


# name -> (function, the argument lists of a sequence of calls)
Calls = Callable[[], list[list[object]]]
PROGRAMS: dict[str, tuple[str, Calls]] = {
    "global_kv_step": ("step", lambda: [[_tensor((1, 16), n), _tensor((1, 4), 10 + n)] for n in range(6)]),
    "global_kv_loop": ("decode", lambda: [[_tensor((1, 16), n), _tensor((1, 4), 10 + n, 0.5), trips] for n, trips in enumerate((2, 0, 1, 3))]),
    "global_kv_loop_body": ("decode", lambda: [[_tensor((1, 16), n), _tensor((1, 4), 10 + n, 0.5), trips] for n, trips in enumerate((2, 0, 1, 3))]),
    "global_kv_initializer": ("step", lambda: [[_tensor((1, 16), n), pos] for n, pos in enumerate((0, 1, 5, 2, 3))]),
    "global_kv_branch": ("step", lambda: [[_tensor((1, 16), n), _tensor((1, 4), 10 + n), n % 3 != 1] for n in range(5)]),
}


def _compile(name: str) -> tuple[ir.Module, ir.Module, str]:
    text = (DATA / f"{name}.mlir").read_text()
    source, compiled, records = compile_proved(text, f"{name}.mlir")
    assert [r.name for r in records] == list(DEFAULT_PIPELINE)
    assert all(r.report is not None and r.report.ok for r in records), [(r.name, r.report.status) for r in records if r.report]
    return source, compiled, ir.print_module(compiled)


@pytest.fixture(scope="module")
def compiled() -> dict[str, tuple[ir.Module, ir.Module, str]]:
    return {name: _compile(name) for name in PROGRAMS}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_pass_is_proved_and_refines(name: str, compiled: dict[str, tuple[ir.Module, ir.Module, str]]) -> None:
    text = compiled[name][2]
    assert "stream.cmd.execute" in text and "stream.async." not in text and "flow." not in text
    assert not re.search(r"util\.global [^\n]*: tensor<", text)  # no tensor global is left
    assert verify_module(compiled[name][1], file=name, smt="full").status == "proved"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_cache_is_a_variable_resource_global_with_a_timepoint_companion(name: str, compiled: dict[str, tuple[ir.Module, ir.Module, str]]) -> None:
    text = compiled[name][2]
    assert "util.global private mutable @cache__timepoint = #stream.timepoint<immediate> : !stream.timepoint\n" in text
    assert "util.global private mutable @cache : !stream.resource<variable>\n" in text
    # Every store of the cache hands over its value with a timepoint; every load of it follows a
    # load of the companion.
    assert text.count("util.global.store %") and text.count(", @cache : !stream.resource<variable>") == text.count(", @cache__timepoint : !stream.timepoint")
    for load in re.finditer(r"\n *(%\w+) = util\.global\.load @cache : !stream\.resource<variable>", text):
        previous = text[: load.start()].rsplit("\n", 1)[-1]
        assert re.fullmatch(r" *%\w+ = util\.global\.load @cache__timepoint : !stream\.timepoint", previous), previous


def _timepoint_sources(module: ir.Module, fn: str) -> tuple[dict[ir.Value, ir.Op], Callable[[ir.Value], set[ir.Value]]]:
    from stream.ir.walk import defining_ops, function

    f = function(module, fn)
    assert f is not None
    defs = defining_ops(f.op)

    def sources(tp: ir.Value) -> set[ir.Value]:
        """The timepoints `tp` is reached after: through joins and the awaits of allocas."""
        out, stack = set(), [tp]
        while stack:
            v = stack.pop()
            if v in out:
                continue
            out.add(v)
            op = defs.get(v)
            if op is not None and op.name == "stream.timepoint.join":
                stack.extend(op.operands)
            elif op is not None and op.name == "stream.resource.alloca":
                stack.extend(o for o in op.operands if isinstance(o.type, ir.TimepointType))
        return out

    return defs, sources


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_region_reading_a_loaded_global_awaits_its_companion(name: str, compiled: dict[str, tuple[ir.Module, ir.Module, str]]) -> None:
    module = compiled[name][1]
    function, _ = PROGRAMS[name]
    defs, sources = _timepoint_sources(module, function)
    loads = {op.results[0]: op for op in defs.values() if op.name == "util.global.load"}
    companions = {v for v, op in loads.items() if str(op.properties["global"]) == "@cache__timepoint"}
    cache = {v for v, op in loads.items() if str(op.properties["global"]) == "@cache"}
    assert cache and companions
    readers = [op for op in {id(o): o for o in defs.values()}.values() if op.name == "stream.cmd.execute" and any(v in cache for v in op.operands)]
    assert readers
    for execute in readers:
        awaited = [v for v in execute.operands if isinstance(v.type, ir.TimepointType)]
        assert awaited and sources(awaited[0]) & companions, f"{execute.location} does not wait for @cache__timepoint"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize(("driver", "seed"), DRIVERS)
def test_calls_in_one_run_match_the_reference(name: str, driver: str, seed: int, compiled: dict[str, tuple[ir.Module, ir.Module, str]]) -> None:
    source, module, _ = compiled[name]
    function, calls = PROGRAMS[name]
    expected = run_reference_calls(source, calls(), function)
    got = run_module(module, calls=calls(), function=function, driver=driver, seed=seed, check_races=True)
    assert not [f for f in got.findings if f.severity != "warning"], got.findings
    assert len(got.calls) == len(expected)
    for n, (g_call, e_call) in enumerate(zip(got.calls, expected)):
        for g, e in zip(g_call, e_call):
            np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-5, atol=1e-6, err_msg=f"call {n}")
    # The state carries over: the last call's result depends on the earlier calls.
    alone = run_reference_calls(source, calls()[-1:], function)
    assert not np.allclose(np.asarray(expected[-1][0]), np.asarray(alone[0][0]))


def test_the_loop_body_does_not_wait_on_the_host(compiled: dict[str, tuple[ir.Module, ir.Module, str]]) -> None:
    # The body that loads and stores the global in every step: the next iteration's region waits
    # for the companion (and the carried timepoint) on the device.
    text = compiled["global_kv_loop_body"][2]
    body = text[text.index("scf.for"):text.index("scf.yield")]
    assert "util.global.load @cache__timepoint" in body and "util.global.store" in body
    assert "stream.timepoint.await" not in body


# -- mutants: what propagate-timepoints added is needed ------------------------------------------------
def _status(text: str) -> tuple[str, list[str]]:
    report = verify_module(ir.parse_module(text, "mutant.mlir"), file="mutant.mlir")
    return report.status, sorted(report.classes)


@pytest.mark.parametrize("name", ["global_kv_step", "global_kv_loop_body"])
def test_dropping_the_wait_for_the_companion_is_a_missed_wait(name: str, compiled: dict[str, tuple[ir.Module, ir.Module, str]]) -> None:
    # The loaded companion replaced by an immediate: the region reading the cache no longer waits
    # for the previous call's (or iteration's) writer of it.
    text = compiled[name][2]
    load = re.compile(r"(%\w+) = util\.global\.load @cache__timepoint : !stream\.timepoint")
    assert load.search(text)
    mutant = load.sub(r"\1 = stream.timepoint.immediate => !stream.timepoint", text)
    status, classes = _status(mutant)
    assert status == "violated" and "MISSED_WAIT" in classes, (status, classes)


@pytest.mark.parametrize("name", ["global_kv_loop_body"])
def test_storing_an_immediate_companion_is_a_missed_wait(name: str, compiled: dict[str, tuple[ir.Module, ir.Module, str]]) -> None:
    # The loop body hands over the new cache with an immediate timepoint: the next iteration's
    # load would read it before the region writing it is done. (Where the store is the call's
    # last and the host waits for that region before it returns, as in global_kv_step, the next
    # call cannot start earlier, and the same mutant is safe.)
    text = compiled[name][2]
    head, function = text.split("util.func", 1)
    store = re.compile(r"\n( *)util\.global\.store %[\w#]+, @cache__timepoint : !stream\.timepoint")
    assert store.search(function)
    mutant = head + "util.func" + store.sub(r"\n\1%mutant = stream.timepoint.immediate => !stream.timepoint"
                                              r"\n\1util.global.store %mutant, @cache__timepoint : !stream.timepoint", function)
    status, classes = _status(mutant)
    assert status == "violated" and "MISSED_WAIT" in classes, (status, classes)


# -- bad tensor globals ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("decl", "message"), [
    ("util.global private mutable @g : tensor<?x16xf32>", "has a dynamic shape"),
    ('util.global private mutable @g : tensor<4x16xf32, "enc">', "has an encoding"),
    ("util.global private mutable @g : tensor<4x!stream.timepoint>", "has elements without a byte size"),
    ("util.global private mutable @g = #util.byte_pattern<1> : tensor<4x16xf32>", "only a dense<...> : tensor<4x16xf32> initial value"),
])
def test_a_tensor_global_that_cannot_be_stored_is_refused(decl: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(f"""{decl}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {{
  %y = flow.dispatch @tanh(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}}
""")
    code = main(["compile", str(path), "-o", str(tmp_path / "out.mlir")])
    err = capsys.readouterr().err
    assert code == 2 and f"{path}:1:1: error: convert-to-stream: the tensor global @g" in err and message in err, err
    assert "Traceback" not in err and not (tmp_path / "out.mlir").exists()


def test_a_load_of_another_type_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text("""util.global private mutable @g : tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = util.global.load @g : tensor<8xf32>
  return %x : tensor<4xf32>
}
""")
    code = main(["compile", str(path), "-o", str(tmp_path / "out.mlir")])
    err = capsys.readouterr().err
    assert code == 2 and f"{path}:3:3: error: convert-to-stream: 'util.global.load' of @g as tensor<8xf32>, but the global is tensor<4xf32>" in err, err


def test_run_calls_the_function_several_times_in_one_run(capsys: pytest.CaptureFixture[str]) -> None:
    path = DATA / "global_kv_step.mlir"
    code = main(["run", str(path), "--calls", "3", "--check", "--check-races", "--driver", "chaos",
                 "--input", "1x16xf32=0.5", "--input", "1x4xf32=1"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert out.out.count("EXEC @step (call ") == 3
    assert out.err.count(": ok (max abs error") == 3


def test_a_loaded_global_is_never_written_in_place() -> None:
    # What a load gives is the global's storage (a later call loads it): copy-on-write clones it
    # before an in-place write, and elide-async-copies keeps the clone.
    from stream.passes import parse_pipeline, run_pipeline

    text = """
util.global private mutable @g : !stream.resource<variable>
util.func public @f() {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %s = util.global.load @g : !stream.resource<variable>
  %w = stream.async.fill %c1_i32, %s[%c0 to %c64 for %c64] : i32 -> %s as !stream.resource<variable>{%c64}
  util.global.store %w, @g : !stream.resource<variable>
  util.return
}
"""
    out, _ = run_pipeline(ir.parse_module(text, "g.mlir"), parse_pipeline("materialize-copy-on-write,elide-async-copies"), verify="none")
    printed = ir.print_module(out)
    assert re.search(r"(%\w+) = stream\.async\.clone %s :.*\n *%w = stream\.async\.fill %c1_i32, \1\[", printed), printed

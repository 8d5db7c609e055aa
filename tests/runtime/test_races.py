"""The dynamic race detector (`--check-races`).

A correct two-submission program and hand-made broken variants of it, each breaking one rule of
SPEC section 3.3. The detector must report exactly the expected classes under every driver (its
verdict comes from the program's happens-before structure, not from the timing of the run), and
never fire on the correct program or on the other correct programs, over many chaos seeds.
"""

from __future__ import annotations

import numpy as np
import pytest
from rt_support import DATA, DRIVERS, HERE, iree_kernels, parse  # noqa: F401 (the iree_kernels fixture)

from runtime import ExecutionError, RunResult, run_module

BASE = """
util.func public @r(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %x = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %a, %ta = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c16} => !stream.timepoint
  %b, %tb = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c16} => !stream.timepoint
  %c32 = arith.constant 32 : index
  %l, %tl = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev1>) : !stream.resource<transient>{%c32} => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%ta) => with(%x as %in: !stream.resource<external>{%c16}, %a as %tmp: !stream.resource<transient>{%c16}, %b as %out: !stream.resource<external>{%c16}) {
    stream.cmd.dispatch @relu {
      ro %in[%c0 for %c16] : !stream.resource<external>{%c16},
      wo %tmp[%c0 for %c16] : !stream.resource<transient>{%c16}
    } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
  } => !stream.timepoint
  %j = stream.timepoint.join max(%e1, %tb, %tl) => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev1>) await(%j) => with(%a as %tmp: !stream.resource<transient>{%c16}, %b as %out: !stream.resource<external>{%c16}, %l as %loc: !stream.resource<transient>{%c32}) {
    stream.cmd.copy %tmp[%c0], %loc[%c0], %c16 : !stream.resource<transient>{%c16} -> !stream.resource<transient>{%c32}
    stream.cmd.dispatch @neg {
      ro %loc[%c0 for %c16] : !stream.resource<transient>{%c32},
      wo %loc[%c16 for %c16] : !stream.resource<transient>{%c32}
    } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
    stream.cmd.copy %loc[%c16], %out[%c0], %c16 : !stream.resource<transient>{%c32} -> !stream.resource<external>{%c16}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e2) => %a : !stream.resource<transient>{%c16} => !stream.timepoint
  %dl = stream.resource.dealloca on(#hal.device.affinity<@dev1>) await(%e2) => %l : !stream.resource<transient>{%c32} => !stream.timepoint
  %all = stream.timepoint.join max(%d, %dl, %e2) => !stream.timepoint
  %w = stream.timepoint.await %all => %b : !stream.resource<external>{%c16}
  %o = stream.tensor.export on(#hal.device.affinity<@dev0>) %w : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
"""

RELU_DISPATCH = """    stream.cmd.dispatch @relu {
      ro %in[%c0 for %c16] : !stream.resource<external>{%c16},
      wo %tmp[%c0 for %c16] : !stream.resource<transient>{%c16}
    } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
"""

MUTANTS: dict[str, tuple[list[tuple[str, str]], set[str]]] = {
    # the consumer region awaits the allocations but not the producer region
    "missing_wait": ([("await(%j)", "await(%jj)"),
                      ("  %e2 =", "  %jj = stream.timepoint.join max(%ta, %tb, %tl) => !stream.timepoint\n  %e2 =")],
                     {"MISSED_WAIT", "USE_AFTER_FREE"}),
    # the transient is freed once the producer is done, while the consumer may still read it
    "early_free": ([("await(%e2) => %a", "await(%e1) => %a")], {"USE_AFTER_FREE"}),
    # the host exports the result having waited only for the producer
    "host_missed_wait": ([("await %all => %b", "await %j => %b")], {"MISSED_WAIT"}),
    # the host exports the un-awaited %b: the await before it is pure and its result unused, so it orders nothing
    # (not even after the alloca of %b)
    "dead_await_export": ([("%o = stream.tensor.export on(#hal.device.affinity<@dev0>) %w :",
                            "%o = stream.tensor.export on(#hal.device.affinity<@dev0>) %b :")], {"MISSED_WAIT", "USE_BEFORE_ALLOC"}),
    # a second export takes the un-awaited %b after the first took the await's result: exports are
    # pure (IREE may move them above the await), so the first one orders nothing for the second
    "export_after_export": ([("-> !hal.buffer_view {", "-> (!hal.buffer_view, !hal.buffer_view) {"),
                             ("  util.return %o : !hal.buffer_view",
                              "  %o2 = stream.tensor.export on(#hal.device.affinity<@dev0>) %b : tensor<4xf32> in !stream.resource<external>{%c16}"
                              " -> !hal.buffer_view\n  util.return %o, %o2 : !hal.buffer_view, !hal.buffer_view")],
                            {"MISSED_WAIT", "USE_BEFORE_ALLOC"}),
    # the producer does not wait for the allocation of its output
    "use_before_alloc": ([("await(%ta) => with(%x", "with(%x")], {"USE_BEFORE_ALLOC"}),
    # two dispatches of one concurrent section write the same bytes
    "concurrent_write_write": ([(RELU_DISPATCH, "    stream.cmd.concurrent {\n" + RELU_DISPATCH
                                 + RELU_DISPATCH.replace("@relu", "@neg") + "    }\n")], {"RACE_WRITE_AFTER_WRITE"}),
    # a concurrent section reads what its sibling writes
    "concurrent_read_write": ([("  %e1 =", "  %tab = stream.timepoint.join max(%ta, %tb) => !stream.timepoint\n  %e1 ="),
                               ("await(%ta) => with(%x", "await(%tab) => with(%x"),
                               (RELU_DISPATCH, "    stream.cmd.concurrent {\n" + RELU_DISPATCH
                                + RELU_DISPATCH.replace("@relu", "@neg").replace("ro %in", "ro %tmp").replace("wo %tmp", "wo %out")
                                .replace(": !stream.resource<external>{%c16},", ": !stream.resource<transient>{%c16},")
                                .replace("wo %out[%c0 for %c16] : !stream.resource<transient>{%c16}",
                                         "wo %out[%c0 for %c16] : !stream.resource<external>{%c16}") + "    }\n")],
                              {"RACE_READ_AFTER_WRITE"}),
    # one dispatch binds the same bytes read-only and write-only
    "self_overlap": ([("ro %in[%c0 for %c16] : !stream.resource<external>{%c16},\n      wo %tmp",
                       "ro %tmp[%c0 for %c16] : !stream.resource<transient>{%c16},\n      wo %tmp")], {"RACE_READ_AFTER_WRITE"}),
    # the transient is deallocated twice
    "double_free": ([("  %all = stream.timepoint.join max(%d, %dl, %e2)",
                      "  %d2 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%d) => %a : "
                      "!stream.resource<transient>{%c16} => !stream.timepoint\n  %all = stream.timepoint.join max(%d2, %dl, %e2)")],
                    {"DOUBLE_FREE"}),
    # @dev1's dispatch reads @dev0's transient directly instead of its own copy (no transfer)
    "affinity_mismatch": ([("      ro %loc[%c0 for %c16] : !stream.resource<transient>{%c32},",
                            "      ro %tmp[%c0 for %c16] : !stream.resource<transient>{%c16},")], {"AFFINITY_MISMATCH"}),
    # the borrowed input is written in place
    "borrowed_write": ([("ro %in[%c0 for %c16] : !stream.resource<external>{%c16},\n      wo %tmp",
                         "rw %in[%c0 for %c16] : !stream.resource<external>{%c16},\n      wo %tmp")], {"BORROWED_INPUT_MUTATED"}),
}


def mutant(name: str) -> str:
    text = BASE
    for old, new in MUTANTS[name][0]:
        assert old in text, f"{name}: {old!r} not in the base program"
        text = text.replace(old, new, 1)
    return text


def run_collecting(text: str, driver: str, seed: int = 0) -> tuple[RunResult | None, list]:  # type: ignore[type-arg]
    """Run with --check-races; a run that fails (e.g. a use after free that really happened)
    still returns what the detector saw."""
    x = np.array([-1.0, 2.0, -3.0, 4.0], dtype=np.float32)
    try:
        result = run_module(parse(text), [x], driver=driver, seed=seed, check_races=True)
    except ExecutionError as e:
        return None, list(e.findings)  # type: ignore[attr-defined]
    return result, result.findings


@pytest.mark.parametrize("driver", DRIVERS)
def test_correct_program_is_clean_and_right(driver: str) -> None:
    result, findings = run_collecting(BASE, driver)
    assert findings == [] and result is not None
    np.testing.assert_array_equal(result.results[0], -np.maximum([-1.0, 2.0, -3.0, 4.0], 0))


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_caught_with_the_right_class(name: str, driver: str) -> None:
    _, findings = run_collecting(mutant(name), driver, seed=5)
    assert {f.kind for f in findings if f.severity == "error"} == MUTANTS[name][1]


def test_the_verifier_agrees_with_the_detector() -> None:
    """The static and the dynamic check see the same program: the correct one is proved, and each
    mutant is rejected with exactly the classes the detector reports (a difference would be a
    soundness bug in the verifier, or a false alarm or a blind spot of the detector)."""
    import streamproof

    assert streamproof.verify(BASE, filename="base.mlir").ok
    for name, (_, classes) in sorted(MUTANTS.items()):
        assert streamproof.verify(mutant(name), filename=f"{name}.mlir").classes == classes, name


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_sync_await_orders_what_follows_it(driver: str) -> None:
    """A `sync` await blocks the host for the detector too: exporting the un-awaited %b after it is
    clean (the twin of `dead_await_export`), and the verifier proves it."""
    import streamproof

    text = mutant("dead_await_export").replace("%w = stream.timepoint.await %all", "%w = stream.timepoint.await sync %all")
    result, findings = run_collecting(text, driver)
    assert findings == [] and result is not None
    assert streamproof.verify(text, filename="sync.mlir").ok


def test_completion_names_the_caller() -> None:
    """A device read of the caller's input that no wait covers before the return: the caller
    may reuse its buffer while the read is still running."""
    _, findings = run_collecting(mutant("missing_wait"), "task")
    (late,) = [f for f in findings if f.kind == "MISSED_WAIT" and f.allocation.startswith("argument 0")]
    assert late.first.startswith("stream.cmd.dispatch @relu") and late.second.startswith("when @r returns at test.mlir:")


def test_leak_is_a_warning() -> None:
    text = BASE.replace("  %d = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e2) => %a : "
                        "!stream.resource<transient>{%c16} => !stream.timepoint\n", "").replace("max(%d, %dl, %e2)", "max(%dl, %e2)")
    result, findings = run_collecting(text, "task")
    assert result is not None and [(f.kind, f.severity) for f in findings] == [("LEAK", "warning")]
    assert "never deallocated" in str(findings[0])


def test_report_names_both_accesses_and_the_bytes() -> None:
    _, findings = run_collecting(mutant("missing_wait"), "sync")
    (race,) = [f for f in findings if f.kind == "MISSED_WAIT" and f.allocation.startswith("%a")]
    text = str(race)
    assert text.startswith("test.mlir:") and "MISSED_WAIT on %a (alloca at test.mlir:6:3) bytes [0, 16)" in text
    assert "write: stream.cmd.dispatch @relu" in text and "read:  stream.cmd.copy %a" in text


def test_verdict_does_not_depend_on_the_schedule() -> None:
    """Every chaos seed (different interleavings) gives the same findings."""
    verdicts = set()
    for seed in range(12):
        _, findings = run_collecting(mutant("missing_wait"), "chaos", seed)
        verdicts.add(tuple(sorted((f.kind, f.lo, f.hi) for f in findings)))
    assert len(verdicts) == 1


@pytest.mark.parametrize("program", ["all_commands", "two_devices", "host_ops"])
def test_never_fires_on_correct_programs_over_many_seeds(program: str) -> None:
    path = HERE / "programs" / f"{program}.mlir"
    module = parse(path.read_text(), str(path))
    args = {"all_commands": [np.ones(4, np.float32)], "two_devices": [np.ones((4, 4), np.float32)], "host_ops": []}[program]
    for seed in range(15):
        assert run_module(module, args, driver="chaos", seed=seed, check_races=True).findings == []


@pytest.mark.usefixtures("iree_kernels")
def test_never_fires_on_iree_diamond_over_many_seeds() -> None:
    path = DATA / "b_diamond" / "10_elide_timepoints.mlir"
    module = parse(path.read_text(), str(path))
    xs = [np.full((64, 64), 0.01 * i, np.float32) for i in range(5)]
    for seed in range(15):
        assert run_module(module, xs, driver="chaos", seed=seed, check_races=True).findings == []

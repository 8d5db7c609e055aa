"""Hand-written cmd-level programs (tests/runtime/programs/*.mlir) under every driver.

Each program's header comment states what it computes; the expected values here are computed
independently with numpy. Also: the pack layout, bounds and kernel-lookup errors, and results
that do not depend on the driver or the chaos seed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rt_support import DRIVERS, HERE, parse

from runtime import ExecutionError, InputError, KernelRegistry, run_module
from runtime.host_ops import pack_slices
from runtime.kernels import DEFAULT_REGISTRY
from stream.ir.diagnostics import DiagnosticError

PROGRAMS = HERE / "programs"


def load(name: str):  # type: ignore[no-untyped-def]
    path = PROGRAMS / f"{name}.mlir"
    return parse(path.read_text(), str(path))


@pytest.mark.parametrize("driver", DRIVERS)
def test_all_commands(driver: str) -> None:
    x = np.array([-2.0, -0.5, 0.25, 3.0], dtype=np.float32)
    result = run_module(load("all_commands"), [x], driver=driver, check_races=True)
    relu_x1, copy = result.results
    np.testing.assert_array_equal(relu_x1, np.maximum(x + 1, 0))
    np.testing.assert_array_equal(copy, x)
    assert result.findings == []
    assert result.stats.peak_bytes == {"dev0": 48} and result.stats.submissions == 2


@pytest.mark.parametrize("driver", DRIVERS)
def test_two_devices_transfer(driver: str) -> None:
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)
    result = run_module(load("two_devices"), [x], driver=driver, check_races=True)
    np.testing.assert_allclose(result.results[0], np.tanh(2 * x), rtol=1e-6)
    assert result.findings == []
    assert result.stats.peak_bytes == {"dev0": 64, "dev1": 64}


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("rows", [1, 5])
def test_dynamic_shapes(driver: str, rows: int) -> None:
    x = np.random.default_rng(rows).standard_normal((rows, 8)).astype(np.float32)
    (got,) = run_module(load("dynamic"), [x, rows], driver=driver).results
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=1e-6)


@pytest.mark.parametrize("driver", DRIVERS)
def test_host_resource_ops(driver: str) -> None:
    result = run_module(load("host_ops"), [], driver=driver, check_races=True)
    values, total, slab, last0, last1 = result.results
    c = np.array([1, 2, 3, 4], dtype=np.float32)
    np.testing.assert_array_equal(values, c * c + c)
    assert total == 5.0
    # slices [0,0] and [1,1] never live together and share bytes; [0,1] gets its own 64 bytes
    assert slab == 128
    assert (last0, last1) == (False, True)  # retain then two releases: the second is the last owner
    assert result.findings == []


def test_every_driver_and_seed_gives_the_same_bits() -> None:
    x = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
    runs = [run_module(load("two_devices"), [x], driver="chaos", seed=s).results[0] for s in range(8)]
    runs.append(run_module(load("two_devices"), [x], driver="sync").results[0])
    for r in runs[1:]:
        assert r.tobytes() == runs[0].tobytes()


def test_inputs_are_checked_against_the_signature() -> None:
    with pytest.raises(InputError, match="takes 1 argument"):
        run_module(load("all_commands"), [])
    with pytest.raises(InputError, match="has 32 bytes but the program imports 16"):
        run_module(load("all_commands"), [np.zeros(8, np.float32)])


def test_missing_kernel_is_a_diagnostic_naming_the_candidates(tmp_path: Path) -> None:
    text = (PROGRAMS / "all_commands.mlir").read_text().replace("@relu", "@ex::@no_such_kernel")
    with pytest.raises(DiagnosticError) as e:
        run_module(parse(text), [np.zeros(4, np.float32)], driver="sync")
    msg = str(e.value)
    assert "no kernel for dispatch @ex::@no_such_kernel" in msg and "'ex::no_such_kernel', 'no_such_kernel', 'ex'" in msg
    assert "--kernels" in msg


def test_out_of_bounds_binding_fails_the_run() -> None:
    text = (PROGRAMS / "all_commands.mlir").read_text().replace("wo %b[%c32 for %c16]", "wo %b[%c48 for %c16]")
    with pytest.raises(ExecutionError, match=r"OUT_OF_BOUNDS: binding 2 \[48, 64\) is outside the resource's 48 bytes"):
        run_module(parse(text), [np.zeros(4, np.float32)], driver="task")


def test_input_level_programs_are_refused_with_advice() -> None:
    text = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n}\n"
    with pytest.raises(DiagnosticError, match="input level; the executor runs cmd-level programs"):
        run_module(parse(text), [np.zeros(4, np.float32)])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 300), st.integers(0, 6), st.integers(0, 3)), min_size=1, max_size=12),
       st.randoms(use_true_random=False), st.booleans())
def test_pack_gives_live_slices_disjoint_aligned_bytes(slices: list[tuple[int, int, int]], rng: Any, shuffled: bool) -> None:
    """In the default order and in any order the chaos driver may pick."""
    sizes = [s for s, _, _ in slices]
    intervals = [(a, a + n) for _, a, n in slices]
    order = None
    if shuffled:
        order = list(range(len(sizes)))
        rng.shuffle(order)
    total, offsets = pack_slices(sizes, intervals, order=order)
    for i in range(len(sizes)):
        assert offsets[i] % 64 == 0 and offsets[i] + sizes[i] <= total
        for j in range(i + 1, len(sizes)):
            live_together = intervals[i][0] <= intervals[j][1] and intervals[j][0] <= intervals[i][1]
            disjoint = offsets[i] + sizes[i] <= offsets[j] or offsets[j] + sizes[j] <= offsets[i]
            assert disjoint or not live_together
    assert total <= sum(-(-s // 64) * 64 for s in sizes)  # never worse than laying them end to end


RAW_DISPATCH = """
util.func public @raw(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %b: !stream.resource<external>{%c12}) {
    stream.cmd.dispatch @ex::@bytes {
      ro %b[%c0 for %c4] : !stream.resource<external>{%c12},
      wo %b[%c4 for %c8] : !stream.resource<external>{%c12}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %arg0 : !stream.resource<external>{%c12}
  util.return %r : !stream.resource<external>
}
"""


@pytest.mark.parametrize("driver", DRIVERS)
def test_bytes_kernels_get_each_binding_as_its_bound_bytes(driver: str) -> None:
    """A `bindings="bytes"` kernel runs dispatches that carry no binding types (IREE's), each
    binding a flat uint8 array of its bound length; a returned resource comes back as bytes."""
    reg = KernelRegistry(DEFAULT_REGISTRY)
    seen: list[tuple[tuple[int, ...], str, bool]] = []

    def spread(src: np.ndarray, out: np.ndarray) -> None:
        seen.extend((a.shape, a.dtype.name, a.flags.writeable) for a in (src, out))
        out[...] = np.tile(src, 2)

    reg.register("ex::bytes", spread, bindings="bytes")
    arg = np.arange(12, dtype=np.uint8)
    result = run_module(parse(RAW_DISPATCH), [arg], driver=driver, kernels=reg, check_races=True)
    assert seen == [((4,), "uint8", False), ((8,), "uint8", True)]
    np.testing.assert_array_equal(result.results[0], [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3])
    assert result.findings == []


DISCARD = """
util.func public @d() -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %b, %t = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c16} => !stream.timepoint
  %e = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t) => with(%b as %x: !stream.resource<external>{%c16}) {
    stream.cmd.fill %one, %x[%c0 for %c16] : f32 -> !stream.resource<external>{%c16}
    stream.cmd.discard %x[%c8 for %c8] : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %w = stream.timepoint.await %e => %b : !stream.resource<external>{%c16}
  %r = stream.tensor.export on(#hal.device.affinity<@dev0>) %w : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %r : !hal.buffer_view
}
"""


@pytest.mark.parametrize("driver", DRIVERS)
def test_discard_makes_the_contents_undefined(driver: str) -> None:
    """After a discard the bytes are undefined: the runtime poisons them (NaN for floats), so a
    program that reads them shows it; with poison=False they are left as they were."""
    (got,) = run_module(parse(DISCARD), [], driver=driver, check_races=True).results
    assert got[:2].tolist() == [1.0, 1.0] and np.isnan(got[2:]).all()
    (kept,) = run_module(parse(DISCARD), [], driver=driver, poison=False).results
    assert kept.tolist() == [1.0, 1.0, 1.0, 1.0]


def test_a_discard_is_a_write_for_the_race_detector() -> None:
    """A concurrent discard and fill of the same bytes race (the discard clobbers)."""
    text = DISCARD.replace("    stream.cmd.fill %one, %x[%c0 for %c16] : f32 -> !stream.resource<external>{%c16}\n"
                           "    stream.cmd.discard %x[%c8 for %c8] : !stream.resource<external>{%c16}\n",
                           "    stream.cmd.concurrent {\n"
                           "      stream.cmd.fill %one, %x[%c0 for %c16] : f32 -> !stream.resource<external>{%c16}\n"
                           "      stream.cmd.discard %x[%c8 for %c8] : !stream.resource<external>{%c16}\n    }\n")
    result = run_module(parse(text), [], driver="sync", check_races=True)
    assert {(f.kind, f.lo, f.hi) for f in result.findings} == {("RACE_WRITE_AFTER_WRITE", 8, 16)}


@pytest.mark.parametrize("check_races", [False, True])
def test_kernels_get_read_only_inputs_and_writable_outputs(check_races: bool) -> None:
    """The calling convention on both paths (the fast one, and the checked one of --check-races):
    ro bindings are read-only arrays, writing one fails the dispatch; an rw binding is one
    writable array passed as input and output; wo bindings are writable."""
    reg = KernelRegistry(DEFAULT_REGISTRY)
    seen: list[tuple[bool, ...]] = []

    def spy(a, b, out):  # type: ignore[no-untyped-def]
        seen.append((a.flags.writeable, b.flags.writeable, out.flags.writeable))
        np.add(a, b, out=out)

    def scribble(x, out):  # type: ignore[no-untyped-def]
        x[0] = 0.0

    reg.register("add", spy)
    x = np.array([-2.0, -0.5, 0.25, 3.0], dtype=np.float32)
    result = run_module(load("all_commands"), [x], driver="sync", kernels=reg, check_races=check_races)
    assert seen == [(False, False, True)]
    np.testing.assert_array_equal(result.results[0], np.maximum(x + 1, 0))
    reg.register("relu", scribble)  # all_commands' relu is rw: its input is writable
    run_module(load("all_commands"), [x], driver="sync", kernels=reg, check_races=check_races)
    reg.register("add", lambda a, b, out: a.__setitem__(0, 1.0))
    with pytest.raises(ExecutionError, match="read-only"):
        run_module(load("all_commands"), [x], driver="task", kernels=reg, check_races=check_races)


def test_a_run_restores_the_garbage_collector() -> None:
    """run_module pauses the cyclic GC while it runs (stream.ir.gc_pause.paused_gc) and must leave it as it
    found it: on, after a run that succeeded or failed; off, if the caller had turned it off."""
    import gc

    assert gc.isenabled()
    run_module(load("all_commands"), [np.zeros(4, np.float32)], driver="task")
    assert gc.isenabled()
    with pytest.raises(InputError):
        run_module(load("all_commands"), [np.zeros(8, np.float32)], driver="task")
    text = (PROGRAMS / "all_commands.mlir").read_text().replace("wo %b[%c32 for %c16]", "wo %b[%c48 for %c16]")
    with pytest.raises(ExecutionError):
        run_module(parse(text), [np.zeros(4, np.float32)], driver="task")
    assert gc.isenabled()
    gc.disable()
    try:
        run_module(load("all_commands"), [np.zeros(4, np.float32)], driver="sync")
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("edit, message", [
    # The windows of cmd.copy and cmd.fill come from their specs' declared accesses.
    (("stream.cmd.copy %a[%c0], %b[%c0], %c16", "stream.cmd.copy %a[%c0], %b[%c48], %c16"),
     r"OUT_OF_BOUNDS: copy target \[48, 64\) is outside the resource's 48 bytes"),
    (("stream.cmd.copy %a[%c0], %b[%c0], %c16", "stream.cmd.copy %a[%c16], %b[%c0], %c16"),
     r"OUT_OF_BOUNDS: copy source \[16, 32\) is outside the resource's 16 bytes"),
    (("%b[%c16 for %c16] : i32", "%b[%c48 for %c16] : i32"), r"OUT_OF_BOUNDS: fill \[48, 64\) is outside the resource's 48 bytes"),
])
def test_out_of_bounds_command_ranges_fail_the_run(edit: tuple[str, str], message: str) -> None:
    text = (PROGRAMS / "all_commands.mlir").read_text()
    assert edit[0] in text
    with pytest.raises(ExecutionError, match=message):
        run_module(parse(text.replace(*edit)), [np.zeros(4, np.float32)], driver="sync")

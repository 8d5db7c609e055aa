"""IREE-built schedules run on the runtime with user kernels for their dispatch symbols.

The cmd-level stages (07..10) of the four IREE 3.13 programs in tests/data/iree/ run under every
driver, and give what numpy computes from the programs' sources (input.linalg.mlir, restated
below by hand). The race detector's verdicts are checked too: IREE writes into the borrowed
`%cache` import of `@kv_update` (tests/data/iree/README.md), which must be the only finding.
"""

from __future__ import annotations

import numpy as np
import pytest
from rt_support import DATA, DRIVERS, iree_kernels, parse  # noqa: F401 (the iree_kernels fixture)

from runtime import run_module

STAGES = ("07_schedule_allocation", "08_cmd_final", "09_reuse_allocations", "10_elide_timepoints")


def _rand(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def diamond(x, wa1, wa2, wb1, wb2):  # type: ignore[no-untyped-def]
    return [np.maximum(x @ wa1, 0) @ wa2 + np.tanh(x @ wb1) @ wb2]


def kv_update(cache, k, w, out):  # type: ignore[no-untyped-def]
    p = k @ w
    u = cache.copy()
    u[0:4] = p
    u[8:12] = -p
    return [u]


def scatter_rows(dst, src, row):  # type: ignore[no-untyped-def]
    u = dst.copy()
    u[row : row + 8] = src * src
    return [u, u[0:8].copy()]


def two_dev(x, wa, wb):  # type: ignore[no-untyped-def]
    return [x @ wa + np.tanh(x @ wb)]


def two_dev_overlap(x, wa, wa2, wb):  # type: ignore[no-untyped-def]
    return [np.tanh(x @ wa) @ wa2 + np.tanh(x @ wb)]


CASES = {
    "diamond": ("b_diamond", diamond, lambda r: [_rand(r, 64, 64) for _ in range(5)]),
    "kv_update": ("d_inplace", kv_update, lambda r: [_rand(r, 16, 64), _rand(r, 4, 32), _rand(r, 32, 64), _rand(r, 16, 64)]),
    "scatter_rows": ("d_inplace", scatter_rows, lambda r: [_rand(r, 128, 16), _rand(r, 8, 16), 3]),
    "two_dev": ("f_multidevice", two_dev, lambda r: [_rand(r, 32, 32) for _ in range(3)]),
    "two_dev_overlap": ("i_multidevice_overlap", two_dev_overlap, lambda r: [_rand(r, 32, 32) for _ in range(4)]),
}


@pytest.mark.usefixtures("iree_kernels")
@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_iree_stage_gives_numpy_results(name: str, stage: str, driver: str) -> None:
    program, expected_fn, make_inputs = CASES[name]
    path = DATA / program / f"{stage}.mlir"
    module = parse(path.read_text(), str(path))
    inputs = make_inputs(np.random.default_rng(1))
    kept = [np.array(a) if isinstance(a, np.ndarray) else a for a in inputs]
    result = run_module(module, inputs, function=name, driver=driver, seed=3, check_races=True)
    expected = expected_fn(*kept)
    assert len(result.results) == len(expected)
    for got, want in zip(result.results, expected):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    # The caller's arrays are never written, even when the program writes an import in place.
    for before, after in zip(kept, inputs):
        if isinstance(before, np.ndarray):
            np.testing.assert_array_equal(before, after)
    kinds = sorted({f.kind for f in result.findings if f.severity == "error"})
    assert kinds == (["BORROWED_INPUT_MUTATED"] if program == "d_inplace" else [])


@pytest.mark.usefixtures("iree_kernels")
def test_kv_update_borrowed_write_names_the_import() -> None:
    """IREE 3.13 writes into the non-consumed `%cache` (argument 0) of @kv_update (IREE #16168)."""
    path = DATA / "d_inplace" / "10_elide_timepoints.mlir"
    module = parse(path.read_text(), str(path))
    r = np.random.default_rng(0)
    result = run_module(module, [_rand(r, 16, 64), _rand(r, 4, 32), _rand(r, 32, 64), _rand(r, 16, 64)],
                        function="kv_update", driver="sync", check_races=True)
    (finding,) = result.findings
    assert finding.kind == "BORROWED_INPUT_MUTATED"
    assert finding.allocation.startswith("argument 0 (import at")
    assert "stream.cmd.copy" in finding.second


@pytest.mark.usefixtures("iree_kernels")
def test_stage_07_leaks_are_warnings() -> None:
    """Before automatic-reference-counting (IREE stage 07) the cross-device transient of @two_dev
    is never deallocated: a LEAK warning, which does not count as an error."""
    path = DATA / "f_multidevice" / "07_schedule_allocation.mlir"
    module = parse(path.read_text(), str(path))
    r = np.random.default_rng(0)
    result = run_module(module, [_rand(r, 32, 32) for _ in range(3)], driver="sync", check_races=True)
    assert [f.kind for f in result.findings] == ["LEAK"]
    assert result.findings[0].severity == "warning" and not result.errors


@pytest.mark.usefixtures("iree_kernels")
def test_iree_multidevice_pools_count_peak_bytes() -> None:
    """Per-device pools: @two_dev allocates 4096 + 16384 bytes on device_b's side (the optimal
    placement picks device_a first for the shared transient) and 4096 on device_a."""
    path = DATA / "f_multidevice" / "10_elide_timepoints.mlir"
    module = parse(path.read_text(), str(path))
    r = np.random.default_rng(0)
    result = run_module(module, [_rand(r, 32, 32) for _ in range(3)], driver="sync")
    assert result.stats.peak_bytes == {"device_a": 4096 + 4096, "device_b": 16384}
    assert result.stats.submissions == 7

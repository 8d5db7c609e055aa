"""Differential testing: compiled programs, run under every driver, give the reference results.

Input-level programs (tests/runtime/programs/input/ and random programs from `program_gen`) are compiled through the default pipeline - with every pass proved
when the verifier is available - and run on the runtime under the sync, task and chaos drivers
with the race detector on. Each run must give the reference interpreter's results and no race or
lifetime finding: the runtime is the second, independent check of what the passes produce.

When the verifier rejects a pass's output the program is still compiled without verification
and must still run correctly: that keeps this test about the runtime and the final schedule,
and never hides a miscompile (a wrong final program fails here).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from program_gen import random_programs
from rt_support import DRIVERS, HERE, ROOT_DIR, parse

import stream.ir as ir
from runtime import run_module, run_reference
from runtime.api import random_inputs, select_function
from runtime.memory import dtype_of
from stream.ir.types import TensorType
from stream.passes import DEFAULT_PIPELINE, PASSES, PassVerificationError, parse_pipeline, run_pipeline
from verify.hook import make_hook

pytestmark = pytest.mark.skipif(any(p not in PASSES for p in DEFAULT_PIPELINE), reason="the compile pipeline is incomplete")

# The repository's examples/ have their own end-to-end test (tests/test_examples.py).
EXAMPLES = sorted((HERE / "programs" / "input").glob("*.mlir"))


def compile_module(module: ir.Module) -> ir.Module:
    pipeline = parse_pipeline(",".join(DEFAULT_PIPELINE))
    try:
        return run_pipeline(module, pipeline, hook=make_hook())[0]
    except PassVerificationError:
        pass  # see the module docstring
    return run_pipeline(module, pipeline, verify="none")[0]


def check_all_drivers(source: ir.Module, name: str, inputs: list[Any], seed: int) -> None:
    compiled = compile_module(source)
    expected = run_reference(source, inputs, name)
    for driver in DRIVERS:
        result = run_module(compiled, inputs, function=name, driver=driver, seed=seed, check_races=True)
        assert [str(f) for f in result.findings if f.severity == "error"] == [], driver
        assert len(result.results) == len(expected)
        for got, want in zip(result.results, expected):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"driver {driver}")


def _inputs_for(path: Path, module: ir.Module, name: str) -> list[Any]:
    if path.name == "dynamic.mlir":
        rng = np.random.default_rng(0)
        return [rng.standard_normal((5, 32)).astype(np.float32), 5, rng.standard_normal((32, 32)).astype(np.float32)]
    return random_inputs(module, name, seed=0)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples(path: Path) -> None:
    module = parse(path.read_text(), str(path))
    name = select_function(module, None).name
    check_all_drivers(module, name, _inputs_for(path, module, name), seed=1)


# examples/ (tested end to end in tests/test_examples.py) here only for the many-seeds sweep; their
# index arguments, by name, also size their dynamic dims.
REPO_EXAMPLES = sorted((ROOT_DIR / "examples").glob("*.mlir"))
REPO_INDEX = {"dynamic.mlir": {"n": 3}, "inplace.mlir": {"pos": 9}, "decode_loop.mlir": {"steps": 3}}


def _sweep_inputs(path: Path, module: ir.Module, name: str) -> list[Any]:
    if path.parent == ROOT_DIR / "examples":
        f = select_function(module, name)
        index = REPO_INDEX.get(path.name, {})
        rng = np.random.default_rng(7)
        out: list[Any] = []
        for arg, t in zip(f.arguments, f.type.inputs):
            if isinstance(t, TensorType):
                dims = tuple(d if d is not None else next(iter(index.values())) for d in t.shape or ())
                draw = rng.standard_normal(dims)
                if np.issubdtype(dtype_of(t.element), np.complexfloating):  # examples/complex.mlir
                    draw = draw + 1j * rng.standard_normal(dims)
                out.append(draw.astype(dtype_of(t.element)))
            else:
                out.append(index[arg.name_hint or ""])
        return out
    return _inputs_for(path, module, name)


@pytest.mark.parametrize("path", EXAMPLES + REPO_EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_compiled_programs_never_trip_the_detector(path: Path) -> None:
    """The compiled (proved) schedule under many chaos seeds: different interleavings, pack
    layouts and inline-or-pooled choices, never a finding and always the reference's results."""
    module = parse(path.read_text(), str(path))
    name = select_function(module, None).name
    inputs = _sweep_inputs(path, module, name)
    compiled = compile_module(module)
    expected = run_reference(module, inputs, name)
    for seed in range(12):
        result = run_module(compiled, inputs, function=name, driver="chaos", seed=seed, check_races=True)
        assert [str(f) for f in result.findings] == [], f"seed {seed}"
        for got, want in zip(result.results, expected):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"seed {seed}")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_programs(), st.integers(0, 2**16))
def test_random_programs(program: tuple[str, int, int], seed: int) -> None:
    text, n_args, n = program
    module = parse(text, "random.mlir")
    rng = np.random.default_rng(seed)
    inputs = [rng.standard_normal((n, n)).astype(np.float32) for _ in range(n_args)]
    check_all_drivers(module, "rand", inputs, seed)

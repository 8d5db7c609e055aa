"""The bundled examples (examples/*.mlir): what a new user tries first must work end to end.

Each example round-trips through both text forms, compiles through the default pipeline with
every pass proved (no fallback), and runs under every driver with the race detector on, giving
the reference interpreter's results.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import stream.ir as ir
from runtime import run_module, run_reference
from runtime.api import select_function
from runtime.memory import dtype_of
from stream.ir.equality import first_difference
from stream.ir.types import ComplexType, IndexType, TensorType
from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline
from verify.hook import make_hook

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.mlir"))
# Index arguments cannot be drawn at random: the values the examples are run with.
INDEX_ARGUMENTS = {"dynamic.mlir": {"n": 5}, "inplace.mlir": {"pos": 14}, "decode_loop.mlir": {"steps": 3}}


def example(path: Path) -> ir.Module:
    return ir.parse_module(path.read_text(), str(path))


def inputs(path: Path, module: ir.Module) -> list[Any]:
    f = select_function(module, None)
    index = INDEX_ARGUMENTS.get(path.name, {})
    names = [a.name_hint for a in f.arguments]
    rng = np.random.default_rng(0)
    out: list[Any] = []
    for name, t in zip(names, f.type.inputs):
        if isinstance(t, IndexType):
            out.append(index[name or ""])
        else:
            assert isinstance(t, TensorType)
            # Every dynamic dim of these examples is sized by their only index argument.
            shape = tuple(d if d is not None else next(iter(index.values())) for d in t.shape or ())
            if isinstance(t.element, ComplexType):  # both parts standard normal
                pair = rng.standard_normal((*shape, 2))
                out.append((pair[..., 0] + 1j * pair[..., 1]).astype(dtype_of(t.element)))
            else:
                out.append(rng.standard_normal(shape).astype(np.float32))
    return out


def test_there_are_examples_of_each_kind() -> None:
    assert {p.name for p in EXAMPLES} >= {"mlp.mlir", "diamond.mlir", "chain.mlir", "inplace.mlir", "dynamic.mlir"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_starts_with_a_one_line_comment(path: Path) -> None:
    assert re.match(r"// \S.*\n(?!//)", path.read_text())


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_round_trips_in_both_forms(path: Path) -> None:
    module = example(path)
    pretty = ir.print_module(module)
    assert ir.print_module(ir.parse_module(pretty, "pretty.mlir")) == pretty
    generic = ir.print_module(module, generic=True)
    assert first_difference(module, ir.parse_module(generic, "generic.mlir")) is None
    assert ir.print_module(ir.parse_module(generic, "generic.mlir"), generic=True) == generic


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_compiles_proved_and_runs_like_the_reference(path: Path) -> None:
    module = example(path)
    compiled, records = run_pipeline(module, parse_pipeline(",".join(DEFAULT_PIPELINE)), hook=make_hook())
    assert [r.name for r in records] == list(DEFAULT_PIPELINE)
    assert all(r.report is not None and r.report.ok for r in records)
    args = inputs(path, module)
    name = select_function(module, None).name
    expected = run_reference(module, [a.copy() if isinstance(a, np.ndarray) else a for a in args], name)
    for driver in ("sync", "task", "chaos"):
        result = run_module(compiled, [a.copy() if isinstance(a, np.ndarray) else a for a in args], driver=driver, seed=3, check_races=True)
        assert [str(f) for f in result.findings] == [], driver
        for got, want in zip(result.results, expected, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"{path.name} under {driver}")

"""stream.builder: built programs are the IR the parser makes, and they compile and run."""

from __future__ import annotations

import numpy as np
import pytest

import stream.ir as ir
from runtime.api import run_module
from runtime.reference import run_reference
from stream.builder import BuilderError, Program, tensor_type
from stream.ir.equality import first_difference
from stream.ir.verifier import verify_structure
from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline
from verify.hook import make_hook


def every_op() -> Program:
    p = Program()
    f = p.function("every_op", n="index", x=("?x4xf32", "n"), w="4x4xf32", s="f32", consume=("w",), device="dev0")
    half = f.scalar(0.5)
    splat = f.splat(half, "?x4xf32", dims=[f["n"]], device="dev1")
    y = f.dispatch("add", f.transfer(f["x"], "dev1"), splat, result="?x4xf32", dims=[f["n"]], device="dev1")
    y = f.dispatch("relu", y, tied=y, device="dev1")
    back = f.transfer(y, "dev0")
    top = f.slice(back, [0, 0], [f["n"], 4])
    k = f.constant(np.array([[1.0, -2.0, 3.0, 0.25]], dtype=np.float32))
    w = f.update(k, f["w"], [1, 0])
    scaled = f.dispatch("scale", top, f["s"], result="?x4xf32", dims=[f["n"]])
    m = f.muli(f.addi(f["n"], 1), 2)
    e = f.empty("?x4xf32", dims=[m])
    c = f.clone(w)
    v = f.load(c, [1, 1])
    st = f.store(v, c, [0, 0])
    f.ret(scaled, w, st, e)
    return p


def test_a_built_module_is_what_its_text_parses_to() -> None:
    module = every_op().build()
    verify_structure(module)
    text = ir.print_module(module)
    assert first_difference(module, ir.parse_module(text, "built.mlir")) is None
    generic = ir.print_module(module, generic=True)
    assert first_difference(module, ir.parse_module(generic, "built.generic.mlir")) is None


def test_every_op_compiles_verified_and_runs_like_the_reference() -> None:
    module = every_op().build()
    compiled, _ = run_pipeline(module, parse_pipeline(",".join(DEFAULT_PIPELINE)), hook=make_hook())
    rng = np.random.default_rng(1)
    args = [3, rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((4, 4)).astype(np.float32), np.float32(0.5)]
    expected = run_reference(module, [a.copy() if isinstance(a, np.ndarray) else a for a in args], "every_op")
    got = run_module(compiled, args, driver="sync").results
    for g, e in zip(got[:3], expected[:3]):  # the last result is an uninitialized flow.tensor.empty
        np.testing.assert_allclose(g, e, rtol=1e-6)
    assert got[3].shape == (8, 4)


def test_a_built_program_compiles_verified_and_computes_what_numpy_does() -> None:
    p = Program()
    f = p.function("chain", x="4x8xf32", w="8x8xf32", b="4x8xf32")
    h = f.dispatch("matmul", f["x"], f["w"], result="4x8xf32")
    r = f.dispatch("relu", f.transfer(h, "dev1"), result="4x8xf32", device="dev1")
    out = f.dispatch("add", f.transfer(r, "dev0"), f["b"], result="4x8xf32")
    f.ret(out)
    compiled, records = run_pipeline(p.build(), parse_pipeline(",".join(DEFAULT_PIPELINE)), hook=make_hook())
    assert all(rec.report is not None and rec.report.ok for rec in records)
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((4, 8), (8, 8), (4, 8)))
    (got,) = run_module(compiled, [x, w, b], driver="sync").results
    np.testing.assert_allclose(got, np.maximum(x @ w, 0) + b, rtol=1e-5, atol=1e-6)


def test_types_read_as_mlir_spells_them() -> None:
    assert str(tensor_type("4x?xf32")) == "tensor<4x?xf32>"
    assert str(tensor_type("tensor<2xi8>")) == "tensor<2xi8>"
    with pytest.raises(BuilderError, match="unknown element type 'f31'"):
        tensor_type("4xf31")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda f: f.splat(1.0, "?x4xf32"), "1 dynamic dim"),
        (lambda f: f.dispatch("relu", f["x"]), "give its result type"),
        (lambda f: f.dispatch("relu", f["x"], result="4xf32", tied={0: f["y"]}), "not an operand"),
        (lambda f: f.slice(f["x"], [0], [1, 1]), "needs 2 starts"),
        (lambda f: f["nope"], "has no argument 'nope'"),
        (lambda f: f.index(f["x"]), "expected an index value"),
    ],
)
def test_mistakes_are_builder_errors(make, message: str) -> None:  # type: ignore[no-untyped-def]
    f = Program().function("f", x="4x4xf32", y="4x4xf32")
    with pytest.raises(BuilderError, match=message):
        make(f)


def test_a_function_must_return_once() -> None:
    p = Program()
    f = p.function("f", x="4xf32")
    with pytest.raises(BuilderError, match="never returns"):
        p.build()
    f.ret(f["x"])
    with pytest.raises(BuilderError, match="already returns"):
        f.ret(f["x"])
    with pytest.raises(BuilderError, match="has returned"):
        f.scalar(1.0)

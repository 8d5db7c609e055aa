"""The kernel registry and the built-in kernels.

Built-in kernels are checked against properties or hand-computed values rather than against the
same numpy expression they are written with: softmax rows sum to one and are shift-invariant,
layernorm gives zero mean and unit variance, gelu matches known values, reductions match loops.
Every kernel must also be right when its output is its input (a tied, in-place dispatch).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from runtime.kernels import DEFAULT_REGISTRY, KernelError, KernelRegistry, kernel, load_kernel_file

R = DEFAULT_REGISTRY


def call(name: str, *inputs: np.ndarray, out_shape: tuple[int, ...], scalars: tuple[object, ...] = ()) -> np.ndarray:
    k = R.get(name)
    assert k is not None, name
    ins = []
    for a in inputs:
        a = np.array(a, dtype=np.float32)
        a.flags.writeable = False
        ins.append(a)
    out = np.full(out_shape, np.nan, dtype=np.float32)
    k(ins, list(scalars), [out])
    return out


def test_the_spec_kernels_are_registered() -> None:
    for name in ("matmul", "add", "mul", "relu", "gelu", "tanh", "softmax", "layernorm", "reduce_sum", "transpose", "scale"):
        assert name in R, name
        assert R.get(name).doc  # type: ignore[union-attr]


def test_elementwise_values() -> None:
    x = np.array([-2.0, -0.5, 0.0, 1.5], np.float32)
    y = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    assert call("add", x, y, out_shape=(4,)).tolist() == [-1.0, 1.5, 3.0, 5.5]
    assert call("sub", x, y, out_shape=(4,)).tolist() == [-3.0, -2.5, -3.0, -2.5]
    assert call("mul", x, y, out_shape=(4,)).tolist() == [-2.0, -1.0, 0.0, 6.0]
    assert call("relu", x, out_shape=(4,)).tolist() == [0.0, 0.0, 0.0, 1.5]
    assert call("neg", x, out_shape=(4,)).tolist() == [2.0, 0.5, 0.0, -1.5]
    assert call("scale", x, scalars=(2.0,), out_shape=(4,)).tolist() == [-4.0, -1.0, 0.0, 3.0]
    assert call("fill", scalars=(7,), out_shape=(2,)).tolist() == [7.0, 7.0]
    np.testing.assert_allclose(call("tanh", x, out_shape=(4,)), [math.tanh(v) for v in x.tolist()], rtol=1e-6)
    np.testing.assert_allclose(call("sigmoid", x, out_shape=(4,)), [1 / (1 + math.exp(-v)) for v in x.tolist()], rtol=1e-6)


def test_add_broadcasts_a_bias_row() -> None:
    x = np.zeros((2, 3), np.float32)
    b = np.array([1.0, 2.0, 3.0], np.float32)
    assert call("add", x, b, out_shape=(2, 3)).tolist() == [[1, 2, 3], [1, 2, 3]]


def test_gelu_known_values() -> None:
    # tanh approximation: gelu(0) = 0, gelu(1) ~= 0.841192, gelu(-1) ~= -0.158808
    got = call("gelu", np.array([0.0, 1.0, -1.0]), out_shape=(3,))
    np.testing.assert_allclose(got, [0.0, 0.841192, -0.158808], atol=1e-5)


def test_matmul_and_transpose() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    expected = [[sum(a[i, k] * b[k, j] for k in range(3)) for j in range(4)] for i in range(2)]
    assert call("matmul", a, b, out_shape=(2, 4)).tolist() == expected
    assert call("transpose", a, out_shape=(3, 2)).tolist() == [[0, 3], [1, 4], [2, 5]]
    c = np.ones((2, 4), np.float32)
    assert call("matmul_add", a, b, c, out_shape=(2, 4)).tolist() == [[v + 1 for v in row] for row in expected]


def test_softmax_rows_sum_to_one_and_are_shift_invariant() -> None:
    x = np.random.default_rng(0).standard_normal((5, 7)).astype(np.float32) * 30
    s = call("softmax", x, out_shape=(5, 7))
    np.testing.assert_allclose(s.sum(axis=1), np.ones(5), rtol=1e-5)
    np.testing.assert_allclose(call("softmax", x + 100, out_shape=(5, 7)), s, rtol=1e-4, atol=1e-7)
    assert np.all(s >= 0)


def test_layernorm_and_rmsnorm_normalise_the_last_axis() -> None:
    x = np.random.default_rng(1).standard_normal((3, 64)).astype(np.float32) * 5 + 2
    y = call("layernorm", x, out_shape=(3, 64))
    np.testing.assert_allclose(y.mean(axis=1), 0, atol=1e-5)
    np.testing.assert_allclose(y.var(axis=1), 1, atol=1e-3)
    gamma, beta = np.full(64, 2.0, np.float32), np.full(64, 1.0, np.float32)
    np.testing.assert_allclose(call("layernorm", x, gamma, beta, out_shape=(3, 64)), 2 * y + 1, rtol=1e-5, atol=1e-5)
    r = call("rmsnorm", x, out_shape=(3, 64))
    np.testing.assert_allclose(np.sqrt((r * r).mean(axis=1)), 1, atol=1e-3)


def test_reductions_drop_trailing_axes_or_keep_dims() -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    sums = [[sum(x[i, j, k] for k in range(4)) for j in range(3)] for i in range(2)]
    assert call("reduce_sum", x, out_shape=(2, 3)).tolist() == sums
    assert call("reduce_sum", x, out_shape=()).tolist() == float(x.sum())
    assert call("reduce_max", x, out_shape=(2, 3, 1)).reshape(2, 3).tolist() == [[x[i, j].max() for j in range(3)] for i in range(2)]
    assert call("reduce_mean", x, out_shape=(2,)).tolist() == [x[0].mean(), x[1].mean()]
    with pytest.raises(ValueError, match="cannot reduce"):
        call("reduce_sum", x, out_shape=(5,))


@pytest.mark.parametrize("name", ["add", "mul", "sub", "relu", "tanh", "gelu", "softmax", "layernorm", "neg", "exp", "square", "scale"])
def test_kernels_are_right_in_place(name: str) -> None:
    """A tied output is the input array itself."""
    k = R.get(name)
    assert k is not None
    x = np.random.default_rng(2).standard_normal((4, 8)).astype(np.float32)
    other = np.random.default_rng(3).standard_normal((4, 8)).astype(np.float32)
    unary = name not in ("add", "mul", "sub")
    scalars = [1.5] if name == "scale" else []
    fresh = np.zeros_like(x)
    k([x, other][: 1 if unary else 2], scalars, [fresh])
    inplace = x.copy()
    k([inplace, other][: 1 if unary else 2], scalars, [inplace])
    np.testing.assert_allclose(inplace, fresh, rtol=1e-6)


def test_decorator_forms_and_calling_styles() -> None:
    reg = KernelRegistry(DEFAULT_REGISTRY)

    @kernel(registry=reg)
    def double(x, out):  # type: ignore[no-untyped-def]
        out[...] = 2 * x

    @kernel("halve", registry=reg)
    def returns(x):  # type: ignore[no-untyped-def]
        return x / 2

    @kernel("split", registry=reg)
    def two(x):  # type: ignore[no-untyped-def]
        return x + 1, x - 1

    x = np.array([2.0, 4.0], np.float32)
    out = np.zeros(2, np.float32)
    reg.get("double")([x], [], [out])  # type: ignore[union-attr]
    assert out.tolist() == [4.0, 8.0]
    reg.get("halve")([x], [], [out])  # type: ignore[union-attr]
    assert out.tolist() == [1.0, 2.0]
    a, b = np.zeros(2, np.float32), np.zeros(2, np.float32)
    reg.get("split")([x], [], [a, b])  # type: ignore[union-attr]
    assert (a.tolist(), b.tolist()) == ([3.0, 5.0], [1.0, 3.0])
    assert "matmul" in reg and "double" not in DEFAULT_REGISTRY  # a child registry leaves the defaults alone


def test_returned_shapes_must_match() -> None:
    reg = KernelRegistry()
    reg.register("bad", lambda x: x[:1])
    with pytest.raises(KernelError, match=r"returned shape \(1,\) for output 0, which has shape \(2,\)"):
        reg.get("bad")([np.zeros(2)], [], [np.zeros(2)])  # type: ignore[union-attr]


def test_wrong_arity_is_explained() -> None:
    reg = KernelRegistry()
    reg.register("three", lambda a, b, c, d, e: None)
    with pytest.raises(KernelError, match="takes 5 argument"):
        reg.get("three")([np.zeros(1)], [], [np.zeros(1)])  # type: ignore[union-attr]


def test_lookup_candidates() -> None:
    assert KernelRegistry.candidates("@ex::@entry") == ["ex::entry", "entry", "ex"]
    assert KernelRegistry.candidates("matmul") == ["matmul"]
    reg = KernelRegistry()
    reg.register("entry", lambda x, out: None)
    assert reg.lookup("@ex::@entry") is reg.get("entry")


def test_declared_binding_types_are_parsed() -> None:
    reg = KernelRegistry()
    k = reg.register("k", lambda x, out: None, bindings=["tensor<4x?xf32>", "tensor<2xi32>"])
    assert [str(t) for t in k.bindings or ()] == ["tensor<4x?xf32>", "tensor<2xi32>"]
    with pytest.raises(KernelError, match="not a ranked tensor type"):
        reg.register("bad", lambda x: x, bindings=["f32"])


def test_kernel_files(tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    good.write_text("import numpy as np\nimport streamproof\n\n@streamproof.kernel\ndef cube_for_test(x, out):\n    out[...] = x ** 3\n")
    assert load_kernel_file(good) == ["cube_for_test"]
    broken = tmp_path / "broken.py"
    broken.write_text("import numpy as np\n\nraise RuntimeError('oops')\n")
    with pytest.raises(KernelError, match=r"broken.py:3: RuntimeError: oops"):
        load_kernel_file(broken)
    with pytest.raises(KernelError, match="no such kernels file"):
        load_kernel_file(tmp_path / "missing.py")
    # Something that exists but is no Python file (a directory here; /dev/null likewise) was
    # reported as "no such kernels file".
    with pytest.raises(KernelError, match="not a regular file"):
        load_kernel_file(tmp_path)


def test_bindings_as_bytes_or_types_only() -> None:
    reg = KernelRegistry()
    assert reg.register("raw", lambda *a: None, bindings="bytes").raw_bytes
    assert not reg.register("typed", lambda x, out: None, bindings=["tensor<4xf32>"] * 2).raw_bytes
    with pytest.raises(KernelError, match='list of tensor types or "bytes"'):
        reg.register("bad", lambda *a: None, bindings="tensor<4xf32>")

"""The built-in numpy kernels (SPEC section 6), by name in `BUILTINS` (which
`runtime.kernels.DEFAULT_REGISTRY` starts with).

Every kernel takes its inputs, then its scalar operands, then its output arrays, and writes the
outputs (see `runtime.kernels` for the calling convention). Inputs are read-only; an output may be
the very array of an input (a tied, in-place result), so every kernel is written to be correct
when `out is x`. Elementwise kernels broadcast their inputs to the output's shape (numpy rules);
reductions and normalisations work on the last axis. Arithmetic happens in the arrays' dtypes;
results are cast to the output's dtype.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

__all__ = ["BUILTINS"]

BUILTINS: dict[str, Callable[..., None]] = {}

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
LAYERNORM_EPS = 1e-5


def _k(fn):  # type: ignore[no-untyped-def]
    BUILTINS[fn.__name__.rstrip("_")] = fn
    return fn


# -- elementwise binary ------------------------------------------------------------------------
@_k
def add(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """out = a + b (broadcasting)."""
    np.add(a, b, out=out, casting="unsafe")


@_k
def sub(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """out = a - b (broadcasting)."""
    np.subtract(a, b, out=out, casting="unsafe")


@_k
def mul(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """out = a * b elementwise (broadcasting)."""
    np.multiply(a, b, out=out, casting="unsafe")


@_k
def div(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """out = a / b (true division, broadcasting)."""
    np.divide(a, b, out=out, casting="unsafe")


@_k
def maximum(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """out = max(a, b) elementwise (NaN propagates)."""
    np.maximum(a, b, out=out, casting="unsafe")


@_k
def minimum(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """out = min(a, b) elementwise (NaN propagates)."""
    np.minimum(a, b, out=out, casting="unsafe")


# -- elementwise unary -------------------------------------------------------------------------
@_k
def neg(x: np.ndarray, out: np.ndarray) -> None:
    """out = -x."""
    np.negative(x, out=out, casting="unsafe")


@_k
def abs_(x: np.ndarray, out: np.ndarray) -> None:
    """out = |x| (registered as `abs`)."""
    np.absolute(x, out=out, casting="unsafe")


@_k
def exp(x: np.ndarray, out: np.ndarray) -> None:
    """out = e**x."""
    np.exp(x, out=out, casting="unsafe")


@_k
def log(x: np.ndarray, out: np.ndarray) -> None:
    """out = natural log of x."""
    np.log(x, out=out, casting="unsafe")


@_k
def sqrt(x: np.ndarray, out: np.ndarray) -> None:
    """out = sqrt(x)."""
    np.sqrt(x, out=out, casting="unsafe")


@_k
def rsqrt(x: np.ndarray, out: np.ndarray) -> None:
    """out = 1 / sqrt(x)."""
    np.divide(1, np.sqrt(x), out=out, casting="unsafe")


@_k
def square(x: np.ndarray, out: np.ndarray) -> None:
    """out = x * x."""
    np.multiply(x, x, out=out, casting="unsafe")


@_k
def relu(x: np.ndarray, out: np.ndarray) -> None:
    """out = max(x, 0)."""
    np.maximum(x, 0, out=out, casting="unsafe")


@_k
def tanh(x: np.ndarray, out: np.ndarray) -> None:
    """out = tanh(x)."""
    np.tanh(x, out=out, casting="unsafe")


@_k
def sigmoid(x: np.ndarray, out: np.ndarray) -> None:
    """out = 1 / (1 + e**-x)."""
    out[...] = 1.0 / (1.0 + np.exp(-x))


@_k
def silu(x: np.ndarray, out: np.ndarray) -> None:
    """out = x * sigmoid(x) (a.k.a. swish)."""
    out[...] = x / (1.0 + np.exp(-x))


@_k
def gelu(x: np.ndarray, out: np.ndarray) -> None:
    """out = GELU(x) with the tanh approximation (as in GPT-2 and PyTorch's approximate='tanh'):
    0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3)))."""
    out[...] = 0.5 * x * (1.0 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))


@_k
def copy(x: np.ndarray, out: np.ndarray) -> None:
    """out = x (identity)."""
    np.copyto(out, x, casting="unsafe")


@_k
def scale(x: np.ndarray, s: object, out: np.ndarray) -> None:
    """out = x * s for a scalar operand `s` (or a one-element tensor)."""
    np.multiply(x, np.asarray(s).reshape(()), out=out, casting="unsafe")


@_k
def fill(value: object, out: np.ndarray) -> None:
    """out[...] = value for a scalar operand."""
    out[...] = value


# -- contractions, reductions, normalisations ----------------------------------------------------
@_k
def matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """out = a @ b (numpy matmul: 2-D, or batched over leading dims)."""
    out[...] = np.matmul(a, b)


@_k
def matmul_add(a: np.ndarray, b: np.ndarray, c: np.ndarray, out: np.ndarray) -> None:
    """out = a @ b + c (c broadcast: a bias row or a full accumulator)."""
    out[...] = np.matmul(a, b) + c


@_k
def transpose(x: np.ndarray, out: np.ndarray) -> None:
    """out = x with its last two axes swapped (a 2-D transpose; 1-D and 0-D arrays are copied)."""
    out[...] = np.swapaxes(x, -1, -2) if x.ndim >= 2 else x


def _reduced_axes(x: np.ndarray, out: np.ndarray) -> tuple[tuple[int, ...], bool]:
    """The axes of `x` a reduction into `out` removes: the trailing ones when `out.shape` is a
    prefix of `x.shape`, or the ones where `out` has size 1 when the ranks agree (keepdims)."""
    if out.shape == x.shape[: out.ndim]:
        return tuple(range(out.ndim, x.ndim)), False
    if out.ndim == x.ndim and all(o in (1, d) for o, d in zip(out.shape, x.shape)):
        return tuple(i for i, (o, d) in enumerate(zip(out.shape, x.shape)) if o == 1 and d != 1), True
    raise ValueError(f"cannot reduce an array of shape {x.shape} into shape {out.shape}")


@_k
def reduce_sum(x: np.ndarray, out: np.ndarray) -> None:
    """Sum over the axes the output drops: trailing axes (tensor<4x8xf32> -> tensor<4xf32>, or to a
    0-d tensor for a full sum), or axes where the output has size 1 (keepdims)."""
    axes, keep = _reduced_axes(x, out)
    out[...] = np.sum(x, axis=axes, keepdims=keep)


@_k
def reduce_max(x: np.ndarray, out: np.ndarray) -> None:
    """Max over the axes the output drops (as reduce_sum)."""
    axes, keep = _reduced_axes(x, out)
    out[...] = np.max(x, axis=axes, keepdims=keep)


@_k
def reduce_mean(x: np.ndarray, out: np.ndarray) -> None:
    """Mean over the axes the output drops (as reduce_sum)."""
    axes, keep = _reduced_axes(x, out)
    out[...] = np.mean(x, axis=axes, keepdims=keep)


@_k
def softmax(x: np.ndarray, out: np.ndarray) -> None:
    """Softmax over the last axis, computed stably: exp(x - max) / sum(exp(x - max))."""
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    out[...] = e / np.sum(e, axis=-1, keepdims=True)


@_k
def layernorm(x: np.ndarray, *rest: np.ndarray) -> None:
    """Layer normalisation over the last axis with eps = 1e-5: `layernorm(x, out)` normalises only;
    `layernorm(x, gamma, beta, out)` also scales and shifts (gamma, beta broadcast on the last axis)."""
    if len(rest) not in (1, 3):
        raise ValueError("layernorm takes (x, out) or (x, gamma, beta, out)")
    out = rest[-1]
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=-1, keepdims=True)
    y = (x - mean) / np.sqrt(var + LAYERNORM_EPS)
    if len(rest) == 3:
        y = y * rest[0] + rest[1]
    out[...] = y


@_k
def rmsnorm(x: np.ndarray, *rest: np.ndarray) -> None:
    """RMS normalisation over the last axis with eps = 1e-5: `rmsnorm(x, out)` or
    `rmsnorm(x, gamma, out)`."""
    if len(rest) not in (1, 2):
        raise ValueError("rmsnorm takes (x, out) or (x, gamma, out)")
    out = rest[-1]
    y = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + LAYERNORM_EPS)
    if len(rest) == 2:
        y = y * rest[0]
    out[...] = y

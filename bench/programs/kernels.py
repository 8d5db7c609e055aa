"""Numpy kernels for the fused dispatches of bench/programs/ (what IREE fused in its dumps)."""

import numpy as np

from streamproof import kernel


@kernel("matmul_relu")
def matmul_relu(x, w, out):
    np.maximum(x @ w, 0, out=out)


@kernel("matmul_tanh")
def matmul_tanh(x, w, out):
    np.tanh(x @ w, out=out)


@kernel("matmul_add")
def matmul_add(x, w, y, out):
    np.add(x @ w, y, out=out)


@kernel("neg")
def neg(x, out):
    np.negative(x, out=out)

"""numpy kernels for the dispatch symbols of the IREE 3.13 dumps in tests/data/iree/.

Each kernel restates, in numpy, the linalg body of the IREE executable with that symbol (read from
the dumps); IREE's dispatches carry no `streamproof.binding_types`, so every kernel declares its
binding types, in binding order. An `rw` binding is passed both as an input and as the output.
"""

import numpy as np

import streamproof

M64 = ["tensor<64x64xf32>"] * 3
M32 = ["tensor<32x32xf32>"] * 3


# b_diamond: relu(x @ wa1) @ wa2 + tanh(x @ wb1) @ wb2, fused into four dispatches.
@streamproof.kernel("diamond_dispatch_0_matmul_64x64x64_f32", bindings=M64)
def diamond_0(x, w, out):
    out[...] = np.maximum(x @ w, 0)


@streamproof.kernel("diamond_dispatch_1_matmul_64x64x64_f32", bindings=M64)
def diamond_1(x, w, out):
    out[...] = np.tanh(x @ w)


@streamproof.kernel("diamond_dispatch_2_matmul_64x64x64_f32", bindings=M64)
def diamond_2(a, b, out):
    out[...] = a @ b


@streamproof.kernel("diamond_dispatch_3_matmul_64x64x64_f32", bindings=["tensor<64x64xf32>"] * 4)
def diamond_3(a, w, c, out):
    out[...] = a @ w + c


# d_inplace: kv_update writes k @ w and its negation into rows of the cache; scatter_rows squares.
@streamproof.kernel("kv_update_dispatch_0_matmul_4x64x32_f32", bindings=["tensor<4x32xf32>", "tensor<32x64xf32>", "tensor<4x64xf32>"])
def kv_matmul(k, w, out):
    out[...] = k @ w


@streamproof.kernel("kv_update_dispatch_1_elementwise_256_f32", bindings=["tensor<256xf32>"] * 2)
def kv_negate(p, _dst, out):  # binding 1 is rw: (p, dst) in, dst out
    out[...] = -p


@streamproof.kernel("scatter_rows_dispatch_0_elementwise_128_f32", bindings=["tensor<128xf32>"] * 2)
def scatter_square(src, _dst, out):
    out[...] = src * src


# f_multidevice: tanh(x @ wb + init) on device_b, then x @ wa + that on device_a.
@streamproof.kernel("two_dev_dispatch_0_matmul_32x32x32_f32", bindings=["tensor<32x32xf32>"] * 4)
def two_dev_0(x, w, init, out):
    out[...] = np.tanh(x @ w + init)


@streamproof.kernel("two_dev_dispatch_1_matmul_32x32x32_f32", bindings=["tensor<32x32xf32>"] * 4)
def two_dev_1(x, w, c, out):
    out[...] = x @ w + c


# i_multidevice_overlap: tanh(tanh(x @ wa) @ wa2 ... ) - see each body.
@streamproof.kernel("two_dev_overlap_dispatch_0_matmul_32x32x32_f32", bindings=M32)
def overlap_0(x, w, out):
    out[...] = np.tanh(x @ w)


@streamproof.kernel("two_dev_overlap_dispatch_1_matmul_32x32x32_f32", bindings=["tensor<32x32xf32>"] * 4)
def overlap_1(_init, x, w, out):  # binding 0 is the (uninitialized) init, overwritten by a fill
    out[...] = np.tanh(x @ w)


@streamproof.kernel("two_dev_overlap_dispatch_2_matmul_32x32x32_f32", bindings=["tensor<32x32xf32>"] * 4)
def overlap_2(a, w, c, out):
    out[...] = a @ w + c

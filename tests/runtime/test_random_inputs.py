"""Random inputs: drawn in each argument's element type, refused above the byte limit."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from runtime.api import random_inputs
from runtime.values import InputError
from stream.ir.parser import parse_module


def module(*types: str) -> object:
    args = ", ".join(f"%a{i}: tensor<{t}>" for i, t in enumerate(types))
    return parse_module(f"func.func @f({args}) -> tensor<{types[0]}> {{\n  return %a0 : tensor<{types[0]}>\n}}\n", "m.mlir")


def test_every_element_type_is_drawn_in_that_type() -> None:
    f16, f32, i8, u16, b = random_inputs(module("64x64xf16", "8xf32", "8xi8", "8xui16", "8xi1"), "f", seed=3)
    assert (f16.dtype, f32.dtype, i8.dtype, u16.dtype, b.dtype) == (np.float16, np.float32, np.int8, np.uint16, np.bool_)
    assert 0.8 < float(f16.astype(np.float64).std()) < 1.2  # standard normal
    assert i8.min() >= -4 and i8.max() <= 4 and u16.max() <= 7
    again = random_inputs(module("64x64xf16", "8xf32", "8xi8", "8xui16", "8xi1"), "f", seed=3)
    assert all(np.array_equal(x, y) for x, y in zip((f16, f32, i8, u16, b), again))  # the seed decides


def test_a_large_f16_input_costs_its_own_size_not_float64() -> None:
    """16 MiB of f16: drawing float64 first (the old way) peaked at 4x the result, 64 MiB more."""
    m = module("4096x2048xf16")
    tracemalloc.start()
    try:
        (x,) = random_inputs(m, "f")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert x.nbytes == 16 << 20 and x.dtype == np.float16
    assert peak < x.nbytes + (12 << 20), peak  # the result plus one chunk of float32 draws


def test_huge_static_tensors_are_refused_before_drawing() -> None:
    m = module("100000x100000xf32")
    with pytest.raises(InputError, match=r"random inputs of @f \(1 tensor\(s\)\): 37.3 GiB .* above the input limit of 1.0 GiB"):
        random_inputs(m, "f")
    with pytest.raises(InputError, match=r"64 bytes is above the input limit of 63 bytes .*--max-input-bytes, or pass --input"):
        random_inputs(module("8xf32", "8xf32"), "f", max_bytes=63)  # 32 bytes each, 64 in all
    assert len(random_inputs(module("8xf32", "8xf32"), "f", max_bytes=64)) == 2


def test_a_negative_seed_is_an_input_error() -> None:
    with pytest.raises(InputError, match="seed must be >= 0"):
        random_inputs(module("8xf32"), "f", seed=-1)

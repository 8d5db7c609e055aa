"""encode-tensors: byte sizes, byte ranges, patterns and the dispatch binding contract."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stream.ir as ir
from stream.ir.attributes import BoolAttr, FloatAttr, IntegerAttr
from stream.ir.diagnostics import DiagnosticError
from stream.ir.types import BF16, F16, F32, I1, I64
from stream.ir.verifier import verify_structure
from stream.passes import PASSES
from stream.passes.encode_tensors import MAX_RUNS, _bits, _narrow, contiguous_runs

UNSCHEDULED = """
util.func public @f(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c16 = arith.constant 16 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %1 = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
  %2 = stream.async.clone on(#hal.device.affinity<@dev0>) %1 : !stream.resource<*>{%c16} -> !stream.resource<*>{%c16}
  %3 = stream.async.cast on(#hal.device.affinity<@dev0>) %2 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %4 = stream.tensor.export on(#hal.device.affinity<@dev0>) %3 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %4 : !hal.buffer_view
}
"""

SCHEDULED = """
util.func public @f(%arg0: !stream.resource<*>) -> !stream.resource<*> {
  %c16 = arith.constant 16 : index
  %r, %t = stream.async.execute with(%arg0 as %a: !stream.resource<*>{%c16}) -> %arg0{%c16} {
    stream.yield %a : !stream.resource<*>{%c16}
  } => !stream.timepoint
  %0 = stream.timepoint.await %t => %r : !stream.resource<*>{%c16}
  util.return %0 : !stream.resource<*>
}
"""


def test_structure_accepts_unknown_lifetimes_before_scheduling() -> None:
    # encode-tensors, materialize-copy-on-write and elide-async-copies all produce async-level
    # IR whose lifetimes refine-usage assigns later.
    verify_structure(ir.parse_module(UNSCHEDULED, "unscheduled.mlir"))


def test_structure_rejects_unknown_lifetimes_once_scheduled() -> None:
    with pytest.raises(DiagnosticError, match=r"resource<\*> at the async level"):
        verify_structure(ir.parse_module(SCHEDULED, "scheduled.mlir"))


# -- byte ranges -----------------------------------------------------------------------------------
@st.composite
def boxes(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=4)))
    lengths = tuple(draw(st.integers(1, d)) for d in shape)
    starts = tuple(draw(st.integers(0, d - n)) for d, n in zip(shape, lengths))
    return shape, starts, lengths, draw(st.sampled_from((1, 2, 4, 8)))


@settings(max_examples=200, deadline=None)
@given(boxes())
def test_contiguous_runs_match_numpy_indexing(box: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]) -> None:
    shape, starts, lengths, width = box
    # The element offsets numpy's row-major indexing selects, in order, grouped into runs of
    # consecutive elements: the expected answer, derived without the pass's stride arithmetic.
    flat = np.arange(int(np.prod(shape))).reshape(shape)[tuple(slice(s, s + n) for s, n in zip(starts, lengths))].reshape(-1)
    expected: list[tuple[int, int, int]] = []
    packed = 0
    for element in flat.tolist():
        if expected and expected[-1][0] + expected[-1][2] == element * width:
            start, dst, n = expected[-1]
            expected[-1] = (start, dst, n + width)
        else:
            expected.append((element * width, packed, width))
        packed += width
    got = contiguous_runs(shape, starts, lengths, width)
    # The pass may split a run where numpy's order happens to continue (a whole inner box next to
    # the next one); merged, the runs must be the same bytes in the same order.
    merged: list[tuple[int, int, int]] = []
    for start, dst, n in got:
        if merged and merged[-1][0] + merged[-1][2] == start and merged[-1][1] + merged[-1][2] == dst:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + n)
        else:
            merged.append((start, dst, n))
    assert merged == expected


def test_patterns_are_element_bits() -> None:
    assert _bits(FloatAttr(1.0, F32), F32) == struct.unpack("<I", struct.pack("<f", 1.0))[0]
    assert _bits(FloatAttr(-2.0, F16), F16) == struct.unpack("<H", struct.pack("<e", -2.0))[0]
    assert _bits(FloatAttr(1.5, BF16), BF16) == struct.unpack("<I", struct.pack("<f", 1.5))[0] >> 16
    assert _bits(BoolAttr(True), I1) == 1
    assert _bits(IntegerAttr(-1, I64), I64) == (1 << 64) - 1
    assert _narrow(0x7F7F7F7F, 4) == (1, 0x7F)
    assert _narrow(0x00010001, 4) == (2, 0x0001)
    assert _narrow(0x3F800000, 4) == (4, 0x3F800000)


STRIDED_DYNAMIC = """
util.func public @f(%i: index, %arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %0 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<4x4xf32> : index
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4x4xf32> in !stream.resource<external>{%0}
  %2 = stream.async.cast on(#hal.device.affinity<@dev0>) %1 : !stream.resource<external>{%0} -> !stream.resource<*>{%0}
  %3 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<2x2xf32> : index
  %4 = stream.tensor.slice on(#hal.device.affinity<@dev0>) %2[%c0, %i for %c2, %c2] : tensor<4x4xf32> in !stream.resource<*>{%0} -> tensor<2x2xf32> in !stream.resource<*>{%3}
  %5 = stream.async.cast on(#hal.device.affinity<@dev0>) %4 : !stream.resource<*>{%3} -> !stream.resource<external>{%3}
  %6 = stream.tensor.export on(#hal.device.affinity<@dev0>) %5 : tensor<2x2xf32> in !stream.resource<external>{%3} -> !hal.buffer_view
  util.return %6 : !hal.buffer_view
}
"""


def test_strided_box_with_dynamic_bounds_is_refused() -> None:
    with pytest.raises(DiagnosticError, match="strided .non-contiguous. box with dynamic bounds"):
        PASSES["encode-tensors"].run(ir.parse_module(STRIDED_DYNAMIC, "strided.mlir"))


def test_too_many_runs_are_refused() -> None:
    n = MAX_RUNS + 1
    text = STRIDED_DYNAMIC.replace("tensor<4x4xf32>", f"tensor<{n}x4xf32>").replace("%i for %c2, %c2", "%c0 for %c2, %c2").replace(
        "%2[%c0, %c0 for %c2, %c2]", "%2[%c0, %c0 for %cn, %c2]").replace("%c2 = arith.constant 2 : index", f"%c2 = arith.constant 2 : index\n  %cn = arith.constant {n} : index").replace(
        "tensor<2x2xf32>", f"tensor<{n}x2xf32>")
    with pytest.raises(DiagnosticError, match=f"covers {n} separate byte runs"):
        PASSES["encode-tensors"].run(ir.parse_module(text, "runs.mlir"))


def test_encodings_are_refused() -> None:
    text = STRIDED_DYNAMIC.replace("tensor<4x4xf32> : index", 'tensor<4x4xf32, "packed"> : index', 1)
    with pytest.raises(DiagnosticError, match="tensor encodings are not supported"):
        PASSES["encode-tensors"].run(ir.parse_module(text, "enc.mlir"))

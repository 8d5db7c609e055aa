"""materialize-copy-on-write: when an in-place write needs a copy, and the borrowed-import gap
IREE has (#16168, the d_inplace example)."""

from __future__ import annotations

import numpy as np
import pytest
from storage_interpreter import ImmutableWrite, run_async
from tests_paths import IREE

import stream.ir as ir
from runtime.kernels import DEFAULT_REGISTRY, KernelRegistry
from stream.analysis.last_use import LastUse
from stream.analysis.storage import Root, StorageInfo, tied_writes
from stream.ir.walk import functions
from stream.passes import PASSES
from stream.passes.materialize_copy_on_write import needs_copy

ASYNC_CHAIN = ("encode-tensors", "materialize-copy-on-write", "elide-async-copies", "refine-usage")


def borrowed_writes(module: ir.Module) -> list[str]:
    """The ops that write a borrowed import in place (following ties and casts)."""
    found = []
    for f in functions(module):
        storage = StorageInfo.of(f.body)
        for op in f.body.ops:
            if any(storage.root(op.operands[i]) is Root.BORROWED for i in tied_writes(op)):
                found.append(f"@{f.name}: {op.name}")
    return found


def test_iree_writes_borrowed_imports_and_streamproof_does_not() -> None:
    iree = ir.parse_module((IREE / "d_inplace" / "02_place_transfer_executions.mlir").read_text(), "02.mlir")
    # IREE writes %cache twice (the update, then the dispatch emplaced into it) and %dst once.
    assert borrowed_writes(iree) == ["@kv_update: stream.async.update", "@kv_update: stream.async.dispatch", "@scatter_rows: stream.async.dispatch"]
    ours = ir.parse_module((IREE / "d_inplace" / "00_conversion.mlir").read_text(), "00.mlir")
    for name in ASYNC_CHAIN:
        ours = PASSES[name].run(ours)
        if name != "encode-tensors":
            assert borrowed_writes(ours) == [], name


def _d_inplace_kernels() -> KernelRegistry:
    registry = KernelRegistry(DEFAULT_REGISTRY)

    def matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
        out[...] = a @ b

    def negate(x: np.ndarray, out: np.ndarray) -> None:
        out[...] = -x

    def square(x: np.ndarray, out: np.ndarray) -> None:
        out[...] = x * x

    registry.register("kv_update_dispatch_0_matmul_4x64x32_f32", matmul)
    registry.register("kv_update_dispatch_1_elementwise_256_f32", negate)
    registry.register("scatter_rows_dispatch_0_elementwise_128_f32", square)
    return registry


def test_d_inplace_values_and_inputs_untouched() -> None:
    # input.linalg.mlir: kv_update writes k@w into rows 0..3 and -(k@w) into rows 8..11 of a copy
    # of %cache; scatter_rows writes src*src into rows row..row+7 of a copy of %dst.
    module = ir.parse_module((IREE / "d_inplace" / "00_conversion.mlir").read_text(), "00.mlir")
    for name in ASYNC_CHAIN:
        module = PASSES[name].run(module)
    kernels = _d_inplace_kernels()
    rng = np.random.default_rng(7)
    cache, k, w, out = (rng.standard_normal(s).astype(np.float32) for s in ((16, 64), (4, 32), (32, 64), (16, 64)))
    expected = cache.copy()
    expected[0:4] = k @ w
    expected[8:12] = -(k @ w)
    (got,) = run_async(module, "kv_update", [cache.copy(), k, w, out.copy()], kernels=kernels)
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    dst, src = rng.standard_normal((128, 16)).astype(np.float32), rng.standard_normal((8, 16)).astype(np.float32)
    scattered = dst.copy()
    scattered[5:13] = src * src
    full, head = run_async(module, "scatter_rows", [dst.copy(), src, 5], kernels=kernels)
    np.testing.assert_allclose(full, scattered)
    np.testing.assert_allclose(head, scattered[0:8])


def test_without_the_borrowed_rule_the_caller_storage_is_written() -> None:
    # Control: the same program with the copies of borrowed imports removed is caught.
    module = ir.parse_module((IREE / "d_inplace" / "00_conversion.mlir").read_text(), "00.mlir")
    encoded = PASSES["encode-tensors"].run(module)
    with pytest.raises(ImmutableWrite, match="borrowed storage"):
        run_async(encoded, "kv_update", [np.zeros((16, 64), np.float32), np.zeros((4, 32), np.float32),
                                         np.zeros((32, 64), np.float32), np.zeros((16, 64), np.float32)], kernels=_d_inplace_kernels())


REASONS = """
util.func public @f(%arg0: !hal.buffer_view, %arg1: !stream.resource<external>) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1_i32 = arith.constant 1 : i32
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<2xi32> in !stream.resource<external>{%c8}
  %1 = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<external>{%c8} -> !stream.resource<*>{%c8}
  %2 = stream.async.fill on(#hal.device.affinity<@dev0>) %c1_i32, %1[%c0 to %c8 for %c8] : i32 -> %1 as !stream.resource<*>{%c8}
  %3 = stream.async.splat on(#hal.device.affinity<@dev0>) %c1_i32 : i32 -> !stream.resource<*>{%c8}
  %4 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%3[%c0 to %c8 for %c8], %3[%c0 to %c8 for %c8]) : (!stream.resource<*>{%c8}, !stream.resource<*>{%c8}) -> %3{%c8}
  %5 = stream.async.splat on(#hal.device.affinity<@dev0>) %c1_i32 : i32 -> !stream.resource<*>{%c8}
  %6 = stream.async.fill on(#hal.device.affinity<@dev0>) %c1_i32, %5[%c0 to %c8 for %c8] : i32 -> %5 as !stream.resource<*>{%c8}
  %7 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%6[%c0 to %c8 for %c8], %5[%c0 to %c8 for %c8]) : (!stream.resource<*>{%c8}, !stream.resource<*>{%c8}) -> !stream.resource<*>{%c8}
  %8 = stream.async.fill on(#hal.device.affinity<@dev0>) %c1_i32, %arg1[%c0 to %c8 for %c8] : i32 -> %arg1 as !stream.resource<external>{%c8}
  %9 = stream.async.cast on(#hal.device.affinity<@dev0>) %7 : !stream.resource<*>{%c8} -> !stream.resource<external>{%c8}
  %10 = stream.tensor.export on(#hal.device.affinity<@dev0>) %9 : tensor<2xi32> in !stream.resource<external>{%c8} -> !hal.buffer_view
  util.return %10 : !hal.buffer_view
}
"""


def test_needs_copy_reasons() -> None:
    f = functions(ir.parse_module(REASONS, "reasons.mlir"))[0]
    storage = StorageInfo.of(f.body)
    last = LastUse.of(f.body, storage)
    writes = [(op, i) for op in f.body.ops for i in tied_writes(op)]
    reasons = [needs_copy(op, i, last, storage.root(op.operands[i])) for op, i in writes]
    assert reasons == [
        "its storage is a borrowed import",
        "the same op also reads it",
        "'stream.async.dispatch' also uses it",
        None,  # a resource argument: caller storage the function may write
    ]

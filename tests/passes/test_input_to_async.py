"""End to end through convert-to-stream .. refine-usage on random and hand-written programs.

Every pass output passes the structural verifier and the invariant its pass promises, and
computes what the input computes: the reference interpreter runs the input program, the
storage-semantics interpreter (`storage_interpreter.py`: in-place writes really share buffers,
borrowed imports and constants are read-only) runs the async-level output of each pass.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from storage_interpreter import ImmutableWrite, run_async
from strategies import RandomProgram, programs

import stream.ir as ir
from runtime.reference import run_reference
from stream.analysis.storage import Root, StorageInfo, tied_writes
from stream.ir.spec import affinity_of
from stream.ir.types import Lifetime, ResourceType, TensorType
from stream.ir.verifier import verify_structure
from stream.ir.walk import functions
from stream.passes import PASSES

STAGES = ("convert-to-stream", "encode-tensors", "materialize-copy-on-write", "elide-async-copies", "refine-usage")


def lower(module: ir.Module) -> dict[str, ir.Module]:
    """The output of each of the five passes, each checked by the structural verifier."""
    out = {}
    for name in STAGES:
        before = ir.print_module(module)
        result = PASSES[name].run(module)
        assert ir.print_module(module) == before, f"{name} mutated its input"
        verify_structure(result)
        out[name] = module = result
    return out


def inputs_for(p: RandomProgram, seed: int = 0) -> list[object]:
    rng = np.random.default_rng(seed)
    values = p.index_values()
    return [a.value if a.kind == "index" else rng.standard_normal(a.concrete_shape(values)).astype(np.float32) for a in p.args]


def fresh(args: list[object]) -> list[object]:
    return [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]


def check_invariants(stages: dict[str, ir.Module]) -> None:
    for f in functions(stages["convert-to-stream"]):
        for op in f.op.walk():
            assert not any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)), op.name
            if op.name.startswith("stream.") and op.name not in ("stream.tensor.load",):
                assert affinity_of(op) is not None, f"{op.name} has no device"
    for f in functions(stages["encode-tensors"]):
        assert all(not op.name.startswith("stream.tensor.") or op.name in ("stream.tensor.import", "stream.tensor.export") for op in f.body.ops)
    for f in functions(stages["materialize-copy-on-write"]):
        storage = StorageInfo.of(f.body)
        for op in f.body.ops:
            for index in tied_writes(op):
                v = op.operands[index]
                assert len(storage.uses[v]) == 1, f"{op.name} writes a value with other uses"
                assert storage.root(v) not in (Root.BORROWED, Root.CONSTANT), f"{op.name} writes {storage.root(v)}"
    for f in functions(stages["refine-usage"]):
        for op in f.op.walk():
            assert op.name != "stream.async.cast"
            for v in (*op.operands, *op.results):
                assert not (isinstance(v.type, ResourceType) and v.type.lifetime is Lifetime.UNKNOWN), op.name


def check_values(p: RandomProgram, stages: dict[str, ir.Module]) -> None:
    args = inputs_for(p)
    expected = run_reference(ir.parse_module(p.text, "p.mlir"), fresh(args), p.function)
    for name in STAGES[1:]:
        # Before copy-on-write only value semantics hold; from it on, in-place writes are real.
        got = run_async(stages[name], p.function, fresh(args), in_place=name != "encode-tensors")
        assert len(got) == len(expected)
        for e, g in zip(expected, got):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(e), err_msg=f"after {name}")


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs(max_ops=10))
def test_random_programs_lower_and_keep_their_values(p: RandomProgram) -> None:
    stages = lower(ir.parse_module(p.text, "p.mlir"))
    check_invariants(stages)
    check_values(p, stages)


IN_PLACE = """
func.func @main(%cache: tensor<4x4xf32>, %k: tensor<2x4xf32>, %n: index, %d: tensor<?x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<?x4xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = flow.dispatch @relu(%k) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %u0 = flow.tensor.update %r, %cache[%c0, %c0] : tensor<2x4xf32> -> %cache as tensor<4x4xf32>
  %t = flow.dispatch @tanh(%u0) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<4x4xf32>) -> %u0
  %col = flow.tensor.slice %t[%c0, %c1 for %c2, %c2] : tensor<4x4xf32> -> tensor<2x2xf32>
  %back = flow.tensor.transfer %col : tensor<2x2xf32> to #hal.device.affinity<@dev0>
  %u1 = flow.tensor.update %back, %u0[%c2, %c2] : tensor<2x2xf32> -> %u0 as tensor<4x4xf32>
  %e = flow.dispatch @gelu(%d) : (tensor<?x4xf32>{%n}) -> %d{%n}
  %v = flow.tensor.load %t[%c1, %c1] : tensor<4x4xf32>
  %s = flow.tensor.store %v, %u1[%c0, %c0] : tensor<4x4xf32>
  return %s, %cache, %e, %v : tensor<4x4xf32>, tensor<4x4xf32>, tensor<?x4xf32>, f32
}
"""


def test_hand_written_program_with_every_input_op() -> None:
    # Borrowed arguments written in place (directly and through ties), a strided slice, an
    # update with a transfer, a dynamic shape, a host load and store, two devices.
    module = ir.parse_module(IN_PLACE, "in_place.mlir")
    stages = lower(module)
    check_invariants(stages)
    rng = np.random.default_rng(3)
    args = [rng.standard_normal((4, 4)).astype(np.float32), rng.standard_normal((2, 4)).astype(np.float32), 3,
            rng.standard_normal((3, 4)).astype(np.float32)]
    expected = run_reference(module, fresh(args), "main")
    for name in STAGES[1:]:
        got = run_async(stages[name], "main", fresh(args), in_place=name != "encode-tensors")
        for e, g in zip(expected, got):
            np.testing.assert_allclose(np.asarray(g), np.asarray(e), err_msg=f"after {name}")


def test_the_oracle_sees_a_missing_copy() -> None:
    # Without materialize-copy-on-write the program writes its borrowed argument in place:
    # the storage interpreter must notice (else the value checks above prove nothing).
    module = ir.parse_module(IN_PLACE, "in_place.mlir")
    encoded = PASSES["encode-tensors"].run(PASSES["convert-to-stream"].run(module))
    args = [np.ones((4, 4), np.float32), np.ones((2, 4), np.float32), 2, np.ones((2, 4), np.float32)]
    with pytest.raises(ImmutableWrite):
        run_async(encoded, "main", args)

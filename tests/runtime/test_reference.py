"""The reference interpreter on input-level programs: value semantics and every flow op."""

from __future__ import annotations

import numpy as np
import pytest
from rt_support import parse

from runtime import InputError, run_reference
from runtime.kernels import DEFAULT_REGISTRY, KernelRegistry
from runtime.reference import ReferenceKernelError
from stream.ir.diagnostics import DiagnosticError

FLOW_OPS = """
func.func @ops(%x: tensor<4x4xf32>, %n: index) -> (tensor<2x4xf32>, tensor<4x4xf32>, f32, tensor<4x4xf32>, tensor<4x4xf32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %v = arith.constant 9.0 : f32
  %s = flow.tensor.slice %x[%c1, %c0 for %c2, %c4] : tensor<4x4xf32> -> tensor<2x4xf32>
  %z = flow.tensor.splat %v : tensor<2x4xf32>
  %u = flow.tensor.update %z, %x[%c2, %c0] : tensor<2x4xf32> -> %x as tensor<4x4xf32>
  %l = flow.tensor.load %x[%c1, %c2] : tensor<4x4xf32>
  %st = flow.tensor.store %v, %x[%c0, %c0] : tensor<4x4xf32>
  %t = flow.tensor.transfer %x : tensor<4x4xf32> to #hal.device.affinity<@dev1>
  %cl = flow.tensor.clone %t : tensor<4x4xf32>
  %m = arith.muli %n, %c4 : index
  return %s, %u, %l, %st, %cl, %m : tensor<2x4xf32>, tensor<4x4xf32>, f32, tensor<4x4xf32>, tensor<4x4xf32>, index
}
"""


def test_flow_ops() -> None:
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    s, u, loaded, st, cl, m = run_reference(parse(FLOW_OPS), [x, 3], "ops")
    assert s.tolist() == x[1:3].tolist()
    expected_u = x.copy()
    expected_u[2:4] = 9.0
    assert u.tolist() == expected_u.tolist()
    assert loaded == 6.0
    expected_st = x.copy()
    expected_st[0, 0] = 9.0
    assert st.tolist() == expected_st.tolist()
    assert cl.tolist() == x.tolist() and m == 12
    assert x.tolist() == np.arange(16, dtype=np.float32).reshape(4, 4).tolist()  # the input is untouched


TIED = """
func.func @tied(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = flow.dispatch @add(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> %a
  %d = flow.dispatch @mul(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %c, %d : tensor<4xf32>, tensor<4xf32>
}
"""


def test_tied_dispatch_keeps_value_semantics() -> None:
    """`-> %a` computes in place in a copy: the later use of %a still sees the old value."""
    a = np.array([1, 2, 3, 4], np.float32)
    b = np.array([10, 20, 30, 40], np.float32)
    c, d = run_reference(parse(TIED), [a, b], "tied")
    assert c.tolist() == [11, 22, 33, 44]
    assert d.tolist() == [10, 40, 90, 160]
    assert a.tolist() == [1, 2, 3, 4]


OUTPUT_ORDER = """
func.func @order(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r:3 = flow.dispatch @three(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, %b, tensor<2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
"""


def test_outputs_come_in_binding_order() -> None:
    """In-place results first (by operand), then the others in result order: the order of the
    cmd-level `rw` then `wo` bindings (docs/CONVENTIONS.md)."""
    reg = KernelRegistry(DEFAULT_REGISTRY)
    seen: list[list[float]] = []

    def three(a, b, tied_b, first, third):  # type: ignore[no-untyped-def]
        assert tied_b is b
        seen.append(list(b))
        tied_b[...] = 1
        first[...] = 2
        third[...] = 3

    reg.register("three", three)
    r0, r1, r2 = run_reference(parse(OUTPUT_ORDER), [np.zeros(2, np.float32), np.full(2, 7.0, np.float32)], "order", reg)
    assert (r0.tolist(), r1.tolist(), r2.tolist()) == ([2, 2], [1, 1], [3, 3]) and seen == [[7.0, 7.0]]


def test_dynamic_dims_and_scalar_operands() -> None:
    text = """
func.func @dyn(%x: tensor<?x3xf32>, %n: index, %s: f32) -> tensor<?x3xf32> {
  %y = flow.dispatch @scale(%x, %s) : (tensor<?x3xf32>{%n}, f32) -> tensor<?x3xf32>{%n}
  return %y : tensor<?x3xf32>
}
"""
    x = np.ones((5, 3), np.float32)
    (y,) = run_reference(parse(text), [x, 5, np.float32(2.5)], "dyn")
    assert y.shape == (5, 3) and np.all(y == 2.5)


def test_empty_reads_as_poison() -> None:
    text = """
func.func @e() -> tensor<2xf32> {
  %e = flow.tensor.empty : tensor<2xf32>
  return %e : tensor<2xf32>
}
"""
    (e,) = run_reference(parse(text), [], "e")
    assert np.isnan(e).all() and e.view(np.uint32).tolist() == [0xFFFFFFFF] * 2


def test_dense_constants_and_arith() -> None:
    text = """
func.func @k() -> (tensor<3xi32>, index, i32) {
  %c = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %a = arith.constant 7 : index
  %b = arith.constant 3 : index
  %q = arith.divui %a, %b : index
  %m = arith.constant 2147483647 : i32
  %one = arith.constant 1 : i32
  %w = arith.addi %m, %one : i32
  return %c, %q, %w : tensor<3xi32>, index, i32
}
"""
    c, q, w = run_reference(parse(text), [], "k")
    assert c.tolist() == [1, 2, 3] and q == 2 and w == -(2**31)  # i32 wraps


def test_errors() -> None:
    with pytest.raises(InputError, match="must be tensor<4xf32>, got an array of shape"):
        run_reference(parse(TIED), [np.zeros(3, np.float32), np.zeros(4, np.float32)], "tied")
    with pytest.raises(InputError, match="must hold f32"):
        run_reference(parse(TIED), [np.zeros(4, np.int32), np.zeros(4, np.float32)], "tied")
    with pytest.raises(DiagnosticError, match="no kernel for dispatch @nope"):
        run_reference(parse(TIED.replace("@add", "@nope")), [np.zeros(4, np.float32)] * 2, "tied")
    reg = KernelRegistry(DEFAULT_REGISTRY)
    reg.register("add", lambda a, b, out: 1 / 0)
    with pytest.raises(ReferenceKernelError, match="kernel 'add' failed in the reference interpreter"):
        run_reference(parse(TIED), [np.zeros(4, np.float32)] * 2, "tied", reg)

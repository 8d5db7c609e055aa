"""Refinement with bindings a kernel overwrites whole (`verify.refinement.overwrites`).

IREE ties a dispatch's result to the uninitialized or dead buffer it fills (a concat target), so
the binding is `rw`; the kernel's subspan is `writeonly` and it stores one whole tensor there.
Two layouts leave different dead bytes in that range: the kernel's output must not depend on them
(squeezenet and alexnet stage 10 against 07 were VALUE_MISMATCH for this reason). Each program
below fills the first 64 bytes of a slab, leaves 9 (BEFORE: 7) in the other 64 as dead bytes, and
runs a kernel reading the first half and binding the second half `rw`.
"""

from __future__ import annotations

import pytest
from conftest import parse

from verify.refinement import check_refinement


def program(mode: str, dead: str, store_sizes: str = "16", store_at: str = "top") -> str:
    store = ('"iree_tensor_ext.dispatch.tensor.store"(%x, %b) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>, '
             f'static_offsets = array<i64: 0>, static_sizes = array<i64: {store_sizes}>, static_strides = array<i64: 1>}}> : '
             f'(tensor<16xf32>, !iree_tensor_ext.dispatch.tensor<{mode}:tensor<16xf32>>) -> ()')
    if store_at == "region":  # the store runs only on some path
        store = f'"scf.if"(%cond) ({{\n        {store}\n        "scf.yield"() : () -> ()\n      }}, {{\n        "scf.yield"() : () -> ()\n      }}) : (i1) -> ()'
    return f"""
stream.executable private @ex {{
  stream.executable.export public @k
  builtin.module {{
    func.func @k(%in: !stream.binding, %out: !stream.binding) {{
      %c0 = arith.constant 0 : index
      %cond = arith.constant true
      %a = stream.binding.subspan %in[%c0] : !stream.binding -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<16xf32>>
      %b = stream.binding.subspan %out[%c0] : !stream.binding -> !iree_tensor_ext.dispatch.tensor<{mode}:tensor<16xf32>>
      %x = "iree_tensor_ext.dispatch.tensor.load"(%a) <{{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: 16>, static_strides = array<i64: 1>}}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<16xf32>>) -> tensor<16xf32>
      {store}
      return
    }}
  }}
}}
util.func public @f() -> !stream.resource<external> {{
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c1_i32 = arith.constant 1 : i32
  %dead = arith.constant {dead} : i32
  %slab, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{{%c128}} => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%slab as %s: !stream.resource<external>{{%c128}}) {{
    stream.cmd.fill %c1_i32, %s[%c0 for %c64] : i32 -> !stream.resource<external>{{%c128}}
    stream.cmd.fill %dead, %s[%c64 for %c64] : i32 -> !stream.resource<external>{{%c128}}
    stream.cmd.dispatch @ex::@k {{
      ro %s[%c0 for %c64] : !stream.resource<external>{{%c128}},
      rw %s[%c64 for %c64] : !stream.resource<external>{{%c128}}
    }}
  }} => !stream.timepoint
  %r = stream.timepoint.await %t1 => %slab : !stream.resource<external>{{%c128}}
  util.return %r : !stream.resource<external>
}}
"""


def refines(**kind: str) -> bool:
    report = check_refinement(parse(program(dead="7", **kind), "before.mlir"), parse(program(dead="9", **kind), "after.mlir"))
    assert report.unknowns == []
    return not report.mismatches


def test_a_kernel_storing_a_whole_writeonly_tensor_does_not_read_the_dead_bytes() -> None:
    assert refines(mode="writeonly")


@pytest.mark.parametrize("kind", [
    {"mode": "readwrite"},                        # it may read the old bytes
    {"mode": "writeonly", "store_sizes": "8"},    # it stores half: the rest keeps the dead bytes
    {"mode": "writeonly", "store_at": "region"},  # the store may not run
], ids=["readwrite", "partial-store", "conditional-store"])
def test_otherwise_the_dead_bytes_still_differ(kind: dict[str, str]) -> None:
    assert not refines(**kind)

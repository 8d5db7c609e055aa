"""encode-tensors: byte sizes, byte ranges, patterns and the dispatch binding contract."""

from __future__ import annotations

import pytest

import stream.ir as ir
from stream.ir.diagnostics import DiagnosticError
from stream.ir.verifier import verify_structure

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

"""Calls to private functions with a summary (issue 9 item 6, the caller's side; `verify.calls`).

The corpus holds the verdicts (`proofs/corpus/async_call_handoff_*`, `async_call_summary_*`,
`async_call_recursive`); here: what a summary says, and why a call has none.
"""

from __future__ import annotations

from pathlib import Path

import stream.ir as ir
from stream.ir.walk import functions
from verify import verify_module
from verify.calls import CallSummary, summarize
from verify.model import READ, WRITE

CORPUS = Path(__file__).resolve().parents[2] / "proofs" / "corpus"


def _call_of(m: ir.Module, caller: str) -> ir.Op:
    (f,) = [f for f in functions(m) if f.name == caller]
    (op,) = [op for op in f.body.ops if op.name == "util.call"]
    return op


def summary(text: str, caller: str = "main") -> CallSummary | str:
    m = ir.parse_module(text, "call.mlir")
    return summarize(m, _call_of(m, caller))


def test_a_callee_writing_its_argument_in_place_returns_its_storage() -> None:
    s = summary((CORPUS / "async_call_summary_in_place_ok.mlir").read_text())
    assert isinstance(s, CallSummary)
    assert s.callee == "bump" and s.written == {0} and s.modes[0] & WRITE and s.results == {0: 0}
    assert s.handed_in == {} and s.timepoints == {}


def test_a_callee_handing_a_fresh_value_over_reads_its_argument_once_given() -> None:
    s = summary((CORPUS / "async_call_handoff_awaited.mlir").read_text())
    assert isinstance(s, CallSummary)
    assert s.modes == {0: READ} and s.written == frozenset() and s.results == {0: None} and s.handed_in == {0: 1}


def test_no_summary_for_recursive_declared_public_or_unmodelled_callees() -> None:
    recursive = (CORPUS / "async_call_recursive.mlir").read_text()
    assert "recursion is not modelled" in str(summary(recursive))
    assert "recursion is not modelled" in str(summary(recursive, caller="loop"))
    declared = (CORPUS / "async_call_tie.mlir").read_text()
    assert "declared only" in str(summary(declared, caller=_only_caller(declared)))
    in_place = (CORPUS / "async_call_summary_in_place_ok.mlir").read_text()
    assert "not a private function" in str(summary(in_place.replace("util.func private @bump", "util.func public @bump")))
    barrier = in_place.replace("  util.return %w : !stream.resource<external>",
                               "  %z = util.optimization_barrier %w : !stream.resource<external>\n  util.return %z : !stream.resource<external>")
    assert "util.optimization_barrier" in str(summary(barrier))
    # Without a summary the call is an op without an effect rule: undecided, the reason named.
    report = verify_module(ir.parse_module(barrier, "barrier.mlir"))
    assert report.status == "unknown" and any("util.optimization_barrier" in u.reason for u in report.unknowns)


def _only_caller(text: str) -> str:
    m = ir.parse_module(text, "call.mlir")
    return next(f.name for f in functions(m) if any(op.name == "util.call" for op in f.body.ops))


PAIR = """
util.func private @copy_into(%x: !stream.resource<external>, %y: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%x as %a: !stream.resource<external>{%c64}, %y as %b: !stream.resource<external>{%c64}) -> %x{%c64} {
    %z = stream.async.copy %b[%c0 to %c64], %a[%c0 to %c64], %c64 : !stream.resource<external>{%c64} -> %a as !stream.resource<external>{%c64}
    stream.yield %z : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %w = stream.timepoint.await %t => %r : !stream.resource<external>{%c64}
  util.return %w : !stream.resource<external>
}
util.func public @main(%v0: !hal.buffer_view, %v1: !hal.buffer_view) -> !hal.buffer_view {
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %v0 : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %other = stream.tensor.import on(#hal.device.affinity<@dev0>) %v1 : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %b = util.call @copy_into(%in, SECOND) : (!stream.resource<external>, !stream.resource<external>) -> !stream.resource<external>
  %o = stream.tensor.export on(#hal.device.affinity<@dev0>) %b : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
"""


def test_a_call_passing_one_storage_as_two_arguments_has_no_summary() -> None:
    """@copy_into was proved assuming its arguments do not alias: passing %in twice (it writes
    the first) is undecided, with the reason; two distinct imports are proved."""
    assert verify_module(ir.parse_module(PAIR.replace("SECOND", "%other"), "pair.mlir")).ok
    report = verify_module(ir.parse_module(PAIR.replace("SECOND", "%in"), "same.mlir"))
    assert report.status == "unknown" and any("passes one storage as arguments #0 and #1" in u.reason for u in report.unknowns)

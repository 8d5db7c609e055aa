"""`stream.timepoint.await` is a pure op (issue 9 item 1; `stream.dialect.awaits`).

An await orders only the ops that use its results (or values derived from them); one nobody
uses orders nothing; only a `sync` await orders every later host op. The verifier (async and
cmd level), the timepoint coverage the passes share, elide-timepoints and the scheduling passes'
final waits all follow that rule. The corpus (`proofs/corpus/*dead_await*`, `*sync_await*`,
`*awaited_*`) and `tests/runtime/test_races.py` hold the matching programs for the verifier and
the race detector.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import stream.ir as ir
from stream.analysis.timepoint_coverage import TimepointCoverage
from stream.dialect.awaits import Gates
from stream.ir.spec import view
from stream.ir.walk import functions
from stream.passes.elide_timepoints import elide_timepoints
from streamproof import api
from verify import verify_module

ROOT = Path(__file__).resolve().parents[2]

CMD = """
util.func private @g(!stream.resource<external>) -> i32
util.func public @f(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %out = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64}
  %out2 = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64}
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c64}, %out as %o: !stream.resource<external>{%c64}, %out2 as %p: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@two {
      ro %a[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %o[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %p[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
AWAIT
  util.return %v : !hal.buffer_view
}
"""


def cmd(body: str) -> ir.Module:
    return ir.parse_module(CMD.replace("AWAIT", body.strip("\n")), "await.mlir")


EXPORT = "  %v = stream.tensor.export on(#hal.device.affinity<@dev0>) {src} : tensor<16xf32> in !stream.resource<external>{{%c64}} -> !hal.buffer_view"
EXPORT2 = EXPORT.replace("%v =", "%v2 =")


def classes(m: ir.Module) -> set[str]:
    return {v.cls for v in verify_module(m).violations if v.severity == "error"}


def test_an_await_nobody_uses_orders_nothing() -> None:
    dead = cmd("  %dead = stream.timepoint.await %t1 => %out : !stream.resource<external>{%c64}\n" + EXPORT.format(src="%out"))
    assert classes(dead) == {"MISSED_WAIT"}


def test_the_users_of_an_await_are_ordered_after_it() -> None:
    used = cmd("  %r = stream.timepoint.await %t1 => %out : !stream.resource<external>{%c64}\n" + EXPORT.format(src="%r"))
    assert verify_module(used).ok


def test_a_sync_await_orders_every_later_host_op() -> None:
    sync = cmd("  %dead = stream.timepoint.await sync %t1 => %out : !stream.resource<external>{%c64}\n" + EXPORT.format(src="%out"))
    assert verify_module(sync).ok


TWO = "  %r:2 = stream.timepoint.await %t1 => %out, %out2 : !stream.resource<external>{%c64}, !stream.resource<external>{%c64}\n"


def test_a_pure_host_consumer_orders_only_itself() -> None:
    """An export is pure: exporting %r#0 does not make the host wait, so an export of the
    un-awaited twin %out2 after it is a MISSED_WAIT (before it, too)."""
    after = cmd(TWO + EXPORT.format(src="%r#0") + "\n" + EXPORT2.format(src="%out2"))
    assert classes(after) == {"MISSED_WAIT"}
    before = cmd(TWO + EXPORT2.format(src="%out2") + "\n" + EXPORT.format(src="%r#0"))
    assert classes(before) == {"MISSED_WAIT"}
    both = cmd(TWO + EXPORT.format(src="%r#0") + "\n" + EXPORT2.format(src="%r#1"))
    assert verify_module(both).ok


def test_a_host_consumer_with_effects_carries_the_await_on_in_program_order() -> None:
    """The await sits before its first consumer (IREE's SinkAwaitToFirstConsumer); a consumer with
    effects (here a call) blocks the host there, and host program order carries that on: an
    export of the un-awaited twin after the call is ordered, one before it is not."""
    call = "  %n = util.call @g(%r#0) : (!stream.resource<external>) -> i32"
    after = cmd(TWO + call + "\n" + EXPORT.format(src="%out2"))
    assert verify_module(after).ok
    before = cmd(TWO + EXPORT.format(src="%out2") + "\n" + call)
    assert "MISSED_WAIT" in classes(before) or verify_module(before).status == "unknown"


def test_gates_follow_ssa_through_pass_through_ops() -> None:
    m = cmd("""  %r = stream.timepoint.await %t1 => %out : !stream.resource<external>{%c64}
  %c32 = arith.constant 32 : index
  %s = stream.resource.subview %r[%c0] : !stream.resource<external>{%c64} -> !stream.resource<external>{%c32}
  %b, %bt = stream.timepoint.barrier %s : !stream.resource<external>{%c32} => !stream.timepoint
  %again = stream.timepoint.await sync %t1 => %b : !stream.resource<external>{%c32}
""" + EXPORT.format(src="%out"))
    (f,) = [g for g in functions(m) if g.name == "f"]
    ops = {op.results[0].name_hint: op for op in f.body.ops if op.results and op.results[0].name_hint}
    t1 = ops["t1"].results[0]
    gates = Gates()
    seen = {}
    for op in f.body.ops:
        seen[op] = gates.step(op)
    assert seen[ops["r"]] == frozenset() and gates.carried[ops["r"].results[0]] == {t1}
    assert seen[ops["s"]] == frozenset() and gates.carried[ops["s"].results[0]] == {t1}  # a subview passes it on
    assert seen[ops["b"]] == frozenset() and gates.barrier_carried(ops["b"]) == {t1}  # so does a barrier
    assert seen[ops["again"]] == {t1}  # a sync await is a host op using the value
    assert seen[ops["v"]] == frozenset()  # the export uses the un-awaited %out


def _coverage(m: ir.Module) -> tuple[TimepointCoverage, dict[str, int], ir.Value]:
    (f,) = [g for g in functions(m) if g.name == "f"]
    cov = TimepointCoverage.of(f.body)
    names = {op.results[0].name_hint: i for i, op in enumerate(f.body.ops) if op.results and op.results[0].name_hint}
    t1 = f.body.ops[names["t1"]].results[0]
    return cov, names, t1


def test_coverage_counts_an_await_from_its_first_host_consumer_with_effects_on() -> None:
    call = "  %n = util.call @g(%r) : (!stream.resource<external>) -> i32\n"
    cov, at, t1 = _coverage(cmd("  %r = stream.timepoint.await %t1 => %out : !stream.resource<external>{%c64}\n"
                                "  %x = arith.constant 1 : index\n" + call + EXPORT.format(src="%r")))
    assert not cov.host_covered(at["x"], t1)  # between the await and its consumer
    assert not cov.host_covered(at["n"], t1)  # the consumer itself is issued before it waits
    assert cov.host_covered(at["n"] + 1, t1)  # everything after the consumer
    # An export is pure: the host does not wait for it, and a dead await covers nothing.
    for first in (EXPORT.format(src="%r"), EXPORT.format(src="%out")):
        pure, at, t1 = _coverage(cmd("  %r = stream.timepoint.await %t1 => %out : !stream.resource<external>{%c64}\n" + first))
        assert not any(pure.host_covered(i, t1) for i in range(at["v"] + 2))


ELIDE = """
util.func public @e(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.fill %c0, %a[%c0 for %c64] : index -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %h = stream.timepoint.await %e0 => %arg0 : !stream.resource<external>{%c64}
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%e0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %arg1 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %b[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %o = stream.timepoint.await sync %e1 => %arg1 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}
"""


def _execute_awaits(m: ir.Module) -> list[int]:
    (f,) = functions(m)
    return [int(view(op).await_timepoint is not None) for op in f.body.ops if op.name == "stream.cmd.execute"]


def test_elide_timepoints_keeps_a_wait_that_only_a_dead_host_await_covered() -> None:
    """%h is never used: the host never waits for %e0, so the second execute must keep await(%e0).
    (The pass used to drop it, an output that only the old rule proved.)"""
    src = ir.parse_module(ELIDE, "elide.mlir")
    assert verify_module(src).ok
    out = elide_timepoints(src)
    assert _execute_awaits(out) == _execute_awaits(src) == [0, 1]
    assert verify_module(out).ok
    # Dropping that wait by hand is what the verifier rejects now.
    dropped = ELIDE.replace("await(%e0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %arg1", "with(%arg0 as %a: !stream.resource<external>{%c64}, %arg1")
    assert "MISSED_WAIT" in classes(ir.parse_module(dropped, "dropped.mlir"))


def test_elide_timepoints_drops_a_wait_its_captured_awaited_value_implies() -> None:
    """Capturing %h (awaited on %e0) orders the execute after %e0 by itself (IREE's
    ChainDependentAwaits), so await(%e0) is redundant there."""
    text = ELIDE.replace("with(%arg0 as %a: !stream.resource<external>{%c64}, %arg1 as %b", "with(%h as %a: !stream.resource<external>{%c64}, %arg1 as %b")
    out = elide_timepoints(ir.parse_module(text, "captured.mlir"))
    assert _execute_awaits(out) == [0, 0]
    assert verify_module(out).ok


DROPPED_RESULT = """
func.func @dropped(%a: tensor<4xf32> {iree.abi.consume}, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = flow.dispatch @scale(%a) : (tensor<4xf32>) -> %a
  %1 = flow.dispatch @gelu(%b) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


@pytest.mark.parametrize("stop", ["schedule-execution", "propagate-timepoints", None])
def test_the_final_wait_for_unused_regions_is_sync(stop: str | None) -> None:
    """The region writing the consumed %a in place has no result anyone uses: the schedule waits
    for it before the return with a `sync` await (a plain one would be dead and order nothing)."""
    from stream.passes.pass_manager import DEFAULT_PIPELINE

    pipeline = DEFAULT_PIPELINE if stop is None else DEFAULT_PIPELINE[: DEFAULT_PIPELINE.index(stop) + 1]
    result = api.compile(DROPPED_RESULT, pipeline=",".join(pipeline))
    (f,) = functions(result.module)
    awaits = [op for op in f.body.ops if op.name == "stream.timepoint.await"]
    assert awaits[-1].properties.get("sync") is not None and f.body.ops[-2] is awaits[-1]
    assert verify_module(result.module).ok
    # Without `sync` nothing waits for that region before the return.
    plain = ir.print_module(result.module).replace("stream.timepoint.await sync", "stream.timepoint.await")
    assert "MISSED_WAIT" in classes(ir.parse_module(plain, "plain.mlir"))

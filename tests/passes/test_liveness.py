"""Liveness: storage trees and intervals inside execution regions, and the uses of allocations
at the host level."""

from __future__ import annotations

import pytest

import stream.ir as ir
from stream.analysis.liveness import USE_RULES, UseKind, allocation_uses, region_intervals
from stream.analysis.storage_aliases import StorageForest
from stream.ir.core import Block, Value
from stream.ir.walk import functions

REGION = """
util.func public @f(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %r, %t = stream.async.execute with(%arg0 as %a: !stream.resource<external>{%c64}, %arg1 as %b: !stream.resource<external>{%c64}) -> %arg1{%c64} {
    %s = stream.async.splat %c1_i32 : i32 -> !stream.resource<transient>{%c64}
    %w:2 = stream.async.concurrent with(%s as %s2: !stream.resource<transient>{%c64}, %a as %a2: !stream.resource<external>{%c64}) -> (%s{%c64}, !stream.resource<transient>{%c64}) {
      %f = stream.async.fill %c1_i32, %s2[%c0 to %c32 for %c32] : i32 -> %s2 as !stream.resource<transient>{%c64}
      %x = stream.async.dispatch @ex::@g(%a2[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
      stream.yield %f, %x : !stream.resource<transient>{%c64}, !stream.resource<transient>{%c64}
    }
    %v = stream.resource.subview %b[%c32] : !stream.resource<external>{%c64} -> !stream.resource<external>{%c32}
    %u = stream.async.update %w#0, %b[%c0 to %c64] : !stream.resource<transient>{%c64} -> %b as !stream.resource<external>{%c64}
    %y = stream.async.dispatch @ex::@h(%v[%c0 to %c32 for %c32]) : (!stream.resource<external>{%c32}) -> %v{%c32}
    stream.yield %u : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %o = stream.timepoint.await %t => %r : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}
"""


def body_and_names() -> tuple[Block, dict[str, Value]]:
    f = functions(ir.parse_module(REGION, "t.mlir"))[0]
    execute = next(op for op in f.body.ops if op.name == "stream.async.execute")
    body = execute.regions[0].blocks[0]
    names: dict[str, Value] = {}
    for op in execute.walk():
        for region in op.regions:
            for block in region.blocks:
                names.update({a.name_hint: a for a in block.arguments if a.name_hint})
        names.update({r.name_hint: r for r in op.results if r.name_hint})
    return body, names


def test_storage_forest_follows_ties_waves_and_subviews() -> None:
    body, v = body_and_names()
    forest = StorageForest.of(body)
    assert forest.root(v["f"]) == (v["s"], ())  # tied fill -> wave arg -> splat
    assert forest.root(v["w"]) == (v["s"], ())  # wave result #0 -> yielded %f
    assert forest.root(v["u"]) == (v["b"], ())  # update tied to the capture
    root, offset = forest.root(v["y"])
    assert root is v["b"] and len(offset) == 1 and offset[0].name_hint == "c32"  # subview at 32
    assert forest.is_root(v["x"]) and forest.is_root(v["a"])
    # Writes: the splat's tree (fill), the capture %b (update, dispatch through the subview).
    assert forest.written == {v["s"], v["b"]}


def test_region_intervals_cover_whole_waves_and_yields() -> None:
    body, v = body_and_names()
    intervals = region_intervals(body, StorageForest.of(body))
    # positions: 0 splat, 1 wave, 2 subview, 3 update, 4 dispatch, 5 yield
    assert intervals[v["s"]] == (0, 3)  # defined by the splat, read by the update
    assert intervals[v["x"]] == (1, 1)  # written in the wave, never read: still needs bytes
    assert intervals[v["a"]] == (-1, 1)  # a capture is live on entry
    assert intervals[v["b"]] == (-1, 5)  # yielded through the update: live to the end


CMD = """
util.func public @g(%arg0: !stream.resource<external>) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized : !stream.resource<staging>{%c64} => !stream.timepoint
  %q, %qt = stream.resource.alloca uninitialized : !stream.resource<external>{%c64} => !stream.timepoint
  %v = stream.resource.subview %r[%c0] : !stream.resource<staging>{%c64} -> !stream.resource<staging>{%c64}
  %j = stream.timepoint.join max(%rt, %qt) => !stream.timepoint
  %e = stream.cmd.execute await(%j) => with(%v as %x: !stream.resource<staging>{%c64}, %q as %y: !stream.resource<external>{%c64}) {
    stream.cmd.copy %x[%c0], %y[%c0], %c64 : !stream.resource<staging>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %w:2 = stream.timepoint.await %e => %v, %q : !stream.resource<staging>{%c64}, !stream.resource<external>{%c64}
  %n = stream.resource.size %w#0 : !stream.resource<staging>
  %l = stream.resource.load %w#0[%c0] : !stream.resource<staging>{%c64} -> i32
  %out = stream.tensor.export %w#1 : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}
"""


def test_allocation_uses_classify_every_use() -> None:
    block = functions(ir.parse_module(CMD, "t.mlir"))[0].body
    staging, external = allocation_uses(block)
    names = lambda uses: [op.name for _, op in uses]  # noqa: E731
    assert names(staging.device) == ["stream.cmd.execute"]
    assert names(staging.host) == ["stream.resource.load"]
    assert not staging.escapes and not staging.owned
    assert [a.name_hint for a in staging.aliases] == ["r", "v", "w"]
    assert staging.last_position == 9  # the load
    assert names(external.escapes) == ["stream.tensor.export"]
    assert [t.name_hint for t in staging.device_timepoints()] == ["e"]


def test_unknown_ops_are_escapes() -> None:
    assert USE_RULES.get("util.call") is None
    block = functions(ir.parse_module(CMD.replace("stream.resource.size %w#0 : !stream.resource<staging>", '"util.optimization_barrier"(%w#0) : (!stream.resource<staging>) -> index'), "t.mlir"))[0].body
    staging = allocation_uses(block)[0]
    assert [op.name for _, op in staging.escapes] == ["util.optimization_barrier"]
    assert UseKind.ESCAPE.value == "escape"



def _awaited_together(n: int) -> str:
    lines = ["util.func public @f() -> () {", "  %c64 = arith.constant 64 : index"]
    for i in range(n):
        lines.append(f"  %r{i}, %t{i} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{{%c64}} => !stream.timepoint")
    names = ", ".join(f"%r{i}" for i in range(n))
    types = ", ".join("!stream.resource<transient>{%c64}" for _ in range(n))
    lines.append(f"  %o:{n} = stream.timepoint.await %t0 => {names} : {types}")
    lines += ["  util.return", "}"]
    return "\n".join(lines) + "\n"


def test_one_await_of_many_allocations_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every result of a host await is tied to its operand: each becomes a name of that
    operand's allocation, and the await's results are looked at once, not once per
    allocation it touches (which was quadratic for the final await of a long program)."""
    from stream.ir.spec import OpSpec

    calls = [0]
    real = OpSpec.tied_operand

    def counting(self, op, index):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return real(self, op, index)

    monkeypatch.setattr(OpSpec, "tied_operand", counting)
    n = 100
    uses = allocation_uses(functions(ir.parse_module(_awaited_together(n), "t.mlir"))[0].body)
    assert [len(u.aliases) for u in uses] == [2] * n  # the alloca's result and its awaited name
    assert calls[0] <= 2 * n, calls[0]

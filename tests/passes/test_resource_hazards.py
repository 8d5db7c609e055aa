"""ResourceHazards: accesses by rule table, storage roots through ties and regions, byte ranges."""

from __future__ import annotations

import pytest

import stream.ir as ir
from stream.analysis.resource_hazards import HazardAnalysis, Mode, StorageAliases, op_accesses
from stream.ir.walk import functions


def body(text: str) -> ir.Block:
    return functions(ir.parse_module(text, "t.mlir"))[0].body


def named(block: ir.Block, name: str) -> ir.Op:
    """The first op (at any depth) whose first result is printed as %name."""
    for top in block.ops:
        for op in top.walk():
            if op.results and op.results[0].name_hint == name:
                return op
    raise KeyError(name)


def label(block: ir.Block, v: ir.Value) -> str | None:
    """`argN` for block arguments (the parser keeps no hint for them), else the name hint."""
    if v in block.arguments:
        return f"arg{block.arguments.index(v)}"
    return v.name_hint


HEADER = """
util.func public @f(%arg0: !stream.resource<transient>, %arg1: !stream.resource<transient>, %u: !stream.resource<transient>, %n: index) -> () {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
"""


def fn(ops: str) -> ir.Block:
    return body(HEADER + ops + "\n  util.return\n}\n")


def test_dispatch_reads_untied_operands_and_read_writes_tied_ones() -> None:
    b = fn(
        "  %d = stream.async.dispatch @ex::@f(%arg0[%c0 to %c16 for %c16], %arg1[%c16 to %c32 for %c16]) : "
        "(!stream.resource<transient>{%c64}, !stream.resource<transient>{%c64}) -> %arg1{%c64}"
    )
    accesses = op_accesses(named(b, "d"))
    assert [(label(b, a.value), a.mode) for a in accesses] == [("arg0", Mode.READ), ("arg1", Mode.READ_WRITE)]
    assert all(a.start is not None and a.end is not None for a in accesses)


def test_untied_results_are_written_and_unknown_ops_read_and_write_everything() -> None:
    b = fn(
        "  %s = stream.async.slice %arg0[%c16 to %c32] : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c16}\n"
        '  "test.op"(%arg1) : (!stream.resource<transient>) -> ()'
    )
    slice_accesses = op_accesses(named(b, "s"))
    assert [(label(b, a.value), a.mode) for a in slice_accesses] == [("arg0", Mode.READ), ("s", Mode.WRITE)]
    unknown = next(op for op in b.ops if op.name == "test.op")
    assert [(label(b, a.value), a.mode) for a in op_accesses(unknown)] == [("arg1", Mode.READ_WRITE)]


def test_pass_through_ops_touch_no_bytes() -> None:
    b = fn("  %w = stream.async.barrier %arg0 : !stream.resource<transient>{%c64}")
    assert op_accesses(named(b, "w")) == []


def test_roots_follow_ties_awaits_and_region_yields() -> None:
    b = body(
        """
util.func public @f(%arg0: !stream.resource<transient>, %t: !stream.timepoint) -> () {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r, %rt = stream.async.execute with(%arg0 as %x: !stream.resource<transient>{%c64}) -> !stream.resource<transient>{%c64} {
    %in = stream.async.dispatch @ex::@f(%x[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> %x{%c64}
    stream.yield %in : !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %w = stream.timepoint.await %rt => %r : !stream.resource<transient>{%c64}
  %v = stream.resource.subview %w[%c0] : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c64}
  util.return
}
"""
    )
    aliases = StorageAliases.of(b)
    arg0 = b.arguments[0]
    # The execute does not declare the tie, but the yielded value is the capture written in place.
    assert aliases.root(named(b, "r").results[0]) == (arg0, True)
    assert aliases.root(named(b, "w").results[0]) == (arg0, True)
    assert aliases.root(named(b, "v").results[0]) == (arg0, False)  # somewhere inside arg0
    assert aliases.root(named(b, "in").results[0]) == (arg0, True)


@pytest.mark.parametrize(
    ("read", "write", "conflict"),
    [
        ("[%c0 to %c16 for %c16]", "[%c16 to %c32]", False),  # adjacent constants
        ("[%c0 to %c32 for %c32]", "[%c16 to %c48]", True),  # overlapping constants
        ("[%c0 to %n for %n]", "[%n to %c64]", False),  # one's end is the other's start
        ("[%c0 to %n for %n]", "[%c16 to %c32]", True),  # undecidable: may overlap
        ("[%c16 to %c16 for %c0]", "[%c0 to %c64]", False),  # an empty range
    ],
)
def test_byte_ranges(read: str, write: str, conflict: bool) -> None:
    # the write is an update of 16 bytes whose range is given; sizes only need to be consistent
    b = fn(
        f"  %r = stream.async.dispatch @ex::@read(%arg0{read}) : (!stream.resource<transient>{{%c64}}) -> !stream.resource<transient>{{%c16}}\n"
        f"  %w = stream.async.update %u, %arg0{write} : !stream.resource<transient>{{%c16}} -> %arg0 as !stream.resource<transient>{{%c64}}"
    )
    analysis = HazardAnalysis.of(b)
    assert analysis.conflicts(named(b, "r"), named(b, "w")) is conflict
    assert (bool(analysis.edges([(named(b, "r"),), (named(b, "w"),)]))) is conflict


def test_reads_never_conflict_and_other_storage_never_conflicts() -> None:
    b = fn(
        "  %a = stream.async.dispatch @ex::@f(%arg0[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> !stream.resource<transient>{%c16}\n"
        "  %b = stream.async.dispatch @ex::@g(%arg0[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> !stream.resource<transient>{%c16}\n"
        "  %c = stream.async.dispatch @ex::@h(%arg1[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> %arg1{%c64}"
    )
    analysis = HazardAnalysis.of(b)
    ops = [named(b, n) for n in ("a", "b", "c")]
    assert analysis.edges([(op,) for op in ops]) == []


def test_reader_and_in_place_writer_of_one_value_conflict_14889() -> None:
    b = fn(
        "  %rd = stream.async.dispatch @ex::@a(%arg0[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> !stream.resource<transient>{%c64}\n"
        "  %wr = stream.async.dispatch @ex::@b(%arg0[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> %arg0{%c64}"
    )
    analysis = HazardAnalysis.of(b)
    reader, writer = named(b, "rd"), named(b, "wr")
    assert analysis.edges([(reader,), (writer,)]) == [(0, 1)]
    assert analysis.conflicting_roots(reader, writer) == {b.arguments[0]}


def test_a_covering_write_orders_earlier_accesses_before_later_ones() -> None:
    """Edges stay linear: readers before a whole-resource write get an edge to it, readers after
    it get an edge from it, and no reader is linked to a reader across the write."""
    n = 6
    lines = [
        f"  %r{i} = stream.async.dispatch @ex::@read(%arg0[%c0 to %c64 for %c64]) : (!stream.resource<transient>{{%c64}}) -> !stream.resource<transient>{{%c16}}"
        for i in range(n)
    ]
    lines.append("  %w = stream.async.dispatch @ex::@write(%arg0[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> %arg0{%c64}")
    lines += [
        f"  %s{i} = stream.async.dispatch @ex::@read(%w[%c0 to %c64 for %c64]) : (!stream.resource<transient>{{%c64}}) -> !stream.resource<transient>{{%c16}}"
        for i in range(n)
    ]
    b = fn("\n".join(lines))
    units = [(op,) for op in b.ops if op.name == "stream.async.dispatch"]
    edges = HazardAnalysis.of(b).edges(units)
    assert sorted(edges) == sorted([(i, n) for i in range(n)] + [(n, n + 1 + i) for i in range(n)])
    assert len(edges) == 2 * n

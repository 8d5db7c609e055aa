"""`stream.cmd.*`: commands on explicit byte ranges of allocated resources.

Commands produce no values. `stream.cmd.execute` bodies run their top-level children serially,
`stream.cmd.serial` likewise, and `stream.cmd.concurrent` children run unordered.
"""

from __future__ import annotations

from stream.dialect.common import AFFINITY, AWAIT, CMD, ON, anyv, idx, res, rtp, tp, unit
from stream.ir.interfaces import Access, Sized, Timeline
from stream.ir.spec import Attr, OpSpec, RegionSpec, define

_RANGE = "$target `[` $target_offset `for` $target_length `]` `:` type($target) `` `{` $target_size `}`"
_RANGE_OPERANDS = (res("target"), idx("target_size"), idx("target_offset"), idx("target_length"))
_RANGE_SIZED = Sized((("target", "target_size"),))


def _range(mode: str) -> tuple[Access, ...]:
    return (Access("target", "target_size", "target_offset", length="target_length", mode=mode),)  # type: ignore[arg-type]


define(OpSpec(
    "stream.cmd.flush",
    operands=_RANGE_OPERANDS,
    attrs=(Attr("source_affinity"),),
    sized=_RANGE_SIZED,
    accesses=_range("touch"),
    levels=CMD,
    defines_level="cmd",
    traits=frozenset({"streamable"}),
    format=f"(`to` `(` $source_affinity^ `)`)? {_RANGE} attr-dict-with-keyword",
    summary="makes a range available to another device",
))

define(OpSpec(
    "stream.cmd.invalidate",
    operands=_RANGE_OPERANDS,
    attrs=(Attr("source_affinity"),),
    sized=_RANGE_SIZED,
    accesses=_range("touch"),
    levels=CMD,
    defines_level="cmd",
    traits=frozenset({"streamable"}),
    format=f"(`from` `(` $source_affinity^ `)`)? {_RANGE} attr-dict-with-keyword",
    summary="makes a range written on another device visible here",
))

define(OpSpec(
    "stream.cmd.discard",
    operands=_RANGE_OPERANDS,
    sized=_RANGE_SIZED,
    accesses=_range("discard"),
    levels=CMD,
    defines_level="cmd",
    traits=frozenset({"streamable"}),
    format=f"{_RANGE} attr-dict-with-keyword",
    summary="marks a range's contents dead",
))

define(OpSpec(
    "stream.cmd.fill",
    operands=(*_RANGE_OPERANDS, anyv("value")),
    sized=_RANGE_SIZED,
    accesses=_range("write"),
    levels=CMD,
    defines_level="cmd",
    traits=frozenset({"streamable"}),
    format="$value `,` $target `[` $target_offset `for` $target_length `]` `:` type($value) `->` "
    "type($target) `` `{` $target_size `}` attr-dict-with-keyword",
))

define(OpSpec(
    "stream.cmd.copy",
    operands=(
        res("source"), idx("source_size"), idx("source_offset"),
        res("target"), idx("target_size"), idx("target_offset"), idx("length"),
    ),
    sized=Sized((("source", "source_size"), ("target", "target_size"))),
    accesses=(
        Access("source", "source_size", "source_offset", length="length"),
        Access("target", "target_size", "target_offset", length="length", mode="write"),
    ),
    levels=CMD,
    defines_level="cmd",
    traits=frozenset({"streamable"}),
    format="$source `[` $source_offset `]` `,` $target `[` $target_offset `]` `,` $length `:` "
    "type($source) `` `{` $source_size `}` `->` type($target) `` `{` $target_size `}` attr-dict-with-keyword",
))

define(OpSpec(
    "stream.cmd.dispatch",
    operands=(
        idx("workload", "variadic"), anyv("uniform_operands", "variadic"), res("resources", "variadic"),
        idx("resource_sizes", "variadic"), idx("resource_offsets", "variadic"), idx("resource_lengths", "variadic"),
    ),
    attrs=(Attr("entry_points", True), Attr("resource_accesses", True)),
    sized=Sized((("resources", "resource_sizes"),)),
    accesses=(Access("resources", "resource_sizes", "resource_offsets", length="resource_lengths", mode="declared", label="binding"),),
    levels=CMD,
    defines_level="cmd",
    traits=frozenset({"streamable"}),
    format="custom<DispatchEntryPoints>($entry_points) (`[` $workload^ `]`)? `` "
    "(`(` $uniform_operands^ `:` type($uniform_operands) `)`)? `{` custom<DispatchResources>($resources, "
    "type($resources), $resource_sizes, $resource_offsets, $resource_lengths, $resource_accesses) `\\n` `}` "
    "attr-dict-with-keyword",
))

define(OpSpec(
    "stream.cmd.execute",
    operands=(res("resource_operands", "variadic"), idx("resource_operand_sizes", "variadic"), tp("await_timepoint", "optional")),
    results=(rtp(),),
    attrs=(unit("once"), AFFINITY),
    regions=(RegionSpec("body", "stream.yield"),),
    sized=Sized((("resource_operands", "resource_operand_sizes"),)),
    accesses=(Access("resource_operands", "resource_operand_sizes", mode="read_write"),),
    timeline=Timeline("await_timepoint", "result_timepoint"),
    levels=CMD,
    defines_level="cmd",
    traits=frozenset({"region"}),
    format=f"(`once` $once^)? {ON} {AWAIT} `with` `` custom<ExplicitResourceRegion>($resource_operands, "
    "type($resource_operands), $resource_operand_sizes, $body) `=` `` `>` type($result_timepoint) "
    "attr-dict-with-keyword",
    summary="a command buffer submitted to one device queue; top-level commands run in order",
))

define(OpSpec(
    "stream.cmd.serial",
    regions=(RegionSpec("body", "stream.yield"),),
    levels=CMD,
    defines_level="cmd",
    traits=frozenset({"streamable", "region"}),
    format="$body attr-dict-with-keyword",
))

define(OpSpec(
    "stream.cmd.concurrent",
    regions=(RegionSpec("body", "stream.yield"),),
    levels=CMD,
    defines_level="cmd",
    traits=frozenset({"streamable", "region"}),
    format="$body attr-dict-with-keyword",
))

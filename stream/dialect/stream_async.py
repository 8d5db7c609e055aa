"""`stream.async.*`: value-semantic resources with byte ranges, execute regions and waves.

Each resource SSA value is an immutable byte string; in-place updates exist only through ties
(a result that reuses an operand's storage). Formats and operand order follow IREE 3.13.
"""

from __future__ import annotations

from stream.dialect.common import (
    AFFINITY,
    ASYNC,
    AWAIT,
    ON,
    TENSOR_ASYNC,
    anyv,
    idx,
    res,
    results_then_timepoint,
    rres,
    rtp,
    tp,
)
from stream.ir.interfaces import Access, Alias, Sized, Timeline
from stream.ir.spec import Attr, OpSpec, RegionSpec, Result, define

_SIZED_RESULT = "type($result) `` `{` $result_size `}`"

define(OpSpec(
    "stream.async.alloca",
    operands=(idx("storage_size"),),
    results=(rres("result"),),
    attrs=(AFFINITY,),
    sized=Sized(results="storage_size"),
    accesses=(),
    levels=ASYNC,
    defines_level="async",
    traits=frozenset({"streamable", "metadata"}),
    format=f"{ON} attr-dict `:` type($result) `{{` $storage_size `}}`",
))

define(OpSpec(
    "stream.async.constant",
    pure=True,
    operands=(idx("result_size"),),
    results=(rres("result"),),
    attrs=(Attr("value", True), AFFINITY),
    sized=Sized(results="result_size"),
    accesses=(),
    levels=ASYNC,
    defines_level="async",
    traits=frozenset({"streamable", "metadata"}),
    format=f"{ON} `:` {_SIZED_RESULT} `=` $value attr-dict-with-keyword",
))

define(OpSpec(
    "stream.async.splat",
    operands=(anyv("value"), idx("result_size")),
    results=(rres("result"),),
    attrs=(AFFINITY,),
    sized=Sized(results="result_size"),
    accesses=(),
    levels=TENSOR_ASYNC,
    defines_level="async",
    traits=frozenset({"streamable"}),
    format=f"{ON} $value `:` type($value) `->` {_SIZED_RESULT} attr-dict-with-keyword",
))

define(OpSpec(
    "stream.async.clone",
    operands=(res("source"), idx("source_size"), idx("result_size")),
    results=(rres("result"),),
    attrs=(AFFINITY,),
    sized=Sized((("source", "source_size"),), "result_size"),
    accesses=(Access("source", "source_size"),),
    levels=TENSOR_ASYNC,
    defines_level="async",
    traits=frozenset({"streamable"}),
    format=f"{ON} $source `:` type($source) `` `{{` $source_size `}}` `->` {_SIZED_RESULT} attr-dict-with-keyword",
))

define(OpSpec(
    "stream.async.slice",
    pure=True,
    operands=(res("source"), idx("source_size"), idx("source_offset"), idx("source_end"), idx("result_size")),
    results=(rres("result"),),
    attrs=(AFFINITY,),
    sized=Sized((("source", "source_size"),), "result_size"),
    accesses=(Access("source", "source_size", "source_offset", "source_end", "result_size"),),
    levels=TENSOR_ASYNC,
    defines_level="async",
    traits=frozenset({"streamable"}),
    format=f"{ON} $source `[` $source_offset `to` $source_end `]` `:` type($source) `` `{{` $source_size `}}` `->` "
    f"{_SIZED_RESULT} attr-dict-with-keyword",
))

define(OpSpec(
    "stream.async.fill",
    operands=(res("target"), idx("target_size"), idx("target_offset"), idx("target_end"), idx("target_length"), anyv("value")),
    results=(rres("result"),),
    attrs=(AFFINITY,),
    sized=Sized((("target", "target_size"),), "target_size"),
    accesses=(Access("target", "target_size", "target_offset", "target_end", "target_length", "write"),),
    levels=TENSOR_ASYNC,
    defines_level="async",
    ties={"result": "target"},
    same_type=(("target", "result"),),
    traits=frozenset({"streamable"}),
    format=f"{ON} $value `,` $target `[` $target_offset `to` $target_end `for` $target_length `]` `:` "
    "type($value) `->` custom<ShapedTiedResult>(type($target), $target_size) attr-dict-with-keyword",
))

define(OpSpec(
    "stream.async.update",
    operands=(res("target"), idx("target_size"), idx("target_offset"), idx("target_end"), res("update"), idx("update_size")),
    results=(rres("result"),),
    attrs=(AFFINITY,),
    sized=Sized((("target", "target_size"), ("update", "update_size")), "target_size"),
    accesses=(Access("update", "update_size"), Access("target", "target_size", "target_offset", "target_end", "update_size", "write")),
    levels=TENSOR_ASYNC,
    defines_level="async",
    ties={"result": "target"},
    same_type=(("target", "result"),),
    traits=frozenset({"streamable"}),
    format=f"{ON} $update `,` $target `[` $target_offset `to` $target_end `]` `:` type($update) "
    "`` `{` $update_size `}` `->` custom<ShapedTiedResult>(type($target), $target_size) attr-dict-with-keyword",
))

define(OpSpec(
    "stream.async.copy",
    operands=(
        res("target"), idx("target_size"), idx("target_offset"), idx("target_end"),
        res("source"), idx("source_size"), idx("source_offset"), idx("source_end"), idx("length"),
    ),
    results=(rres("result"),),
    attrs=(AFFINITY,),
    sized=Sized((("target", "target_size"), ("source", "source_size")), "target_size"),
    accesses=(
        Access("source", "source_size", "source_offset", "source_end", "length"),
        Access("target", "target_size", "target_offset", "target_end", "length", "write"),
    ),
    levels=TENSOR_ASYNC,
    defines_level="async",
    ties={"result": "target"},
    same_type=(("target", "result"),),
    traits=frozenset({"streamable"}),
    format=f"{ON} $source `[` $source_offset `to` $source_end `]` `,` $target `[` $target_offset `to` $target_end `]` "
    "`,` $length `:` type($source) `` `{` $source_size `}` `->` custom<ShapedTiedResult>(type($target), $target_size) "
    "attr-dict-with-keyword",
))

define(OpSpec(
    "stream.async.barrier",
    operands=(res("source"), idx("size")),
    results=(rres("result"),),
    attrs=(AFFINITY,),
    sized=Sized((("source", "size"),), "size"),
    accesses=(),
    aliases=(Alias("result", "source"),),
    levels=TENSOR_ASYNC,
    defines_level="async",
    ties={"result": "source"},
    same_type=(("source", "result"),),
    traits=frozenset({"streamable", "metadata"}),
    format=f"{ON} $source `:` type($source) `` `{{` $size `}}` attr-dict-with-keyword",
))

define(OpSpec(
    "stream.async.transfer",
    pure=True,
    operands=(res("source"), idx("source_size"), idx("result_size")),
    results=(rres("result"),),
    # IREE 3.13 names a transfer's `on(...)` `execution_affinity` (its `from`/`to` are the others).
    attrs=(Attr("execution_affinity"), Attr("source_affinity"), Attr("target_affinity")),
    result_affinity="target_affinity",  # IREE's getResultAffinityAttr: its result lives at `to(...)`
    sized=Sized((("source", "source_size"),), "result_size"),
    accesses=(Access("source", "source_size"),),
    levels=TENSOR_ASYNC,
    traits=frozenset({"streamable"}),
    format=f"(`on` `(` $execution_affinity^ `)`)? $source `:` type($source) `` `{{` $source_size `}}` "
    "(`from` `(` $source_affinity^ `)`)? `->` "
    f"(`to` `(` $target_affinity^ `)`)? {_SIZED_RESULT} attr-dict-with-keyword",
    summary="moves a resource to another device and/or lifetime; may copy",
))

define(OpSpec(
    "stream.async.cast",
    pure=True,
    operands=(res("source"), idx("source_size"), idx("result_size")),
    results=(rres("result"),),
    attrs=(AFFINITY,),
    sized=Sized((("source", "source_size"),), "result_size"),
    accesses=(),
    aliases=(Alias("result", "source"),),
    levels=TENSOR_ASYNC,
    format=f"{ON} $source `:` type($source) `` `{{` $source_size `}}` `->` {_SIZED_RESULT} attr-dict-with-keyword",
    summary="asserts a lifetime without copying (RefineUsage folds it away or turns it into a transfer)",
))

define(OpSpec(
    "stream.async.load",
    pure=True,
    operands=(res("source"), idx("source_size"), idx("source_offset")),
    results=(Result("result"),),
    sized=Sized((("source", "source_size"),)),
    accesses=(Access("source", "source_size", "source_offset"),),
    levels=ASYNC,
    defines_level="async",
    format="$source `[` $source_offset `]` `:` type($source) `` `{` $source_size `}` `->` type($result) "
    "attr-dict-with-keyword",
))

define(OpSpec(
    "stream.async.store",
    pure=True,
    operands=(res("target"), idx("target_size"), idx("target_offset"), anyv("value")),
    results=(rres("result"),),
    sized=Sized((("target", "target_size"),), "target_size"),
    accesses=(Access("target", "target_size", "target_offset", mode="write"),),
    levels=TENSOR_ASYNC,
    defines_level="async",
    ties={"result": "target"},
    same_type=(("target", "result"),),
    format="$value `,` $target `[` $target_offset `]` `:` type($value) `->` "
    "custom<ShapedTiedResult>(type($target), $target_size) attr-dict-with-keyword",
))

define(OpSpec(
    "stream.async.dispatch",
    pure=True,
    operands=(
        idx("workload", "variadic"), anyv("resource_operands", "variadic"), idx("resource_operand_sizes", "variadic"),
        idx("resource_operand_offsets", "variadic"), idx("resource_operand_ends", "variadic"),
        idx("resource_operand_lengths", "variadic"), idx("result_sizes", "variadic"),
    ),
    results=(rres("results", "variadic"),),
    attrs=(Attr("entry_points", True), Attr("tied_operands"), AFFINITY),
    sized=Sized((("resource_operands", "resource_operand_sizes"),), "result_sizes"),
    accesses=(Access("resource_operands", "resource_operand_sizes", "resource_operand_offsets", "resource_operand_ends",
                     "resource_operand_lengths", "tied", "resource operand"),),
    levels=ASYNC,
    defines_level="async",
    ties="resource_operands",
    traits=frozenset({"streamable"}),
    format=f"{ON} custom<DispatchEntryPoints>($entry_points) (`[` $workload^ `]`)? `` "
    "custom<DispatchOperands>($resource_operands, $resource_operand_offsets, $resource_operand_ends, "
    "$resource_operand_lengths) attr-dict `:` custom<ShapedFunctionType>(ref($resource_operands), "
    "type($resource_operands), $resource_operand_sizes, type($results), $result_sizes, $tied_operands)",
))

define(OpSpec(
    "stream.async.execute",
    operands=(
        res("resource_operands", "variadic"), idx("resource_operand_sizes", "variadic"),
        idx("result_sizes", "variadic"), tp("await_timepoint", "optional"),
    ),
    results=(rres("results", "variadic"), rtp()),
    attrs=(Attr("tied_operands"), AFFINITY),
    regions=(RegionSpec("body", "stream.yield"),),
    sized=Sized((("resource_operands", "resource_operand_sizes"),), "result_sizes"),
    accesses=(Access("resource_operands", "resource_operand_sizes", mode="tied"),),
    timeline=Timeline("await_timepoint", "result_timepoint"),
    levels=ASYNC,
    defines_level="async",
    ties="resource_operands",
    traits=frozenset({"region"}),
    asm_names=results_then_timepoint,
    format=f"{ON} {AWAIT} `with` `` custom<ResourceRegion>($resource_operands, type($resource_operands), "
    "$resource_operand_sizes, type($results), $result_sizes, $tied_operands, $body) "
    "`=` `` `>` type($result_timepoint) attr-dict-with-keyword",
    summary="an execution region on one device: captures, then ops in block order, results ready at the timepoint",
))

define(OpSpec(
    "stream.async.concurrent",
    operands=(
        res("resource_operands", "variadic"), idx("resource_operand_sizes", "variadic"),
        idx("result_sizes", "variadic"),
    ),
    results=(rres("results", "variadic"),),
    attrs=(Attr("tied_operands"), AFFINITY),
    regions=(RegionSpec("body", "stream.yield"),),
    sized=Sized((("resource_operands", "resource_operand_sizes"),), "result_sizes"),
    accesses=(Access("resource_operands", "resource_operand_sizes", mode="tied"),),
    levels=ASYNC,
    defines_level="async",
    ties="resource_operands",
    traits=frozenset({"streamable", "region"}),
    format=f"{ON} `with` `` custom<ResourceRegion>($resource_operands, type($resource_operands), "
    "$resource_operand_sizes, type($results), $result_sizes, $tied_operands, $body) attr-dict-with-keyword",
    summary="a wave: ops inside run concurrently, unordered among themselves",
))

"""`stream.resource.*`, `stream.timepoint.*`, executables and terminators."""

from __future__ import annotations

from stream.dialect.common import (
    AFFINITY,
    ASYNC_CMD,
    AWAIT,
    CMD,
    ON,
    STREAM,
    anyv,
    idx,
    named,
    res,
    ridx,
    rres,
    rtp,
    tp,
    unit,
)
from stream.ir.interfaces import Access, Alias, Effect, Sized, Timeline
from stream.ir.spec import Attr, Operand, OpSpec, RegionSpec, Result, define
from stream.ir.types import I1, I64, OpaqueType

FILE = OpaqueType("!stream.file")

# -- resources -----------------------------------------------------------------------------------
define(OpSpec(
    "stream.resource.alloc",
    operands=(idx("storage_size"),),
    results=(rres("result"),),
    attrs=(unit("uninitialized"), AFFINITY),
    sized=Sized(results="storage_size"),
    accesses=(),
    effects=(Effect("allocate", "result"),),  # MemoryEffects<[MemAlloc]> in StreamOps.td
    levels=CMD,
    defines_level="cmd",
    format=f"(`uninitialized` $uninitialized^)? {ON} attr-dict `:` type($result) `{{` $storage_size `}}`",
    summary="a synchronous (not queue-ordered) allocation",
))

define(OpSpec(
    "stream.resource.alloca",
    operands=(idx("storage_size"), tp("await_timepoint", "optional")),
    results=(rres("result"), rtp()),
    attrs=(unit("indeterminate_lifetime"), AFFINITY),
    sized=Sized(results="storage_size"),
    accesses=(),
    effects=(Effect("allocate", "result"),),  # MemoryEffects<[MemAlloc]>
    timeline=Timeline("await_timepoint", "result_timepoint"),
    levels=CMD,
    defines_level="cmd",
    asm_names=named("result", "result_timepoint"),
    format=f"`uninitialized` (`indeterminate` $indeterminate_lifetime^)? {ON} "
    "(`await` `(` $await_timepoint^ `)` `=` `` `>`):(`:`)? attr-dict type($result) `{` $storage_size `}` "
    "`=` `` `>` type($result_timepoint)",
    summary="a queue-ordered allocation, usable once its timepoint is reached",
))

define(OpSpec(
    "stream.resource.dealloca",
    operands=(res("operand"), idx("operand_size"), tp("await_timepoint", "optional")),
    results=(rtp(),),
    attrs=(unit("prefer_origin"), AFFINITY),
    sized=Sized((("operand", "operand_size"),)),
    effects=(Effect("free", "operand"),),  # MemoryEffects<[MemFree]>
    timeline=Timeline("await_timepoint", "result_timepoint"),
    levels=CMD,
    defines_level="cmd",
    format=f"(`origin` $prefer_origin^)? {ON} {AWAIT} $operand `:` type($operand) `{{` $operand_size `}}` "
    "`=` `` `>` type($result_timepoint) attr-dict",
    summary="a queue-ordered free: the memory stays valid until the await is reached",
))

for _name in ("retain", "release", "is_terminal"):
    define(OpSpec(
        f"stream.resource.{_name}",
        operands=(res("operand"), idx("operand_size")),
        results=() if _name == "retain" else (Result("result", type=I1),),
        sized=Sized((("operand", "operand_size"),)),
        # is_terminal reads only the resource's metadata (awaits.METADATA; IREE folds it).
        effects=() if _name == "is_terminal" else None,
        levels=CMD,
        format="$operand attr-dict `:` type($operand) `{` $operand_size `}`",
    ))

define(OpSpec(
    "stream.resource.size",
    pure=True,
    operands=(res("operand"),),
    results=(ridx("result"),),
    attrs=(AFFINITY,),
    accesses=(),
    levels=ASYNC_CMD,
    format="$operand attr-dict `:` type($operand)",
))

define(OpSpec(
    "stream.resource.load",
    operands=(res("source"), idx("source_size"), idx("source_offset")),
    results=(Result("result"),),
    sized=Sized((("source", "source_size"),)),
    accesses=(Access("source", "source_size", "source_offset"),),
    levels=CMD,
    format="$source `[` $source_offset `]` `:` type($source) `` `{` $source_size `}` `->` type($result) "
    "attr-dict-with-keyword",
))

define(OpSpec(
    "stream.resource.store",
    operands=(res("target"), idx("target_size"), idx("target_offset"), anyv("value")),
    sized=Sized((("target", "target_size"),)),
    accesses=(Access("target", "target_size", "target_offset", mode="write"),),
    effects=(Effect("write", "target"),),  # MemoryEffects<[MemWrite]>
    levels=CMD,
    format="$value `,` $target `[` $target_offset `]` `:` type($value) `->` type($target) `{` $target_size `}` "
    "attr-dict-with-keyword",
))

define(OpSpec(
    "stream.resource.subview",
    pure=True,
    operands=(res("source"), idx("source_size"), idx("source_offset"), idx("result_size")),
    results=(rres("result"),),
    sized=Sized((("source", "source_size"),), "result_size"),
    accesses=(),
    aliases=(Alias("result", "source", "source_offset", "result_size"),),
    levels=ASYNC_CMD,
    ties={"result": "source"},
    same_type=(("source", "result"),),
    format="$source `[` $source_offset `]` `:` type($source) `` `{` $source_size `}` `->` type($result) "
    "`` `{` $result_size `}` attr-dict-with-keyword",
    summary="a byte-range alias of a resource",
))

define(OpSpec(
    "stream.resource.pack",
    pure=True,
    operands=(idx("offset", "optional"), idx("dynamic_slice_sizes", "variadic")),
    results=(ridx("total_length"), ridx("packed_offsets", "variadic")),
    attrs=(Attr("lifetime_intervals", True), AFFINITY),
    levels=CMD,
    format=f"{ON} (`offset` `(` $offset^ `)`)? `slices` `(` `{{` custom<PackSliceRanges>($lifetime_intervals, "
    "$dynamic_slice_sizes, type($packed_offsets)) `}` `)` `:` type($total_length) attr-dict-with-keyword",
    summary="lays out slices with inclusive lifetime intervals in one slab",
))

define(OpSpec(
    "stream.resource.constants",
    pure=True,
    operands=(idx("result_sizes", "variadic"),),
    results=(rres("results", "variadic"), rtp()),
    attrs=(Attr("values", True), AFFINITY),
    sized=Sized(results="result_sizes"),
    accesses=(),
    timeline=Timeline(result="result_timepoint"),
    levels=CMD,
    defines_level="cmd",
    asm_names=lambda op: ["results"] + [None] * (len(op.results) - 2) + ["result_timepoint"],
    format=f"{ON} attr-dict `:` custom<ConstantValueList>(type($results), $result_sizes, $values) "
    "`\\n` ` ` ` ` `=` `` `>` type($result_timepoint)",
    summary="uploads constant values into resources, ready at the timepoint",
))

# -- timepoints ----------------------------------------------------------------------------------
define(OpSpec(
    "stream.timepoint.immediate",
    pure=True,
    results=(rtp(),),
    timeline=Timeline(result="result_timepoint"),
    levels=STREAM,
    format="attr-dict `=` `` `>` type($result_timepoint)",
))

define(OpSpec(
    "stream.timepoint.import",
    pure=True,
    operands=(anyv("operands", "variadic"),),
    results=(rtp(),),
    attrs=(AFFINITY,),
    levels=STREAM,
    format=f"{ON} $operands `:` `(` type($operands) `)` `=` `` `>` type($result_timepoint) attr-dict-with-keyword",
))

define(OpSpec(
    "stream.timepoint.export",
    pure=True,
    operands=(tp("await_timepoint"),),
    results=(Result("results", "variadic"),),
    attrs=(AFFINITY,),
    levels=STREAM,
    format=f"{ON} $await_timepoint `=` `` `>` `(` type($results) `)` attr-dict-with-keyword",
))

define(OpSpec(
    "stream.timepoint.chain_external",
    operands=(tp("await_timepoint"), anyv("external_values", "variadic")),
    attrs=(AFFINITY,),
    levels=STREAM,
    format=f"{ON} $await_timepoint `=` `` `>` `(` $external_values `:` type($external_values) `)` "
    "attr-dict-with-keyword",
))

define(OpSpec(
    "stream.timepoint.join",
    pure=True,
    operands=(tp("await_timepoints", "variadic"),),
    results=(rtp(),),
    timeline=Timeline("await_timepoints", "result_timepoint"),
    levels=STREAM,
    format="`max` `(` $await_timepoints `)` `=` `` `>` type($result_timepoint) attr-dict-with-keyword",
))

define(OpSpec(
    "stream.timepoint.barrier",
    pure=True,
    operands=(res("resource"), idx("resource_size")),
    results=(rres("result"), rtp()),
    attrs=(AFFINITY,),
    sized=Sized((("resource", "resource_size"),), "resource_size"),
    accesses=(),
    aliases=(Alias("result", "resource"),),
    timeline=Timeline(result="result_timepoint"),
    levels=STREAM,
    ties={"result": "resource"},
    same_type=(("resource", "result"),),
    format=f"{ON} $resource `:` type($resource) `` `{{` $resource_size `}}` `=` `` `>` type($result_timepoint) "
    "attr-dict-with-keyword",
))

define(OpSpec(
    "stream.timepoint.await",
    pure=True,
    operands=(res("resource_operands", "variadic"), idx("resource_operand_sizes", "variadic"), tp("await_timepoint")),
    results=(rres("results", "variadic"),),
    attrs=(unit("sync"),),
    sized=Sized((("resource_operands", "resource_operand_sizes"),), "resource_operand_sizes"),
    accesses=(),
    aliases=(Alias("results", "resource_operands"),),
    timeline=Timeline("await_timepoint"),
    levels=STREAM,
    ties={"results": "resource_operands"},
    format="(`sync` $sync^)? $await_timepoint `=` `` `>` $resource_operands `:` "
    "custom<ShapedTypeList>(type($resource_operands), type($results), $resource_operand_sizes) attr-dict-with-keyword",
    summary="a host wait; its results are its operands, usable once the timepoint is reached",
))

# -- executables and terminators -----------------------------------------------------------------
define(OpSpec(
    "stream.executable",
    attrs=(Attr("sym_visibility", style="string"), Attr("sym_name", True, "symbol_name")),
    regions=(RegionSpec("body", "stream.executable.end"),),
    traits=frozenset({"isolated", "opaque_body", "symbol"}),
    effects=(),  # a container of device code: declaring it runs nothing on the host
    format="custom<SymbolVisibility>($sym_visibility) $sym_name attr-dict-with-keyword regions",
    summary="dispatchable functions; the body is kept as the text it was read from",
))

define(OpSpec(
    "stream.executable.end",
    traits=frozenset({"terminator"}),
    effects=(),
    format="attr-dict",
))

define(OpSpec(
    "stream.executable.export",
    attrs=(Attr("sym_visibility", style="string"), Attr("sym_name", True, "symbol_name"), Attr("function_ref", True, "symbol")),
    regions=(RegionSpec("workgroup_count"),),
    traits=frozenset({"isolated", "symbol"}),
    effects=(),
    format="custom<SymbolVisibility>($sym_visibility) custom<SymbolAlias>($sym_name, $function_ref) "
    "custom<WorkgroupCountRegion>($workgroup_count) attr-dict-with-keyword",
))

define(OpSpec(
    "stream.binding.subspan",
    pure=True,
    operands=(anyv("binding"), idx("byte_offset"), idx("dynamic_dims", "variadic")),
    results=(Result("result"),),
    format="$binding `` `[` $byte_offset `]` attr-dict `:` type($binding) `->` type($result) "
    "(`{` $dynamic_dims^ `}`)?",
))

define(OpSpec(
    "stream.return",
    pure=True,
    operands=(anyv("operands", "variadic"),),
    traits=frozenset({"terminator"}),
    format="attr-dict $operands `:` type($operands)",
))

define(OpSpec(
    "stream.yield",
    pure=True,
    operands=(res("resource_operands", "variadic"), idx("resource_operand_sizes", "variadic")),
    sized=Sized((("resource_operands", "resource_operand_sizes"),)),
    accesses=(),
    traits=frozenset({"terminator", "same_variadic_size"}),
    format="attr-dict ($resource_operands^ `:` custom<ShapedTypeList>(type($resource_operands), "
    "$resource_operand_sizes))?",
))

for _dim in ("id", "count", "size"):
    define(OpSpec(
        f"stream.dispatch.workgroup.{_dim}",
        pure=True,
        results=(ridx("result"),),
        attrs=(Attr("dimension", True, "int"),),
        format="`[` $dimension `]` attr-dict `:` type($result)",
    ))

# -- host buffers and files (IREE's constant upload: an initializer maps a constant
# `!util.buffer` with try_map, or reads it into an allocation through a file). `try_map`'s result
# is storage of its own (verify.storage); `file.read` writes and `file.write` reads the resource's
# range `[offset, offset + length)` as queue ops (awaited and result timepoints). What the host
# buffer holds is not modelled.
define(OpSpec(
    "stream.resource.try_map",
    operands=(anyv("source"), idx("source_offset"), idx("result_size")),
    results=(Result("did_map", type=I1), rres("result")),
    attrs=(AFFINITY,),
    sized=Sized(results="result_size"),
    levels=ASYNC_CMD,
    asm_names=named("did_map", "result"),
    format=f"{ON} $source `[` $source_offset `]` `:` type($source) `->` type($did_map) `,` type($result) "
    "`` `{` $result_size `}` attr-dict-with-keyword",
))

define(OpSpec(
    "stream.file.constant",
    operands=(anyv("source"), idx("source_size"), idx("source_offset"), idx("source_length")),
    results=(Result("result", type=FILE),),
    attrs=(AFFINITY,),
    levels=ASYNC_CMD,
    asm_names=named("file"),
    format=f"{ON} $source `[` $source_offset `for` $source_length `]` `:` type($source) `` `{{` $source_size `}}` "
    "`->` type($result) attr-dict-with-keyword",
))

define(OpSpec(
    "stream.file.read",
    operands=(Operand("source", type=FILE), Operand("source_offset", type=I64), res("target"), idx("target_size"),
              idx("target_offset"), idx("length"), tp("await_timepoint", "optional")),
    results=(rtp(),),
    attrs=(AFFINITY,),
    sized=Sized((("target", "target_size"),)),
    accesses=(Access("target", "target_size", "target_offset", length="length", mode="write"),),
    timeline=Timeline("await_timepoint", "result_timepoint"),
    levels=ASYNC_CMD,
    format=f"{ON} (`await` `(` $await_timepoint^ `)` `=` `` `>`):(`:`)? $source `[` $source_offset `]` `,` "
    "$target `[` $target_offset `]` `,` $length `:` type($source) `->` type($target) `` `{` $target_size `}` "
    "`=` `` `>` type($result_timepoint) attr-dict-with-keyword",
))

define(OpSpec(
    "stream.file.write",
    operands=(res("source"), idx("source_size"), idx("source_offset"), Operand("target", type=FILE),
              Operand("target_offset", type=I64), idx("length"), tp("await_timepoint", "optional")),
    results=(rtp(),),
    attrs=(AFFINITY,),
    sized=Sized((("source", "source_size"),)),
    accesses=(Access("source", "source_size", "source_offset", length="length", mode="read"),),
    timeline=Timeline("await_timepoint", "result_timepoint"),
    levels=ASYNC_CMD,
    format=f"{ON} (`await` `(` $await_timepoint^ `)` `=` `` `>`):(`:`)? $source `[` $source_offset `]` `,` "
    "$target `[` $target_offset `]` `,` $length `:` type($source) `` `{` $source_size `}` `->` type($target) "
    "`=` `` `>` type($result_timepoint) attr-dict-with-keyword",
))

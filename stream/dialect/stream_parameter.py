"""IREE 3.13's parameter ops: `stream.async.parameter.*` and `stream.cmd.parameter.*`.

A parameter is a byte range of an external archive named by an optional scope and a key
(`!util.buffer` values, usually `util.buffer.constant "..."`) and an `i64` byte offset. Every op
here is a timeline op outside any execute region: it starts once its optional `await` timepoint is
reached and its result timepoint is reached when it is done. Loads return fresh resources;
`read`/`gather` write into a target range, `write`/`scatter` read a source range (the async forms
return the resource, tied, to carry the data flow). Operand order, formats and spacing follow
IREE 3.13's StreamOps.td and StreamOps.cpp.

The interfaces below (`sized`, `accesses`, `aliases`, `timeline`) are all the verifier's storage,
hazard and event rules need; what is specific (the value a parameter read gives, the executor's
parameter store) lives in the refinement and runtime tables.
"""

from __future__ import annotations

from stream.dialect import parameter_directives  # noqa: F401  (registers the custom directives)
from stream.dialect.common import AFFINITY, ASYNC, AWAIT, CMD, ON, idx, named, res, results_then_timepoint, rres, rtp, tp
from stream.ir.interfaces import Access, Sized, Timeline
from stream.ir.spec import Operand, OpSpec, define
from stream.ir.types import I64, OpaqueType

BUFFER = OpaqueType("!util.buffer")
ASYNC_AWAIT = "(`await` `(` $await_timepoint^ `)`)?"
TIMELINE = Timeline("await_timepoint", "result_timepoint")


def buf(name: str, arity: str = "single") -> Operand:
    """A `!util.buffer` operand group (a parameter scope or key)."""
    return Operand(name, arity, BUFFER, "any")  # type: ignore[arg-type]


def i64(name: str, arity: str = "single") -> Operand:
    """An `i64` operand group (a byte offset into a parameter)."""
    return Operand(name, arity, I64, "scalar")  # type: ignore[arg-type]


_NAMES = named("result", "result_timepoint")

# -- async level ---------------------------------------------------------------------------------
define(OpSpec(
    "stream.async.parameter.load",
    pure=True,
    operands=(tp("await_timepoint", "optional"), buf("source_scope", "optional"), buf("source_key"), i64("source_offset"),
              idx("result_size")),
    results=(rres("result"), rtp()),
    attrs=(AFFINITY,),
    sized=Sized(results="result_size"),
    accesses=(),
    timeline=TIMELINE,
    levels=ASYNC,
    defines_level="async",
    asm_names=_NAMES,
    format=f"{ON} {ASYNC_AWAIT} custom<ParameterReference>($source_scope, $source_key) `` `[` $source_offset `]` `:` "
    "type($result) `` `{` $result_size `}` `=` `` `>` type($result_timepoint) attr-dict-with-keyword",
    summary="allocates a resource and loads a parameter's bytes into it",
))

define(OpSpec(
    "stream.async.parameter.read",
    operands=(res("target"), idx("target_size"), idx("target_offset"), idx("target_end"), idx("target_length"),
              buf("source_scope", "optional"), buf("source_key"), i64("source_offset"), tp("await_timepoint", "optional")),
    results=(rres("result"), rtp()),
    attrs=(AFFINITY,),
    sized=Sized((("target", "target_size"),), "target_size"),
    accesses=(Access("target", "target_size", "target_offset", "target_end", "target_length", "write"),),
    timeline=TIMELINE,
    levels=ASYNC,
    defines_level="async",
    ties={"result": "target"},
    same_type=(("target", "result"),),
    asm_names=_NAMES,
    format=f"{ON} {ASYNC_AWAIT} custom<ParameterReference>($source_scope, $source_key) `` `[` $source_offset `]` `->` "
    "$target `` `[` $target_offset `to` $target_end `for` $target_length `]` `:` type($target) `` `{` $target_size `}` "
    "`=` `` `>` type($result_timepoint) attr-dict-with-keyword",
    summary="reads a parameter's bytes into a range of the (tied) target",
))

define(OpSpec(
    "stream.async.parameter.write",
    operands=(res("source"), idx("source_size"), idx("source_offset"), idx("source_end"), idx("source_length"),
              buf("target_scope", "optional"), buf("target_key"), i64("target_offset"), tp("await_timepoint", "optional")),
    results=(rres("result"), rtp()),
    attrs=(AFFINITY,),
    sized=Sized((("source", "source_size"),), "source_size"),
    accesses=(Access("source", "source_size", "source_offset", "source_end", "source_length"),),
    timeline=TIMELINE,
    levels=ASYNC,
    defines_level="async",
    ties={"result": "source"},
    same_type=(("source", "result"),),
    asm_names=_NAMES,
    format=f"{ON} {ASYNC_AWAIT} $source `` `[` $source_offset `to` $source_end `for` $source_length `]` `->` "
    "custom<ParameterReference>($target_scope, $target_key) `` `[` $target_offset `]` `:` type($source) `` "
    "`{` $source_size `}` `=` `` `>` type($result_timepoint) attr-dict-with-keyword",
    summary="writes a range of the source to a parameter; the source is returned unchanged",
))

define(OpSpec(
    "stream.async.parameter.gather",
    operands=(buf("source_scope", "optional"), buf("source_keys", "variadic"), i64("source_offsets", "variadic"),
              res("target"), idx("target_size"), idx("target_offsets", "variadic"), idx("target_ends", "variadic"),
              idx("target_lengths", "variadic"), tp("await_timepoint", "optional")),
    results=(rres("result"), rtp()),
    attrs=(AFFINITY,),
    sized=Sized((("target", "target_size"),), "target_size"),
    accesses=(Access("target", "target_size", "target_offsets", "target_ends", "target_lengths", "write"),),
    timeline=TIMELINE,
    levels=ASYNC,
    defines_level="async",
    ties={"result": "target"},
    same_type=(("target", "result"),),
    asm_names=_NAMES,
    format=f"{ON} {ASYNC_AWAIT} `{{` custom<AsyncParameterGatherOperations>($source_scope, $source_keys, $source_offsets, "
    "$target, type($target), $target_size, $target_offsets, $target_ends, $target_lengths) `}` `:` type($result) "
    "`=` `` `>` type($result_timepoint) attr-dict-with-keyword",
    summary="reads several parameters into ranges of the (tied) target",
))

define(OpSpec(
    "stream.async.parameter.scatter",
    operands=(res("source"), idx("source_size"), idx("source_offsets", "variadic"), idx("source_ends", "variadic"),
              idx("source_lengths", "variadic"), buf("target_scope", "optional"), buf("target_keys", "variadic"),
              i64("target_offsets", "variadic"), tp("await_timepoint", "optional")),
    results=(rres("result"), rtp()),
    attrs=(AFFINITY,),
    sized=Sized((("source", "source_size"),), "source_size"),
    accesses=(Access("source", "source_size", "source_offsets", "source_ends", "source_lengths"),),
    timeline=TIMELINE,
    levels=ASYNC,
    defines_level="async",
    ties={"result": "source"},
    same_type=(("source", "result"),),
    asm_names=_NAMES,
    format=f"{ON} {ASYNC_AWAIT} `{{` custom<AsyncParameterScatterOperations>($source, type($source), $source_size, "
    "$source_offsets, $source_ends, $source_lengths, $target_scope, $target_keys, $target_offsets) `}` `:` "
    "type($result) `=` `` `>` type($result_timepoint) attr-dict-with-keyword",
    summary="writes several ranges of the source to parameters; the source is returned unchanged",
))

# -- cmd level -----------------------------------------------------------------------------------
define(OpSpec(
    "stream.cmd.parameter.load",
    pure=True,
    operands=(buf("source_scope", "optional"), buf("source_keys", "variadic"), i64("source_offsets", "variadic"),
              idx("result_sizes", "variadic"), tp("await_timepoint", "optional")),
    results=(rres("results", "variadic"), rtp()),
    attrs=(AFFINITY,),
    sized=Sized(results="result_sizes"),
    accesses=(),
    timeline=TIMELINE,
    levels=CMD,
    defines_level="cmd",
    asm_names=results_then_timepoint,
    format=f"{ON} {AWAIT} `{{` custom<ParameterLoadOperations>($source_scope, $source_keys, $source_offsets, "
    "type($results), $result_sizes) `}` `=` `` `>` type($result_timepoint) attr-dict-with-keyword",
    summary="allocates resources and loads parameters' bytes into them",
))

define(OpSpec(
    "stream.cmd.parameter.read",
    operands=(buf("source_scope", "optional"), buf("source_key"), i64("source_offset"), res("target"), idx("target_size"),
              idx("target_offset"), idx("target_length"), tp("await_timepoint", "optional")),
    results=(rtp(),),
    attrs=(AFFINITY,),
    sized=Sized((("target", "target_size"),)),
    accesses=(Access("target", "target_size", "target_offset", length="target_length", mode="write"),),
    timeline=TIMELINE,
    levels=CMD,
    defines_level="cmd",
    format=f"{ON} {AWAIT} custom<ParameterReference>($source_scope, $source_key) `` `[` $source_offset `]` `->` "
    "$target `[` $target_offset `for` $target_length `]` `:` type($target) `` `{` $target_size `}` `=` `` `>` "
    "type($result_timepoint) attr-dict-with-keyword",
    summary="reads a parameter's bytes into a range of the target",
))

define(OpSpec(
    "stream.cmd.parameter.write",
    operands=(res("source"), idx("source_size"), idx("source_offset"), idx("source_length"), buf("target_scope", "optional"),
              buf("target_key"), i64("target_offset"), tp("await_timepoint", "optional")),
    results=(rtp(),),
    attrs=(AFFINITY,),
    sized=Sized((("source", "source_size"),)),
    accesses=(Access("source", "source_size", "source_offset", length="source_length"),),
    timeline=TIMELINE,
    levels=CMD,
    defines_level="cmd",
    format=f"{ON} {AWAIT} $source `[` $source_offset `for` $source_length `]` `:` type($source) `` `{{` $source_size `}}` "
    "`->` custom<ParameterReference>($target_scope, $target_key) `` `[` $target_offset `]` `=` `` `>` "
    "type($result_timepoint) attr-dict-with-keyword",
    summary="writes a range of the source to a parameter",
))

define(OpSpec(
    "stream.cmd.parameter.gather",
    operands=(buf("source_scope", "optional"), buf("source_keys", "variadic"), i64("source_offsets", "variadic"),
              res("target"), idx("target_size"), idx("target_offsets", "variadic"), idx("target_lengths", "variadic"),
              tp("await_timepoint", "optional")),
    results=(rtp(),),
    attrs=(AFFINITY,),
    sized=Sized((("target", "target_size"),)),
    accesses=(Access("target", "target_size", "target_offsets", length="target_lengths", mode="write"),),
    timeline=TIMELINE,
    levels=CMD,
    defines_level="cmd",
    format=f"{ON} {AWAIT} `{{` custom<CmdParameterGatherOperations>($source_scope, $source_keys, $source_offsets, "
    "$target, type($target), $target_size, $target_offsets, $target_lengths) `}` `=` `` `>` type($result_timepoint) "
    "attr-dict-with-keyword",
    summary="reads several parameters into ranges of the target",
))

define(OpSpec(
    "stream.cmd.parameter.scatter",
    operands=(res("source"), idx("source_size"), idx("source_offsets", "variadic"), idx("source_lengths", "variadic"),
              buf("target_scope", "optional"), buf("target_keys", "variadic"), i64("target_offsets", "variadic"),
              tp("await_timepoint", "optional")),
    results=(rtp(),),
    attrs=(AFFINITY,),
    sized=Sized((("source", "source_size"),)),
    accesses=(Access("source", "source_size", "source_offsets", length="source_lengths"),),
    timeline=TIMELINE,
    levels=CMD,
    defines_level="cmd",
    format=f"{ON} {AWAIT} `{{` custom<CmdParameterScatterOperations>($source, type($source), $source_size, "
    "$source_offsets, $source_lengths, $target_scope, $target_keys, $target_offsets) `}` `=` `` `>` "
    "type($result_timepoint) attr-dict-with-keyword",
    summary="writes several ranges of the source to parameters",
))

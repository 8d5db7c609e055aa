"""`stream.tensor.*`: typed tensors in opaque resources (the level ConvertToStream produces).

Operand order, attribute names and assembly formats follow IREE's StreamOps.td so that the generic
form (`operandSegmentSizes` included) matches IREE's.
"""

from __future__ import annotations

from stream.dialect.common import AFFINITY, ON, STREAM, TENSOR, TENSOR_ASYNC, anyv, idx, res, ridx, rres, unit
from stream.ir.interfaces import Access, Sized
from stream.ir.spec import Attr, OpSpec, Result, define

_DIMS = "(`` `{` $result_encoding_dims^ `}`)?"
_SRC_DIMS = "(`` `{` $source_encoding_dims^ `}`)?"
_TGT_DIMS = "(`` `{` $target_encoding_dims^ `}`)?"

define(OpSpec(
    "stream.tensor.import",
    pure=True,
    operands=(anyv("source"), idx("result_encoding_dims", "variadic"), idx("result_size")),
    results=(rres("result"),),
    attrs=(Attr("result_encoding", True, "type"), unit("consume"), AFFINITY),
    sized=Sized(results="result_size"),
    accesses=(),
    levels=STREAM,
    format=f"{ON} (`consume` $consume^)? $source `:` type($source) `->` $result_encoding {_DIMS} `in` "
    "type($result) `{` $result_size `}` attr-dict-with-keyword",
    summary="wraps external storage (a !hal.buffer_view) as a resource; without `consume` it is borrowed",
))

define(OpSpec(
    "stream.tensor.export",
    pure=True,
    operands=(res("source"), idx("source_encoding_dims", "variadic"), idx("source_size")),
    results=(Result("result"),),
    attrs=(Attr("source_encoding", True, "type"), AFFINITY),
    sized=Sized((("source", "source_size"),)),
    accesses=(Access("source", "source_size"),),
    levels=STREAM,
    format=f"{ON} $source `:` $source_encoding {_SRC_DIMS} `in` type($source) `` `{{` $source_size `}}` `->` "
    "type($result) attr-dict-with-keyword",
    summary="hands a resource back to the caller as external storage",
))

define(OpSpec(
    "stream.tensor.sizeof",
    pure=True,
    operands=(idx("encoding_dims", "variadic"),),
    results=(ridx("storage_size"),),
    attrs=(Attr("encoding", True, "type"), AFFINITY),
    levels=TENSOR_ASYNC,
    format=f"{ON} $encoding (`{{` $encoding_dims^ `}}`)? attr-dict `:` type($storage_size)",
    summary="storage size in bytes of an encoded tensor type",
))

define(OpSpec(
    "stream.tensor.empty",
    pure=True,
    operands=(idx("result_encoding_dims", "variadic"), idx("result_size")),
    results=(rres("result"),),
    attrs=(Attr("result_encoding", True, "type"), AFFINITY),
    sized=Sized(results="result_size"),
    accesses=(),
    levels=TENSOR,
    defines_level="tensor",
    traits=frozenset({"streamable", "metadata"}),
    format=f"{ON} `:` $result_encoding {_DIMS} `in` type($result) `` `{{` $result_size `}}` attr-dict-with-keyword",
))

define(OpSpec(
    "stream.tensor.constant",
    pure=True,
    operands=(idx("result_encoding_dims", "variadic"),),
    results=(rres("result"),),
    attrs=(Attr("value", True), Attr("result_encoding", True, "type"), AFFINITY),
    accesses=(),
    levels=TENSOR,
    defines_level="tensor",
    traits=frozenset({"streamable"}),
    format=f"{ON} `:` $result_encoding {_DIMS} `in` type($result) `=` $value attr-dict-with-keyword",
))

define(OpSpec(
    "stream.tensor.splat",
    pure=True,
    operands=(anyv("value"), idx("result_encoding_dims", "variadic"), idx("result_size")),
    results=(rres("result"),),
    attrs=(Attr("result_encoding", True, "type"), AFFINITY),
    sized=Sized(results="result_size"),
    accesses=(),
    levels=TENSOR,
    defines_level="tensor",
    traits=frozenset({"streamable"}),
    format=f"{ON} $value `:` type($value) `->` $result_encoding {_DIMS} `in` type($result) `` `{{` $result_size `}}` "
    "attr-dict-with-keyword",
))

define(OpSpec(
    "stream.tensor.clone",
    pure=True,
    operands=(
        res("source"), idx("source_encoding_dims", "variadic"), idx("source_size"),
        idx("result_encoding_dims", "variadic"), idx("result_size"),
    ),
    results=(rres("result"),),
    attrs=(Attr("source_encoding", True, "type"), Attr("result_encoding", True, "type"), AFFINITY),
    sized=Sized((("source", "source_size"),), "result_size"),
    accesses=(Access("source", "source_size"),),
    levels=TENSOR,
    defines_level="tensor",
    traits=frozenset({"streamable"}),
    format=f"{ON} $source `:` $source_encoding {_SRC_DIMS} `in` type($source) `` `{{` $source_size `}}` `->` "
    f"$result_encoding {_DIMS} `in` type($result) `` `{{` $result_size `}}` attr-dict-with-keyword",
))

define(OpSpec(
    "stream.tensor.slice",
    pure=True,
    operands=(
        res("source"), idx("source_encoding_dims", "variadic"), idx("source_size"),
        idx("start_indices", "variadic"), idx("lengths", "variadic"),
        idx("result_encoding_dims", "variadic"), idx("result_size"),
    ),
    results=(rres("result"),),
    attrs=(Attr("source_encoding", True, "type"), Attr("result_encoding", True, "type"), AFFINITY),
    sized=Sized((("source", "source_size"),), "result_size"),
    accesses=(Access("source", "source_size"),),
    levels=TENSOR,
    defines_level="tensor",
    traits=frozenset({"streamable"}),
    format=f"{ON} $source `[` $start_indices `for` $lengths `]` `:` $source_encoding {_SRC_DIMS} `in` "
    f"type($source) `` `{{` $source_size `}}` `->` $result_encoding {_DIMS} `in` type($result) "
    "`` `{` $result_size `}` attr-dict-with-keyword",
))

define(OpSpec(
    "stream.tensor.fill",
    operands=(
        res("target"), idx("target_encoding_dims", "variadic"), idx("target_size"),
        idx("start_indices", "variadic"), idx("lengths", "variadic"), anyv("value"),
    ),
    results=(rres("result"),),
    attrs=(Attr("target_encoding", True, "type"), AFFINITY),
    sized=Sized((("target", "target_size"),), "target_size"),
    accesses=(Access("target", "target_size", mode="write"),),
    levels=TENSOR,
    defines_level="tensor",
    ties={"result": "target"},
    same_type=(("target", "result"),),
    traits=frozenset({"streamable"}),
    format=f"{ON} $value `,` $target (`[` $start_indices `for` $lengths^ `]`)? `:` type($value) `->` "
    f"$target_encoding {_TGT_DIMS} `in` custom<ShapedTiedResult>(type($target), $target_size) attr-dict-with-keyword",
))

define(OpSpec(
    "stream.tensor.update",
    operands=(
        res("target"), idx("target_encoding_dims", "variadic"), idx("target_size"),
        idx("start_indices", "variadic"),
        res("update"), idx("update_encoding_dims", "variadic"), idx("update_size"),
    ),
    results=(rres("result"),),
    attrs=(Attr("target_encoding", True, "type"), Attr("update_encoding", True, "type"), AFFINITY),
    sized=Sized((("target", "target_size"), ("update", "update_size")), "target_size"),
    accesses=(Access("target", "target_size", mode="write"), Access("update", "update_size")),
    levels=TENSOR,
    defines_level="tensor",
    ties={"result": "target"},
    same_type=(("target", "result"),),
    traits=frozenset({"streamable"}),
    format=f"{ON} $update `,` $target `[` $start_indices `]` `:` $update_encoding "
    "(`` `{` $update_encoding_dims^ `}`)? `in` type($update) `` `{` $update_size `}` `->` "
    f"$target_encoding {_TGT_DIMS} `in` custom<ShapedTiedResult>(type($target), $target_size) attr-dict-with-keyword",
))

define(OpSpec(
    "stream.tensor.load",
    pure=True,
    operands=(res("source"), idx("source_encoding_dims", "variadic"), idx("source_size"), idx("indices", "variadic")),
    results=(Result("result"),),
    attrs=(Attr("source_encoding", True, "type"),),
    sized=Sized((("source", "source_size"),)),
    accesses=(Access("source", "source_size"),),
    levels=TENSOR,
    defines_level="tensor",
    format=f"$source (`[` $indices^ `]`)? `:` $source_encoding {_SRC_DIMS} `in` type($source) "
    "`` `{` $source_size `}` `->` type($result) attr-dict-with-keyword",
))

define(OpSpec(
    "stream.tensor.store",
    pure=True,
    operands=(
        res("target"), idx("target_encoding_dims", "variadic"), idx("target_size"),
        idx("indices", "variadic"), anyv("value"),
    ),
    results=(rres("result"),),
    attrs=(Attr("target_encoding", True, "type"),),
    sized=Sized((("target", "target_size"),), "target_size"),
    accesses=(Access("target", "target_size", mode="write"),),
    levels=TENSOR,
    defines_level="tensor",
    ties={"result": "target"},
    same_type=(("target", "result"),),
    format=f"$value `,` $target (`[` $indices^ `]`)? `:` type($value) `->` $target_encoding {_TGT_DIMS} `in` "
    "custom<ShapedTiedResult>(type($target), $target_size) attr-dict-with-keyword",
))

define(OpSpec(
    "stream.tensor.dispatch",
    pure=True,
    operands=(
        idx("workload", "variadic"), anyv("mixed_operands", "variadic"), idx("operand_sizes", "variadic"),
        idx("operand_encoding_dims", "variadic"), idx("result_sizes", "variadic"), idx("result_encoding_dims", "variadic"),
    ),
    results=(rres("results", "variadic"),),
    attrs=(
        Attr("entry_points", True), Attr("operand_encodings", True), Attr("result_encodings", True),
        Attr("tied_operands"), AFFINITY,
    ),
    sized=Sized((("mixed_operands", "operand_sizes"),), "result_sizes"),
    accesses=(Access("mixed_operands", "operand_sizes", mode="tied"),),
    levels=TENSOR,
    defines_level="tensor",
    ties="mixed_operands",
    traits=frozenset({"streamable"}),
    format=f"{ON} custom<DispatchEntryPoints>($entry_points) (`[` $workload^ `]`)? `` `(` $mixed_operands `)` "
    "attr-dict `:` custom<EncodedShapedFunctionType>(ref($mixed_operands), type($mixed_operands), $operand_sizes, "
    "$operand_encodings, $operand_encoding_dims, type($results), $result_sizes, $result_encodings, "
    "$result_encoding_dims, $tied_operands)",
))

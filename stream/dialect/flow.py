"""`flow.*`: the input level. Synchronous, value-semantic tensors; what users write.

Dynamic dims travel as index values in `{%d}` after a tensor type, as in IREE. Placement is the
discardable `stream.affinity` attribute on an op or its function (default device `@dev0`).
"""

from __future__ import annotations

from stream.dialect.common import INPUT, anyv, idx
from stream.ir.format import ParseContext
from stream.ir.spec import Attr, OpSpec, Result, define
from stream.ir.types import TensorType


def _tensor(name: str, arity: str = "single") -> Result:
    return Result(name, arity, None, "tensor")  # type: ignore[arg-type]


def _element_of(tensor_group: str, into: str):  # type: ignore[no-untyped-def]
    """infer hook: `into` has the element type of the tensor group `tensor_group`."""

    def infer(ctx: ParseContext) -> None:
        types = ctx.types.get(tensor_group)
        if types and isinstance(types[0], TensorType) and into not in ctx.types:
            ctx.types[into] = [types[0].element]

    return infer


def _dims(name: str) -> str:
    return f"(`{{` ${name}^ `}}`)?"


define(OpSpec(
    "flow.dispatch",
    operands=(idx("workload", "variadic"), anyv("arguments", "variadic"), idx("argument_dims", "variadic"), idx("result_dims", "variadic")),
    results=(_tensor("results", "variadic"),),
    attrs=(Attr("entry_points", True), Attr("tied_operands")),
    levels=INPUT,
    defines_level="input",
    ties="arguments",
    format="custom<DispatchEntryPoints>($entry_points) (`[` $workload^ `]`)? `` `(` $arguments `)` attr-dict `:` "
    "custom<ShapedFunctionType>(ref($arguments), type($arguments), $argument_dims, type($results), $result_dims, "
    "$tied_operands)",
    summary="calls a kernel on tensors; a result written `%operand` reuses that operand's storage",
))

define(OpSpec(
    "flow.tensor.transfer",
    operands=(anyv("operand"), idx("operand_dims", "variadic")),
    results=(_tensor("result"),),
    attrs=(Attr("target", True),),
    levels=INPUT,
    defines_level="input",
    same_type=(("operand", "result"),),
    format=f"$operand `:` type($result) {_dims('operand_dims')} `to` $target attr-dict-with-keyword",
    summary="moves a tensor to another device",
))

define(OpSpec(
    "flow.tensor.splat",
    operands=(anyv("value"), idx("result_dims", "variadic")),
    results=(_tensor("result"),),
    levels=INPUT,
    defines_level="input",
    infer=_element_of("result", "value"),
    format=f"$value `:` type($result) {_dims('result_dims')} attr-dict-with-keyword",
))

define(OpSpec(
    "flow.tensor.clone",
    operands=(anyv("operand"), idx("operand_dims", "variadic")),
    results=(_tensor("result"),),
    levels=INPUT,
    defines_level="input",
    same_type=(("operand", "result"),),
    format=f"$operand `:` type($result) {_dims('operand_dims')} attr-dict-with-keyword",
))

define(OpSpec(
    "flow.tensor.empty",
    operands=(idx("result_dims", "variadic"),),
    results=(_tensor("result"),),
    levels=INPUT,
    defines_level="input",
    format=f"`:` type($result) {_dims('result_dims')} attr-dict-with-keyword",
))

define(OpSpec(
    "flow.tensor.slice",
    operands=(
        anyv("source"), idx("source_dims", "variadic"), idx("start_indices", "variadic"),
        idx("lengths", "variadic"), idx("result_dims", "variadic"),
    ),
    results=(_tensor("result"),),
    levels=INPUT,
    defines_level="input",
    format=f"$source `[` $start_indices `for` $lengths `]` `:` type($source) {_dims('source_dims')} `->` "
    f"type($result) {_dims('result_dims')} attr-dict-with-keyword",
))

define(OpSpec(
    "flow.tensor.update",
    operands=(
        anyv("target"), idx("target_dims", "variadic"), idx("start_indices", "variadic"),
        anyv("update"), idx("update_dims", "variadic"),
    ),
    results=(_tensor("result"),),
    levels=INPUT,
    defines_level="input",
    ties={"result": "target"},
    same_type=(("target", "result"),),
    format=f"$update `,` $target `[` $start_indices `]` `:` type($update) {_dims('update_dims')} `->` "
    "custom<ShapedTiedResult>(type($target), $target_dims) attr-dict-with-keyword",
))

define(OpSpec(
    "flow.tensor.load",
    operands=(anyv("source"), idx("source_dims", "variadic"), idx("indices", "variadic")),
    results=(Result("result"),),
    levels=INPUT,
    defines_level="input",
    infer=_element_of("source", "result"),
    format=f"$source (`[` $indices^ `]`)? `:` type($source) {_dims('source_dims')} attr-dict-with-keyword",
))


def _store_infer(ctx: ParseContext) -> None:
    _element_of("target", "value")(ctx)
    if "target" in ctx.types:
        ctx.types.setdefault("result", list(ctx.types["target"]))


define(OpSpec(
    "flow.tensor.store",
    operands=(anyv("value"), anyv("target"), idx("target_dims", "variadic"), idx("indices", "variadic")),
    results=(_tensor("result"),),
    levels=INPUT,
    defines_level="input",
    ties={"result": "target"},
    infer=_store_infer,
    format=f"$value `,` $target (`[` $indices^ `]`)? `:` type($target) {_dims('target_dims')} attr-dict-with-keyword",
))


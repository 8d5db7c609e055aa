"""The util, hal and cf host ops a Stream module carries, with IREE 3.13's pretty syntax.

Their formats are those of IREE's UtilOps.td / HALOps.td and MLIR's ControlFlowOps.td, so that
what `iree-opt` prints reads back and prints identically:

    %0 = util.null : !hal.fence
    %1 = util.global.load immutable @__hoisted_tensor_64xf32 : !stream.resource<constant>
    util.global.store %1, @__hoisted_tensor_64xf32 : !stream.resource<constant>
    %2 = util.align %a, %c64 : index
    %3:2 = util.assume.int %a<umin = 0, umax = 9>, %b[<udiv = 64>, <udiv = 32>] : index, index
    %dim = hal.buffer_view.dim<%arg0 : !hal.buffer_view>[0] : index
    %device = hal.devices.get %c0 : !hal.device
    %fence = hal.fence.create device(%device : !hal.device) flags("None") : !hal.fence
    %status = hal.fence.await until([%fence]) timeout_millis(%t) flags("None") : i32
    cf.assert %ok, "Expected dim size > 0."

Only the syntax lives here: none of them declares effects (the verifier's facts about them are
rules of their own, keyed by name), so registering them changes no verdict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stream.dialect.common import ANY, anyv, unit
from stream.ir.attributes import ArrayAttr, Attribute, IntegerAttr, OpaqueAttr, StringAttr
from stream.ir.core import Op
from stream.ir.format import Arg, ParseContext, directive
from stream.ir.parser import Parser, UnresolvedOperand
from stream.ir.spec import Attr, Operand, OpSpec, Result, define
from stream.ir.spec_registry import OpState
from stream.ir.types import I1, I32, I64, INDEX, OpaqueType, Type

if TYPE_CHECKING:
    from stream.ir.printer import Printer
    from stream.ir.spec import OpSpec as _Spec

FENCE = OpaqueType("!hal.fence")
DEVICE = OpaqueType("!hal.device")
BUFFER_VIEW = OpaqueType("!hal.buffer_view")


# -- util ----------------------------------------------------------------------------------------
define(OpSpec(
    "util.null",
    results=(Result("result"),),
    levels=ANY,
    format="attr-dict `:` type($result)",
))

def _global_name(op: Op) -> str | None:
    """IREE names a load after its global (GlobalLoadOp::getAsmResultNames)."""
    ref = op.properties.get("global")
    root = getattr(ref, "root", None)
    return root if isinstance(root, str) else None


define(OpSpec(
    "util.global.load",
    results=(Result("result"),),
    attrs=(Attr("global", True, "symbol"), unit("is_immutable")),
    levels=ANY,
    asm_names=lambda op: [_global_name(op)],
    format="(`immutable` $is_immutable^)? $global attr-dict `:` type($result)",
))

define(OpSpec(
    "util.global.store",
    operands=(anyv("value"),),
    attrs=(Attr("global", True, "symbol"),),
    levels=ANY,
    format="$value `,` $global attr-dict `:` type($value)",
))

define(OpSpec(
    "util.align",
    operands=(anyv("value"), anyv("alignment")),
    results=(Result("result"),),
    levels=ANY,
    same_type=(("value", "alignment", "result"),),
    format="$value `,` $alignment attr-dict `:` type($result)",
))


_ASSUMPTION = "#util.int.assumption"


def _parse_assumption(p: Parser) -> Attribute:
    """`<umin = 0, umax = 9, udiv = 4>`: an assumption without its `#util.int.assumption` prefix."""
    tok = p.lexer.peek()
    if not tok.is_punct("<"):
        raise p.error("expected an integer assumption like '<umin = 0, umax = 9>'", tok)
    return OpaqueAttr(_ASSUMPTION + p._raw_balanced(tok.pos))


def _stripped(attr: Attribute) -> str:
    text = str(attr)
    return text[len(_ASSUMPTION):] if text.startswith(_ASSUMPTION) else text


def _parse_assume_int(p: Parser, state: OpState) -> None:
    uses: list[UnresolvedOperand] = []
    lists: list[Attribute] = []
    while True:
        uses.append(p.parse_operand())
        if p.accept("["):
            alternatives: list[Attribute] = []
            if not p.accept("]"):
                while True:
                    alternatives.append(_parse_assumption(p))
                    if not p.accept(","):
                        break
                p.expect("]", "to close the list of assumptions")
            lists.append(ArrayAttr(tuple(alternatives)))
        else:
            lists.append(ArrayAttr((_parse_assumption(p),)))
        if not p.accept(","):
            break
    p.expect(":", "and the operand types")
    types: list[Type] = [p.parse_type()]
    while p.accept(","):
        types.append(p.parse_type())
    state.operands = p.resolve_all(uses, types)
    state.result_types = list(types)
    state.properties["assumptions"] = ArrayAttr(tuple(lists))
    if p.lexer.peek().is_punct("{"):
        state.attributes.update(p.parse_attr_dict_body())


def _print_assume_int(pr: Printer, op: Op) -> None:
    """IREE's AssumeIntOp::print: one operand per line (indented twice) when there are several."""
    assumptions = op.properties.get("assumptions")
    lists = assumptions.elements if isinstance(assumptions, ArrayAttr) else ()
    multi = len(op.operands) > 1
    pr.write(" ")
    if multi:
        pr.indent += 2
        pr.newline()
    for i, v in enumerate(op.operands):
        if i:
            pr.write(", ")
            if multi:
                pr.newline()
        pr.write(pr.value(v))
        entry = lists[i] if i < len(lists) else None
        alts: tuple[Attribute, ...] = entry.elements if isinstance(entry, ArrayAttr) else ()
        if len(alts) == 1:
            pr.write(_stripped(alts[0]))
        else:
            pr.write("[" + ", ".join(_stripped(a) for a in alts) + "]")
    if multi:
        pr.indent -= 1
        pr.newline()
    else:
        pr.write(" ")
    pr.write(": " + ", ".join(pr.type(v.type) for v in op.operands))
    pr.attr_dict({k: v for k, v in op.properties.items() if k != "assumptions"} | dict(op.attributes))
    if multi:
        pr.indent -= 1


def _assume_int_shape(op: Op) -> list[str]:
    assumptions = op.properties.get("assumptions")
    if not isinstance(assumptions, ArrayAttr) or len(assumptions) != len(op.operands):
        return [f"util.assume.int needs one list of assumptions per operand ({len(op.operands)})"]
    if [v.type for v in op.operands] != [r.type for r in op.results]:
        return ["util.assume.int's results have the types of its operands"]
    return []


define(OpSpec(
    "util.assume.int",
    operands=(anyv("operands", "variadic"),),
    results=(Result("results", "variadic"),),
    attrs=(Attr("assumptions", True),),
    levels=ANY,
    verify=_assume_int_shape,
    custom_parse=_parse_assume_int,
    custom_print=_print_assume_int,
))


# -- hal -----------------------------------------------------------------------------------------
# IREE's HAL bit enums (FenceFlagBitfield, WaitFlagBitfield: None = 0, Reserved = 1) are i64
# integers in the generic form and their names in quotes in the pretty one (`flags("None")`).
_FLAG_BITS = {"None": 0, "Reserved": 1}
_FLAG_NAMES = {v: k for k, v in _FLAG_BITS.items()}


@directive("HalFlags")
class HalFlags:
    """`"None"`, `"Reserved"` (or `"None|Reserved"` style unions) of an I64 bit enum."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        tok = p.lexer.peek()
        value = p.parse_attribute()
        if not isinstance(value, StringAttr) or any(n.strip() not in _FLAG_BITS for n in value.value.split("|")):
            raise p.error(f"expected a HAL flag in quotes ({', '.join(repr(n) for n in _FLAG_BITS)})", tok)
        bits = 0
        for n in value.value.split("|"):
            bits |= _FLAG_BITS[n.strip()]
        ctx.attrs[args[0].name] = IntegerAttr(bits, I64)

    @staticmethod
    def print(pr: Printer, op: Op, spec: _Spec, args: tuple[Arg, ...]) -> None:
        value = op.properties.get(args[0].name)
        bits = value.value if isinstance(value, IntegerAttr) else 0
        if bits in _FLAG_NAMES:
            name = _FLAG_NAMES[bits]
        else:
            name = "|".join(n for n, b in _FLAG_BITS.items() if b and bits & b)
        pr.write(f'"{name}"')


define(OpSpec(
    "hal.buffer_view.dim",
    operands=(Operand("buffer_view", type=BUFFER_VIEW),),
    results=(Result("result", type=INDEX),),
    attrs=(Attr("index", True, "int"),),
    levels=ANY,
    format="`<` $buffer_view `:` type($buffer_view) `>` `` `[` $index `]` `:` type($result) attr-dict-with-keyword",
))

define(OpSpec(
    "hal.devices.get",
    operands=(Operand("index", type=INDEX),),
    results=(Result("result", type=DEVICE),),
    levels=ANY,
    format="$index attr-dict `:` type($result)",
))

define(OpSpec(
    "hal.devices.count",
    results=(Result("result", type=INDEX),),
    levels=ANY,
    asm_names=lambda op: ["device_count"],
    format="attr-dict `:` type($result)",
))

define(OpSpec(
    "hal.fence.create",
    operands=(Operand("device", type=DEVICE),),
    results=(Result("result", type=FENCE),),
    attrs=(Attr("flags", True),),
    levels=ANY,
    asm_names=lambda op: ["fence"],
    format="`device` `(` $device `:` type($device) `)` `flags` `(` custom<HalFlags>($flags) `)` `:` type($result) "
    "attr-dict-with-keyword",
))

define(OpSpec(
    "hal.fence.join",
    operands=(Operand("fences", "variadic", FENCE),),
    results=(Result("result", type=FENCE),),
    attrs=(Attr("flags", True),),
    levels=ANY,
    asm_names=lambda op: ["fence"],
    format="`at` `(` `[` $fences `]` `)` `flags` `(` custom<HalFlags>($flags) `)` `->` type($result) attr-dict-with-keyword",
))

define(OpSpec(
    "hal.fence.await",
    operands=(Operand("timeout_millis", type=I32), Operand("fences", "variadic", FENCE)),
    results=(Result("status", type=I32),),
    attrs=(Attr("flags", True),),
    levels=ANY,
    asm_names=lambda op: ["status"],
    format="`until` `(` `[` $fences `]` `)` `timeout_millis` `(` $timeout_millis `)` `flags` `(` custom<HalFlags>($flags) `)` "
    "`:` type($status) attr-dict-with-keyword",
))

define(OpSpec(
    "hal.fence.signal",
    operands=(Operand("fence", type=FENCE),),
    levels=ANY,
    format="`<` $fence `:` type($fence) `>` attr-dict-with-keyword",
))

define(OpSpec(
    "hal.fence.fail",
    operands=(Operand("fence", type=FENCE), Operand("status", type=I32)),
    levels=ANY,
    format="`<` $fence `:` type($fence) `>` `status` `(` $status `)` attr-dict-with-keyword",
))

define(OpSpec(
    "hal.fence.query",
    operands=(Operand("fence", type=FENCE),),
    results=(Result("status", type=I32),),
    levels=ANY,
    format="`<` $fence `:` type($fence) `>` `:` type($status) attr-dict-with-keyword",
))


# -- cf ------------------------------------------------------------------------------------------
define(OpSpec(
    "cf.assert",
    operands=(Operand("arg", type=I1),),
    attrs=(Attr("msg", True, "string"),),
    levels=ANY,
    format="$arg `,` $msg attr-dict",
))

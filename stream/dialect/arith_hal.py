"""`arith.*` (constants and index arithmetic) and the few `hal.*` ops IREE leaves in stream
functions (`hal.element_type`, `hal.encoding_type`, `hal.buffer_view.assert`)."""

from __future__ import annotations

from stream.dialect.common import ANY, anyv, idx
from stream.ir.attributes import Attribute, BoolAttr, DenseAttr, FloatAttr, IntegerAttr, OpaqueAttr, TypeAttr
from stream.ir.core import Op
from stream.ir.format import Arg, ParseContext, directive
from stream.ir.parser import Parser
from stream.ir.printer import Printer
from stream.ir.spec import Attr, OpSpec, Result, define
from stream.ir.spec_registry import OpState
from stream.ir.types import F64, I1, I32, I64, INDEX, Type


# -- arith.constant ------------------------------------------------------------------------------
def _constant_names(op: Op) -> list[str | None]:
    value = op.properties.get("value")
    if isinstance(value, BoolAttr):
        return ["true" if value.value else "false"]
    if isinstance(value, IntegerAttr):
        if value.type == INDEX:
            return [f"c{value.value}"]
        if value.type == I1:
            return ["true" if value.value else "false"]
        return [f"c{value.value}_{value.type}"]
    return ["cst"]


def _value_type(value: Attribute) -> Type:
    if isinstance(value, BoolAttr):
        return I1
    if isinstance(value, (IntegerAttr, FloatAttr, DenseAttr)):
        return value.type
    if isinstance(value, TypeAttr):
        return value.type
    raise TypeError(f"arith.constant cannot take {value}")


def _parse_constant(p: Parser, state: OpState) -> None:
    if p.lexer.peek().is_punct("{"):
        state.attributes.update(p.parse_attr_dict_body())
    tok = p.lexer.peek()
    value = p.parse_attribute()
    try:
        state.result_types = [_value_type(value)]
    except TypeError:
        raise p.error("arith.constant needs a typed value such as '4 : index' or 'dense<...> : tensor<...>'", tok) from None
    state.properties["value"] = value


def _print_constant(pr: Printer, op: Op) -> None:
    pr.attr_dict({k: v for k, v in op.properties.items() if k != "value"} | dict(op.attributes))
    value = op.properties["value"]
    text = pr.attr(value)
    # In a dictionary i64 and f64 go without their type (except f64 in hex, which alone would read
    # as an integer); a constant always spells it, once.
    if isinstance(value, (IntegerAttr, FloatAttr)) and value.type == (I64 if isinstance(value, IntegerAttr) else F64):
        suffix = f" : {value.type}"
        if not text.endswith(suffix):
            text += suffix
    pr.write(" " + text)


define(OpSpec(
    "arith.constant",
    results=(Result("result"),),
    attrs=(Attr("value", True),),
    levels=ANY,
    traits=frozenset({"pure", "constant"}),
    asm_names=_constant_names,
    custom_parse=_parse_constant,
    custom_print=_print_constant,
))

# -- binary and cast ops -------------------------------------------------------------------------
_OVERFLOW = Attr("overflowFlags", style="enum", default=OpaqueAttr("#arith.overflow<none>"))
_FASTMATH = Attr("fastmath", style="enum", default=OpaqueAttr("#arith.fastmath<none>"))
# MLIR's arith formats: the flags group is printed only when the flags are not the default.
_FLAG_GROUP = {"overflowFlags": " (`overflow` `` $overflowFlags^)?", "fastmath": " (`fastmath` `` $fastmath^)?"}
_BINARY = {
    **dict.fromkeys(("addi", "subi", "muli", "shli"), (_OVERFLOW,)),
    **dict.fromkeys(
        ("divui", "divsi", "ceildivui", "ceildivsi", "floordivsi", "remui", "remsi", "andi", "ori", "xori",
         "shrui", "shrsi", "maxui", "maxsi", "minui", "minsi"),
        (),
    ),
    **dict.fromkeys(("addf", "subf", "mulf", "divf", "maximumf", "minimumf", "maxnumf", "minnumf"), (_FASTMATH,)),
}
for _op, _attrs in _BINARY.items():
    define(OpSpec(
        f"arith.{_op}",
        operands=(anyv("lhs"), anyv("rhs")),
        results=(Result("result"),),
        attrs=_attrs,
        levels=ANY,
        traits=frozenset({"pure"}),
        same_type=(("lhs", "rhs", "result"),),
        format="$lhs `,` $rhs" + "".join(_FLAG_GROUP[a.name] for a in _attrs) + " attr-dict `:` type($result)",
    ))

# MLIR's arith.trunci carries overflow flags too (ArithOps.td: `$in (overflow $overflowFlags^)?`).
_CAST_ATTRS = {"trunci": (_OVERFLOW,)}
for _op in ("index_cast", "index_castui", "extui", "extsi", "trunci", "bitcast", "sitofp", "uitofp", "fptosi", "fptoui", "extf", "truncf"):
    _attrs = _CAST_ATTRS.get(_op, ())
    define(OpSpec(
        f"arith.{_op}",
        operands=(anyv("in"),),
        results=(Result("out"),),
        attrs=_attrs,
        levels=ANY,
        traits=frozenset({"pure"}),
        format="$in" + "".join(_FLAG_GROUP[a.name] for a in _attrs) + " attr-dict `:` type($in) `to` type($out)",
    ))

def _condition_is_i1(ctx: ParseContext) -> None:
    ctx.types.setdefault("condition", [I1])


define(OpSpec(
    "arith.select",
    operands=(anyv("condition"), anyv("true_value"), anyv("false_value")),
    results=(Result("result"),),
    levels=ANY,
    traits=frozenset({"pure"}),
    same_type=(("true_value", "false_value", "result"),),
    infer=_condition_is_i1,
    format="$condition `,` $true_value `,` $false_value attr-dict `:` type($result)",
))


# -- hal ops IREE leaves in stream functions -----------------------------------------------------
def _element_type_names(op: Op) -> list[str | None]:
    t = op.properties.get("type")
    return [f"element_type_{t.type}" if isinstance(t, TypeAttr) else "element_type"]


define(OpSpec(
    "hal.element_type",
    results=(Result("result", type=I32),),
    attrs=(Attr("type", True, "type"),),
    levels=ANY,
    traits=frozenset({"pure"}),
    asm_names=_element_type_names,
    format="`<` $type `>` attr-dict `:` type($result)",
))


def _parse_encoding_type(p: Parser, state: OpState) -> None:
    p.expect("<")
    tok = p.lexer.next()
    if tok.kind == "bare" and tok.text == "dense_row_major":
        pass  # the default encoding: no attribute, as in IREE's generic form
    else:
        p.lexer.reset(tok.pos)
        state.properties["encoding"] = p.parse_attribute()
    p.expect(">")
    if p.lexer.peek().is_punct("{"):
        state.attributes.update(p.parse_attr_dict_body())
    p.expect(":")
    state.result_types = [p.parse_type()]


def _print_encoding_type(pr: Printer, op: Op) -> None:
    enc = op.properties.get("encoding")
    pr.write("<" + (pr.attr(enc) if enc is not None else "dense_row_major") + ">")
    pr.attr_dict(op.attributes)
    pr.write(" : " + pr.type(op.results[0].type))


def _encoding_names(op: Op) -> list[str | None]:
    enc = op.properties.get("encoding")
    return ["dense_row_major" if enc is None else "encoding_type"]


define(OpSpec(
    "hal.encoding_type",
    results=(Result("result", type=I32),),
    attrs=(Attr("encoding"),),
    levels=ANY,
    traits=frozenset({"pure"}),
    asm_names=_encoding_names,
    custom_parse=_parse_encoding_type,
    custom_print=_print_encoding_type,
))

def _element_and_encoding_are_i32(ctx: ParseContext) -> None:
    ctx.types.setdefault("element_type", [I32])
    ctx.types.setdefault("encoding_type", [I32])


define(OpSpec(
    "hal.buffer_view.assert",
    operands=(
        anyv("buffer_view"),
        anyv("element_type"),
        anyv("encoding_type"),
        idx("shape", "variadic"),
    ),
    attrs=(Attr("message", True, "string"),),
    effects=(),  # checks host values (it fails or not); touches no memory
    levels=ANY,
    infer=_element_and_encoding_are_i32,
    format="`<` $buffer_view `:` type($buffer_view) `>` `message` `(` $message `)` `shape` `(` `[` $shape `]` `)` "
    "`type` `(` $element_type `)` `encoding` `(` $encoding_type `)` attr-dict",
))



# -- comparisons: `arith.cmpi sgt, %a, %b : i64` (the predicate is an i64 enum in the generic form)
_CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_CMPF = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true")


def _predicate_directive(name: str, cases: tuple[str, ...]) -> None:
    @directive(name)
    class _Predicate:
        @staticmethod
        def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
            tok = ctx.parser.lexer.next()
            if tok.text not in cases:
                raise ctx.parser.error(f"expected a comparison predicate ({', '.join(cases)})", tok)
            ctx.attrs[args[0].name] = IntegerAttr(cases.index(tok.text), I64)

        @staticmethod
        def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
            value = op.properties.get(args[0].name)
            index = value.value if isinstance(value, IntegerAttr) else -1
            pr.write(cases[index] if 0 <= index < len(cases) else str(index))


_predicate_directive("CmpIPredicate", _CMPI)
_predicate_directive("CmpFPredicate", _CMPF)


def _compare_result(ctx: ParseContext) -> None:
    ctx.types.setdefault("rhs", list(ctx.types.get("lhs", [])))
    ctx.types.setdefault("result", [I1])


for _cmp, _attrs, _directive in (("cmpi", (), "CmpIPredicate"), ("cmpf", (_FASTMATH,), "CmpFPredicate")):
    define(OpSpec(
        f"arith.{_cmp}",
        operands=(anyv("lhs"), anyv("rhs")),
        results=(Result("result", type=I1),),
        attrs=(Attr("predicate", True), *_attrs),
        levels=ANY,
        traits=frozenset({"pure"}),
        infer=_compare_result,
        format=f"custom<{_directive}>($predicate) `,` $lhs `,` $rhs" + "".join(_FLAG_GROUP[a.name] for a in _attrs)
        + " attr-dict `:` type($lhs)",
    ))

"""Host-side ops: `builtin.module`, `func.*`, `util.*`.

Functions are ops with a body region (`func.func`, `util.func`); their pretty form is MLIR's
function syntax `@name(%arg0: type {attrs}) -> type attributes {...} { ... }`, stored as the
`function_type`, `sym_name`, `sym_visibility`, `arg_attrs` and `res_attrs` properties exactly as
the generic form spells them.
"""

from __future__ import annotations

from stream.dialect.common import ANY, anyv
from stream.ir.attributes import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    DictAttr,
    FloatAttr,
    ImmediateTimepointAttr,
    IntegerAttr,
    OpaqueAttr,
    StringAttr,
    TypeAttr,
    UnitAttr,
    format_symbol,
)
from stream.ir.core import Op
from stream.ir.format import ParseContext
from stream.ir.interfaces import Access
from stream.ir.parser import Parser, UnresolvedOperand
from stream.ir.printer import Printer
from stream.ir.spec import Attr, OpSpec, RegionSpec, Result, canonical_ties, define
from stream.ir.spec_registry import OpState
from stream.ir.types import F64, I1, I64, INDEX, TIMEPOINT, FunctionType, OpaqueType, Type

_FUNC_ATTRS = (
    Attr("sym_name", True, "symbol_name"),
    Attr("function_type", True, "type"),
    Attr("sym_visibility", style="string"),
    Attr("arg_attrs"),
    Attr("res_attrs"),
)
# util.func's own (UtilOps.td): tied results and IREE's inlining policy (`#util.inline.never`
# on the coarse-fences `$async` functions); func.func has neither.
_UTIL_FUNC_ATTRS = (Attr("tied_operands"), Attr("inlining_policy"))
_FUNC_INHERENT = frozenset(a.name for a in (*_FUNC_ATTRS, *_UTIL_FUNC_ATTRS))


def _parse_function(tied_results: bool, default_dialect: str | None):  # type: ignore[no-untyped-def]
    def parse(p: Parser, state: OpState) -> None:
        tok = p.lexer.peek()
        if tok.kind == "bare" and tok.text in ("public", "private", "nested"):
            p.lexer.next()  # MLIR and IREE store the keyword as written, `public` too
            state.properties["sym_visibility"] = StringAttr(tok.text)
        state.properties["sym_name"] = StringAttr(p.parse_symbol_ref().root)
        p.expect("(", "to start the argument list")
        entry: list[tuple[UnresolvedOperand, Type]] = []
        arg_types: list[Type] = []
        arg_attrs: list[Attribute] = []
        named_args = True
        if not p.accept(")"):
            while True:
                if p.lexer.peek().kind == "percent":
                    name = p.parse_operand()
                    p.expect(":", "and the argument type")
                    t = p.parse_type()
                    entry.append((name, t))
                else:
                    named_args = False
                    t = p.parse_type()
                arg_types.append(t)
                arg_attrs.append(DictAttr.of(p.parse_attr_dict_body()) if p.lexer.peek().is_punct("{") else DictAttr(()))
                p.parse_optional_loc()
                if not p.accept(","):
                    break
            p.expect(")", "to close the argument list")
        result_types: list[Type] = []
        res_attrs: list[Attribute] = []
        ties: list[int] = []

        def result() -> None:
            # util.func: a result may be an argument (`%arg0`, `%arg0 as type`): tied to it.
            tied = -1
            if tied_results and p.lexer.peek().kind == "percent":
                use = p.parse_operand()
                tied = next((i for i, (a, _t) in enumerate(entry) if a.name == use.name), -1)
                if tied < 0:
                    raise p.error(f"tied operand not found for result reference %{use.name}")
                result_types.append(p.parse_type() if p.accept_keyword("as") else arg_types[tied])
            else:
                result_types.append(p.parse_type())
            ties.append(tied)

        if p.accept("->"):
            if p.accept("("):
                if not p.accept(")"):
                    while True:
                        result()
                        res_attrs.append(DictAttr.of(p.parse_attr_dict_body()) if p.lexer.peek().is_punct("{") else DictAttr(()))
                        if not p.accept(","):
                            break
                    p.expect(")")
            else:
                result()
                res_attrs.append(DictAttr(()))
        if tied_results and ties:  # IREE's parser stores one entry per result, -1 untied
            state.properties["tied_operands"] = ArrayAttr(tuple(IntegerAttr(t, INDEX) for t in ties))
        state.properties["function_type"] = TypeAttr(FunctionType(tuple(arg_types), tuple(result_types)))
        if any(d.entries for d in arg_attrs):  # type: ignore[attr-defined]
            state.properties["arg_attrs"] = ArrayAttr(tuple(arg_attrs))
        if any(d.entries for d in res_attrs):  # type: ignore[attr-defined]
            state.properties["res_attrs"] = ArrayAttr(tuple(res_attrs))
        if p.accept_keyword("attributes"):
            for key, value in p.parse_attr_dict_body().items():
                (state.properties if key in _FUNC_INHERENT else state.attributes)[key] = value
        if p.lexer.peek().is_punct("{"):
            if not named_args:
                raise p.error("a function with a body needs named arguments (%name: type)")
            state.regions.append(p.parse_region(entry, isolated=True, default_dialect=default_dialect))
        else:
            from stream.ir.core import Region

            state.regions.append(Region(()))

    return parse


def _print_function(always_visibility: bool):  # type: ignore[no-untyped-def]
    def print_(pr: Printer, op: Op) -> None:
        vis = op.properties.get("sym_visibility")
        if isinstance(vis, StringAttr):
            pr.write(" " + vis.value)
        elif always_visibility:
            pr.write(" public")
        name = op.properties["sym_name"]
        assert isinstance(name, StringAttr)
        ftype = op.properties["function_type"]
        assert isinstance(ftype, TypeAttr) and isinstance(ftype.type, FunctionType)
        body = op.regions[0] if op.regions and op.regions[0].blocks else None
        args = body.blocks[0].arguments if body is not None else ()
        arg_attrs = _dicts(op.properties.get("arg_attrs"), len(ftype.type.inputs))
        parts = []
        for i, t in enumerate(ftype.type.inputs):
            if body is not None:
                text = f"{pr.value(args[i])}: {pr.type(t)}"
            else:  # a declaration: util.func names its arguments anyway (printShapedFunctionSignature)
                text = f"%arg{i}: {pr.type(t)}" if always_visibility else pr.type(t)
            if arg_attrs[i].entries:
                text += " " + pr.attr(arg_attrs[i])
            parts.append(text)
        pr.write(f" {format_symbol(name.value)}(" + ", ".join(parts) + ")")
        results = ftype.type.results
        res_attrs = _dicts(op.properties.get("res_attrs"), len(results))
        ties = _ties(op.properties.get("tied_operands"), len(results), len(ftype.type.inputs)) if always_visibility else None
        if results:
            texts = []
            for i, (t, a) in enumerate(zip(results, res_attrs)):
                tied = ties[i] if ties is not None else -1
                if tied >= 0:  # IREE's printShapedFunctionResultList: the argument, its type if it differs
                    arg = pr.value(args[tied]) if body is not None else f"%arg{tied}"
                    text = arg if ftype.type.inputs[tied] == t else f"{arg} as {pr.type(t)}"
                else:
                    text = pr.type(t)
                texts.append(text + (" " + pr.attr(a) if a.entries else ""))
            single = len(results) == 1 and not res_attrs[0].entries and not isinstance(results[0], FunctionType)
            pr.write(" -> " + (texts[0] if single else "(" + ", ".join(texts) + ")"))
        # inlining_policy has no syntax of its own: IREE prints it in the attribute dictionary;
        # tied_operands only when the signature cannot say it (not one entry per result).
        extra = {k: v for k, v in op.properties.items()
                 if k not in _FUNC_INHERENT or k == "inlining_policy" or (k == "tied_operands" and ties is None)}
        extra.update(op.attributes)
        pr.attr_dict(extra, keyword=True)
        if body is not None:
            pr.write(" ")
            pr.print_region(body, op, print_entry_args=False)

    return print_


def _ties(attr: Attribute | None, n_results: int, n_args: int) -> list[int] | None:
    """util.func's ties, one per result, when the signature can print them (else None: then the
    attribute, if any, goes in the attribute dictionary)."""
    if attr is None:
        return [-1] * n_results if n_results == 0 else None
    if not isinstance(attr, ArrayAttr) or len(attr) != n_results:
        return None
    ties = [e.value if isinstance(e, IntegerAttr) and e.type == INDEX else None for e in attr.elements]
    if any(t is None or t >= n_args or t < -1 for t in ties):
        return None
    return ties  # type: ignore[return-value]


def _dicts(attr: Attribute | None, n: int) -> list[DictAttr]:
    if isinstance(attr, ArrayAttr) and len(attr) == n:
        return [a if isinstance(a, DictAttr) else DictAttr(()) for a in attr.elements]
    return [DictAttr(())] * n


def function_spec(name: str, always_visibility: bool, default_dialect: str | None) -> OpSpec:
    return OpSpec(
        name,
        attrs=(*_FUNC_ATTRS, *(_UTIL_FUNC_ATTRS if name == "util.func" else (Attr("tied_operands"),))),
        regions=(RegionSpec("body"),),
        traits=frozenset({"isolated", "symbol", "function"}),
        levels=ANY,
        default_dialect=default_dialect,
        custom_parse=_parse_function(always_visibility, default_dialect),
        custom_print=_print_function(always_visibility),
    )


define(function_spec("func.func", False, "func"))
define(function_spec("util.func", True, None))

for _ret in ("func.return", "util.return"):
    define(OpSpec(
        _ret,
        pure=True,  # func.return and util.return are Pure (FuncOps.td, UtilOps.td)
        operands=(anyv("operands", "variadic"),),
        accesses=(Access("operands"),),  # the caller reads what it is returned
        traits=frozenset({"terminator", "return"}),
        format="attr-dict ($operands^ `:` type($operands))?",
    ))


def _barrier_results(ctx: ParseContext) -> None:
    ctx.types.setdefault("results", list(ctx.types.get("operands", [])))


# IREE's `util.optimization_barrier`: its results are its operands, hidden from folding. The
# verifier has no effect rule for it (what it does to the timeline is not assumed; see
# verify/unmodelled.py); the executor passes the values through.
define(OpSpec(
    "util.optimization_barrier",
    operands=(anyv("operands", "variadic"),),
    results=(Result("results", "variadic"),),
    levels=ANY,
    infer=_barrier_results,
    format="attr-dict ($operands^ `:` type($operands))?",
))


def _parse_call(p: Parser, state: OpState) -> None:
    state.properties["callee"] = p.parse_symbol_ref()
    p.expect("(")
    uses = p.parse_operand_list(close=")")
    p.expect(")")
    if p.lexer.peek().is_punct("{"):
        state.attributes.update(p.parse_attr_dict_body())
    p.expect(":")
    tok = p.lexer.peek()
    ftype = p.parse_type()
    if not isinstance(ftype, FunctionType):
        raise p.error("expected a function type", tok)
    state.operands = p.resolve_all(uses, list(ftype.inputs))
    state.result_types = list(ftype.results)
    if state.name == "util.call" and "tied_operands" not in state.properties:
        # What IREE's parser stores for a call whose assembly ties nothing: -1 per result.
        state.properties["tied_operands"] = canonical_ties(None, len(ftype.results), sparse=False)


def _print_call(pr: Printer, op: Op) -> None:
    pr.write(f" {op.properties['callee']}({pr.values(op.operands)})")
    # Untied results (all -1) are IREE's default and not printed in its assembly, which refuses
    # `tied_operands` in the attribute dictionary. (A tied result, `-> %arg`, is kept in the
    # attribute dictionary: streamproof's pretty form does not spell ties in the type.)
    props = {k: v for k, v in op.properties.items() if k != "callee" and not (k == "tied_operands" and _untied(v))}
    pr.attr_dict(props | dict(op.attributes))
    pr.write(" : " + pr.type(FunctionType(tuple(v.type for v in op.operands), tuple(v.type for v in op.results))))


def _untied(attr: Attribute) -> bool:
    return isinstance(attr, ArrayAttr) and all(isinstance(e, IntegerAttr) and e.value < 0 for e in attr.elements)


for _call in ("func.call", "util.call"):
    define(OpSpec(
        _call,
        operands=(anyv("operands", "variadic"),),
        results=(Result("results", "variadic"),),
        # util.call's `tied_operands` (IREE prints `[-1 : index]` per untied result in generic
        # form) is kept as written; what a call does to its arguments comes from the callee's
        # own body (verify.calls), never from this attribute.
        attrs=(Attr("callee", True, "symbol"), *((Attr("tied_operands"),) if _call == "util.call" else ())),
        traits=frozenset({"call"}),
        custom_parse=_parse_call,
        custom_print=_print_call,
    ))

define(OpSpec(
    "builtin.module",
    attrs=(Attr("sym_name", style="symbol_name"), Attr("sym_visibility", style="string")),
    regions=(RegionSpec("bodyRegion"),),
    traits=frozenset({"isolated", "symbol"}),
    format="($sym_name^)? attr-dict-with-keyword $bodyRegion",
))


# -- util.global: `util.global private mutable @name : type = initial` -------------------------
def _attr_type(attr: Attribute) -> Type | None:
    """The type an initial value carries in its own spelling (`4 : index`, `dense<...> :
    tensor<...>`, `#hal.device.target<...> : !hal.device`, `#stream.timepoint<immediate>`)."""
    if isinstance(attr, ImmediateTimepointAttr):
        return TIMEPOINT
    if isinstance(attr, OpaqueAttr):
        if " : " not in attr.text:
            return None
        from stream.ir.diagnostics import DiagnosticError, SourceFile

        try:
            return Parser(SourceFile("<type>", attr.text.rsplit(" : ", 1)[1])).parse_type()
        except DiagnosticError:
            return None
    if isinstance(attr, BoolAttr):
        return I1
    ty = getattr(attr, "type", None)
    return ty if isinstance(ty, Type) and not isinstance(attr, TypeAttr) else None


def _typed_text(pr: Printer, attr: Attribute) -> str:
    """An initial value spelled with its type, as MLIR prints a typed attribute on its own."""
    text = pr.attr(attr)
    if isinstance(attr, ImmediateTimepointAttr):
        return f"{text} : {TIMEPOINT}"
    if (isinstance(attr, IntegerAttr) and attr.type == I64) or (isinstance(attr, FloatAttr) and attr.type == F64):
        return f"{text} : {attr.type}"
    return text


def _parse_global(p: Parser, state: OpState) -> None:
    tok = p.lexer.peek()
    if tok.kind == "bare" and tok.text in ("public", "private", "nested"):
        p.lexer.next()
        if tok.text != "public":
            state.properties["sym_visibility"] = StringAttr(tok.text)
    if p.accept_keyword("mutable"):
        state.properties["is_mutable"] = UnitAttr()
    state.properties["sym_name"] = StringAttr(p.parse_symbol_ref().root)
    if p.lexer.peek().is_punct("{"):
        state.attributes.update(p.parse_attr_dict_body())
    type_: Type | None = p.parse_type() if p.accept(":") else None
    if p.accept("="):
        value_tok = p.lexer.peek()
        value = p.parse_attribute(typed_opaque=True)
        # A typed attribute MLIR does not model as text (`#stream.timepoint<immediate>`) may
        # still be followed by its type.
        if p.lexer.peek().is_punct(":") and _attr_type(value) is not None and not isinstance(value, OpaqueAttr):
            p.lexer.next()
            spelled = p.parse_type()
            if spelled != _attr_type(value):
                raise p.error(f"the initial value has type {_attr_type(value)}, not {spelled}", value_tok)
        state.properties["initial_value"] = value
        if type_ is None:
            type_ = _attr_type(value)
            if type_ is None:
                raise p.error("cannot tell the global's type from its initial value; write ': type' before '='", value_tok)
    if type_ is None:
        raise p.error("expected ': type' or '= initial value' for util.global")
    state.properties["type"] = TypeAttr(type_)


def _print_global(pr: Printer, op: Op) -> None:
    vis = op.properties.get("sym_visibility")
    pr.write(" " + (vis.value if isinstance(vis, StringAttr) else "public"))
    if "is_mutable" in op.properties:
        pr.write(" mutable")
    name = op.properties["sym_name"]
    assert isinstance(name, StringAttr)
    pr.write(" " + format_symbol(name.value))
    pr.attr_dict({k: v for k, v in op.properties.items() if k not in _GLOBAL_ATTRS} | dict(op.attributes))
    type_attr = op.properties.get("type")
    init = op.properties.get("initial_value")
    assert isinstance(type_attr, TypeAttr)
    if init is None or _attr_type(init) != type_attr.type:
        pr.write(" : " + pr.type(type_attr.type))
    if init is not None:
        pr.write(" = " + _typed_text(pr, init))


_GLOBAL_ATTRS = frozenset({"sym_visibility", "is_mutable", "sym_name", "type", "initial_value"})

define(OpSpec(
    "util.global",
    attrs=(
        Attr("sym_name", True, "symbol_name"), Attr("type", True, "type"), Attr("sym_visibility", style="string"),
        Attr("is_mutable", style="unit"), Attr("initial_value"),
    ),
    traits=frozenset({"symbol"}),
    effects=(),  # a declaration: loads and stores are the ops with effects
    custom_parse=_parse_global,
    custom_print=_print_global,
))

define(OpSpec(
    "util.initializer",
    # IREE's InitializerOp is a function op: its type is always `() -> ()`, which the pretty
    # form leaves out and the generic form spells as the `function_type` property.
    attrs=(Attr("function_type", default=TypeAttr(FunctionType((), ()))), Attr("arg_attrs"), Attr("res_attrs"), Attr("inlining_policy")),
    regions=(RegionSpec("body"),),
    traits=frozenset({"isolated"}),
    format="attr-dict-with-keyword $body",
))


# -- util.buffer.constant: `%buffer_cst = util.buffer.constant : !util.buffer = "key"` ----------
# A host byte buffer; in a Stream module it names a parameter's scope or key
# (stream/dialect/stream_parameter.py). Pure: it touches no resource.
def _buffer_cst_name(op: Op) -> list[str | None]:
    name = op.properties.get("name")
    return [name.value if isinstance(name, StringAttr) else "buffer_cst"]


# IREE 3.13 spells the optional alignment and MIME type as MLIR's `prop-dict`:
# `util.buffer.constant "name" <alignment = 64, mime_type = "text/plain"> : !util.buffer = value`
# (iree-opt refuses them in the attribute dictionary: its properties are strict).
_BUFFER_PROPS = ("alignment", "mime_type")


def _parse_buffer_constant(p: Parser, state: OpState) -> None:
    if p.lexer.peek().kind == "string":
        state.properties["name"] = p.parse_attribute()
    if p.accept("<"):
        while True:
            tok = p.lexer.next()
            if tok.text not in _BUFFER_PROPS or tok.text in state.properties:
                raise p.error(f"expected 'alignment' or 'mime_type' in util.buffer.constant's properties, found '{tok.text}'", tok)
            p.expect("=")
            value = p.parse_attribute()
            if tok.text == "alignment" and isinstance(value, IntegerAttr):
                value = IntegerAttr(value.value, INDEX)
            state.properties[tok.text] = value
            if p.accept(">"):
                break
            p.expect(",", "or '>' after a util.buffer.constant property")
    if p.lexer.peek().is_punct("{"):
        state.attributes.update(p.parse_attr_dict_body())
    p.expect(":")
    state.result_types.append(p.parse_type())
    p.expect("=")
    state.properties["value"] = p.parse_attribute(typed_opaque=True)


def _print_buffer_constant(pr: Printer, op: Op) -> None:
    name = op.properties.get("name")
    if name is not None:
        pr.write(" " + pr.attr(name))
    props = [(k, op.properties[k]) for k in _BUFFER_PROPS if k in op.properties]
    if props:
        texts = [f"{k} = {v.value if isinstance(v, IntegerAttr) else pr.attr(v)}" for k, v in props]
        pr.write(" <" + ", ".join(texts) + ">")
    pr.attr_dict(dict(op.attributes))
    pr.write(" : " + pr.types(r.type for r in op.results) + " = " + pr.attr(op.properties["value"]))


define(OpSpec(
    "util.buffer.constant",
    pure=True,
    results=(Result("result", type=OpaqueType("!util.buffer")),),
    attrs=(Attr("name", style="string"), Attr("value", True), Attr("alignment"), Attr("mime_type")),
    levels=ANY,
    accesses=(),
    traits=frozenset({"pure"}),
    asm_names=_buffer_cst_name,
    custom_parse=_parse_buffer_constant,
    custom_print=_print_buffer_constant,
))

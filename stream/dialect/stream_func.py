"""Streamable function declarations: `stream.async.func` and `stream.cmd.func`.

They declare externals that `stream.async.call` and `stream.cmd.call` invoke (IREE allows only
declarations today). `stream.async.func` spells its signature as `util.func` does (IREE's
`ShapedFunctionSignature`: a result may be an argument, `-> %arg0`, tied to it);
`stream.cmd.func` as a dispatch signature (`DispatchFunctionSignature`): a resource argument is
written `%arg0[%arg1 for %arg2]: !stream.resource<*>` and stands for three inputs of the
function type, the resource, its offset and its length (both `index`). As IREE's parser does,
a cmd.func with arguments (results) stores one `arg_attrs` (`res_attrs`) dictionary per input
(result), empty ones included; a declaration prints its arguments as `%argN` by input position.
"""

from __future__ import annotations

import dataclasses

from stream.dialect.builtin import function_spec
from stream.dialect.common import ANY
from stream.ir.attributes import ArrayAttr, Attribute, DictAttr, StringAttr, TypeAttr, format_symbol
from stream.ir.core import Op, Region
from stream.ir.parser import Parser
from stream.ir.printer import Printer
from stream.ir.spec import Attr, OpSpec, RegionSpec, define
from stream.ir.spec_registry import OpState
from stream.ir.types import INDEX, FunctionType, ResourceType, Type

# A declaration is a symbol, not code that runs: no memory effect (the verifier and refinement
# see calls to it, through `stream.async.call` / `stream.cmd.call`).
define(dataclasses.replace(function_spec("stream.async.func", always_visibility=True, default_dialect=None), effects=()))

_CMD_FUNC_INHERENT = frozenset({"sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"})


def _optional_dict(p: Parser) -> DictAttr:
    return DictAttr.of(p.parse_attr_dict_body()) if p.lexer.peek().is_punct("{") else DictAttr(())


def _parse_cmd_func(p: Parser, state: OpState) -> None:
    tok = p.lexer.peek()
    if tok.kind == "bare" and tok.text in ("public", "private", "nested"):
        p.lexer.next()
        state.properties["sym_visibility"] = StringAttr(tok.text)
    state.properties["sym_name"] = StringAttr(p.parse_symbol_ref().root)
    p.expect("(", "to start the argument list")
    inputs: list[Type] = []
    arg_attrs: list[Attribute] = []
    if not p.accept(")"):
        while True:
            p.parse_operand()  # argument names carry nothing: a declaration has no body
            ranged = p.accept("[")
            if ranged:
                p.parse_operand()
                p.expect_keyword("for")
                p.parse_operand()
                p.expect("]")
            p.expect(":", "and the argument type")
            inputs.append(p.parse_type())
            arg_attrs.append(_optional_dict(p))
            if ranged:  # the range is two more index inputs, without attributes
                inputs += [INDEX, INDEX]
                arg_attrs += [DictAttr(()), DictAttr(())]
            if not p.accept(","):
                break
        p.expect(")", "to close the argument list")
    results: list[Type] = []
    res_attrs: list[Attribute] = []
    if p.accept("->"):
        grouped = p.accept("(")
        if not (grouped and p.lexer.peek().is_punct(")")):
            while True:
                results.append(p.parse_type())
                res_attrs.append(_optional_dict(p))
                if not p.accept(","):
                    break
        if grouped:
            p.expect(")")
    state.properties["function_type"] = TypeAttr(FunctionType(tuple(inputs), tuple(results)))
    if arg_attrs:
        state.properties["arg_attrs"] = ArrayAttr(tuple(arg_attrs))
    if res_attrs:
        state.properties["res_attrs"] = ArrayAttr(tuple(res_attrs))
    if p.accept_keyword("attributes"):
        for key, value in p.parse_attr_dict_body().items():
            (state.properties if key in _CMD_FUNC_INHERENT else state.attributes)[key] = value
    state.regions.append(Region(()))


def _dict_at(attr: Attribute | None, index: int) -> DictAttr | None:
    if isinstance(attr, ArrayAttr) and index < len(attr.elements):
        entry = attr.elements[index]
        if isinstance(entry, DictAttr) and entry.entries:
            return entry
    return None


def _print_cmd_func(pr: Printer, op: Op) -> None:
    vis = op.properties.get("sym_visibility")
    pr.write(" " + (vis.value if isinstance(vis, StringAttr) else "public"))
    name = op.properties["sym_name"]
    ftype = op.properties["function_type"]
    assert isinstance(name, StringAttr) and isinstance(ftype, TypeAttr) and isinstance(ftype.type, FunctionType)
    inputs = ftype.type.inputs
    parts = []
    i = 0
    while i < len(inputs):
        text = f"%arg{i}"
        base = i
        if isinstance(inputs[i], ResourceType):
            text += f"[%arg{i + 1} for %arg{i + 2}]"
            i += 3
        else:
            i += 1
        text += ": " + pr.type(inputs[base])
        attrs = _dict_at(op.properties.get("arg_attrs"), base)
        parts.append(text + (" " + pr.attr(attrs) if attrs is not None else ""))
    pr.write(f" {format_symbol(name.value)}(" + ", ".join(parts) + ")")
    results = ftype.type.results
    if results:
        texts = []
        for k, t in enumerate(results):
            attrs = _dict_at(op.properties.get("res_attrs"), k)
            texts.append(pr.type(t) + (" " + pr.attr(attrs) if attrs is not None else ""))
        pr.write(" -> " + (texts[0] if len(texts) == 1 else "(" + ", ".join(texts) + ")"))
    extra = {k: v for k, v in op.properties.items() if k not in _CMD_FUNC_INHERENT}
    extra.update(op.attributes)
    pr.attr_dict(extra, keyword=True)


define(OpSpec(
    "stream.cmd.func",
    attrs=(
        Attr("sym_name", True, "symbol_name"),
        Attr("function_type", True, "type"),
        Attr("sym_visibility", style="string"),
        Attr("arg_attrs"),
        Attr("res_attrs"),
    ),
    regions=(RegionSpec("body"),),
    traits=frozenset({"isolated", "symbol", "function"}),
    levels=ANY,
    effects=(),
    custom_parse=_parse_cmd_func,
    custom_print=_print_cmd_func,
))

"""Reading an op by its declarative assembly format (`stream.ir.format`).

A format is compiled once into closures, one per element that reads input, so that reading an op
does no dispatch on element kinds; `finish` then turns what the steps read into the op's
operands, result types, properties and regions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from stream.ir.attributes import Attribute, IntegerAttr, OpaqueAttr, StringAttr, TypeAttr, UnitAttr
from stream.ir.core import Region
from stream.ir.format import (
    DIRECTIVES,
    Arg,
    AttrDict,
    Custom,
    Element,
    Format,
    Group,
    Lit,
    ParseContext,
    Regions,
    TypeOf,
    Var,
    format_elements,
)
from stream.ir.parser import Parser
from stream.ir.types import Type

if TYPE_CHECKING:
    from stream.ir.spec import Attr, OpSpec

__all__ = ["compile_format", "compile_steps", "finish", "parse_attr_styled"]

Step = Callable[[ParseContext], None]


def compile_format(spec: OpSpec, text: str) -> Format:
    """The `Format` of an op's assembly format text: its elements (`stream.ir.format`) and the
    steps that read them."""
    elements = format_elements(spec, text)
    return Format(spec, elements, compile_steps(spec, elements), finish)


def compile_steps(spec: OpSpec, elements: tuple[Element, ...]) -> tuple[Step, ...]:
    steps: list[Step] = []
    i = 0
    while i < len(elements):
        e = elements[i]
        if isinstance(e, Lit):
            text = e.text
            if text in ("", " ", "\\n"):
                pass
            elif text == "=" and elements[i + 1 : i + 3] == (Lit(""), Lit(">")):
                steps.append(_expect_step("=>"))
                i += 2
            elif text[:1].isalpha() or text[:1] == "_":
                steps.append(_keyword_step(text))
            else:
                steps.append(_expect_step(text))
        elif isinstance(e, Var):
            steps.append(_var_step(spec, e))
        elif isinstance(e, TypeOf):
            steps.append(_types_step(e.target))
        elif isinstance(e, AttrDict):
            steps.append(_attr_dict_step(e.keyword))
        elif isinstance(e, Regions):
            steps.append(_regions_step)
        elif isinstance(e, Custom):
            steps.append(_custom_step(e.name, e.args))
        elif isinstance(e, Group):
            steps.append(_group_step(spec, e))
        i += 1
    return tuple(steps)


def _run(ctx: ParseContext, steps: tuple[Step, ...]) -> None:
    for step in steps:
        step(ctx)


def _expect_step(text: str) -> Step:
    def step(ctx: ParseContext) -> None:
        p = ctx.parser
        if not p.lexer.take("punct", text):
            p.expect(text)  # reports what is there instead

    return step


def _keyword_step(text: str) -> Step:
    def step(ctx: ParseContext) -> None:
        p = ctx.parser
        if not p.lexer.take("bare", text):
            p.expect_keyword(text)  # reports what is there instead

    return step


def _types_step(target: str) -> Step:
    return lambda ctx: _parse_types(ctx, target)


def _attr_dict_step(keyword: bool) -> Step:
    def step(ctx: ParseContext) -> None:
        p = ctx.parser
        if keyword:
            if p.accept_keyword("attributes"):
                ctx.attr_dict.update(p.parse_attr_dict_body())
        elif p.lexer.peek().is_punct("{"):
            ctx.attr_dict.update(p.parse_attr_dict_body())

    return step


def _regions_step(ctx: ParseContext) -> None:
    p = ctx.parser
    while p.lexer.peek().is_punct("{"):
        rspec = ctx.spec.regions[len(ctx.regions)]
        ctx.regions[rspec.name] = _parse_region(ctx, rspec.name)
        if not p.accept(","):
            break


def _custom_step(name: str, args: tuple[Arg, ...]) -> Step:
    return lambda ctx: DIRECTIVES[name][0](ctx, args)


def _group_step(spec: OpSpec, group: Group) -> Step:
    present = _presence_test(spec, *_leading_elements(group.then))
    then, otherwise = compile_steps(spec, group.then), compile_steps(spec, group.otherwise)
    # A unit attribute anchoring the group is present when the group is.
    anchors = tuple(x.name for x in group.then if isinstance(x, Var) and x.anchor and x.kind == "attr")

    def step(ctx: ParseContext) -> None:
        if present(ctx):
            _run(ctx, then)
            for name in anchors:
                if name not in ctx.attrs:
                    ctx.attrs[name] = UnitAttr()
        else:
            _run(ctx, otherwise)

    return step


def _presence_test(spec: OpSpec, first: Element, second: Element | None = None) -> Callable[[ParseContext], bool]:
    """Does the input continue with this optional group (judged by its first element)?

    A group `{ $operands^ }` is told apart from an attribute dictionary that may follow
    (`tensor<4xf32> {foo = 1}`) by the token after the brace: IREE's own parser cannot tell
    them apart, which would make such ops unprintable with discardable attributes."""
    if isinstance(first, Lit) and first.text == "{" and isinstance(second, Var) and second.kind == "operand":
        return lambda ctx: ctx.parser.lexer.peek().is_punct("{") and ctx.parser.peek_second().kind == "percent"
    kinds: tuple[str, ...] = ()
    puncts: tuple[str, ...] = ()
    word: str | None = None
    if isinstance(first, Lit):
        text = first.text
        if text[:1].isalpha() or text[:1] == "_":
            word = text
        else:
            puncts = ("=", "=>") if text == "=" else (text,)
    elif isinstance(first, Var) and first.kind == "operand":
        kinds = ("percent",)
    elif isinstance(first, Var) and first.kind == "region":
        puncts = ("{",)
    elif isinstance(first, Var) and first.kind == "attr":
        style = spec._attr_index[first.name].style
        if style in ("symbol_name", "symbol"):
            kinds = ("at",)
        elif style == "int":
            kinds, puncts = ("int", "hexint"), ("-",)
        elif style == "string":
            kinds = ("string",)
        elif style == "type":
            kinds, puncts = ("bang", "bare"), ("(",)
        elif style == "enum":
            puncts = ("<",)
        else:
            return _starts_attribute
    elif isinstance(first, TypeOf):
        kinds, puncts = ("bang", "bare"), ("(",)
    else:
        raise ValueError(f"optional group cannot start with {first!r}")

    def test(ctx: ParseContext) -> bool:
        tok = ctx.parser.lexer.peek()
        if word is not None:
            return tok.kind == "bare" and tok.text == word
        return tok.kind in kinds or (tok.kind == "punct" and tok.text in puncts)

    return test


def _starts_attribute(ctx: ParseContext) -> bool:
    tok = ctx.parser.lexer.peek()
    return tok.kind in ("int", "hexint", "float", "string", "at", "hash", "bang") or (
        tok.kind == "punct" and tok.text in ("[", "{", "-")
    ) or (tok.kind == "bare" and tok.text != "attributes")


def _leading_elements(elements: tuple[Element, ...]) -> tuple[Element, Element | None]:
    """The first two elements of a group that read input (spacing literals like `` `` ``
    read none)."""
    reading = [e for e in elements if not (isinstance(e, Lit) and e.text in ("", " ", "\\n"))]
    if not reading:
        raise ValueError("an optional group needs an element that reads input")
    return reading[0], (reading[1] if len(reading) > 1 else None)


def _parse_region(ctx: ParseContext, name: str) -> Region:
    rspec = next(r for r in ctx.spec.regions if r.name == name)
    if "opaque_body" in ctx.spec.traits:
        return ctx.parser.parse_region_or_verbatim(
            isolated=ctx.spec.isolated,
            default_dialect=ctx.spec.default_dialect,
            implicit_terminator=rspec.terminator,
            terminator=rspec.terminator,
        )
    return ctx.parser.parse_region(
        isolated=ctx.spec.isolated,
        default_dialect=ctx.spec.default_dialect,
        implicit_terminator=rspec.terminator,
    )


def _var_step(spec: OpSpec, e: Var) -> Step:
    name = e.name
    if e.kind == "operand":
        arity = spec.operands[spec._operand_index[name]].arity
        if arity == "single":
            return lambda ctx: ctx.operands.__setitem__(name, [ctx.parser.parse_operand()])
        if arity == "optional":
            def optional(ctx: ParseContext) -> None:
                u = ctx.parser.parse_optional_operand()
                ctx.operands[name] = [u] if u is not None else []

            return optional

        def variadic(ctx: ParseContext) -> None:
            p = ctx.parser
            uses = []
            while p.lexer.peek().kind == "percent":
                uses.append(p.parse_operand())
                if not p.accept(","):
                    break
            ctx.operands[name] = uses

        return variadic
    if e.kind == "attr":
        attr = spec._attr_index[name]
        # A unit attribute anchoring an optional group is spelled by the group's keyword only.
        if attr.style == "unit":
            return lambda ctx: ctx.attrs.__setitem__(name, UnitAttr())
        return lambda ctx: ctx.attrs.__setitem__(name, parse_attr_styled(ctx.parser, attr))
    if e.kind == "region":
        return lambda ctx: ctx.regions.__setitem__(name, _parse_region(ctx, name))

    def result(ctx: ParseContext) -> None:
        raise ValueError(f"cannot parse result variable ${name}")

    return result


def parse_attr_styled(p: Parser, attr: Attr) -> Attribute:
    style = attr.style
    if style == "symbol_name":
        tok = p.lexer.next()
        if tok.kind != "at":
            raise p.error(f"expected a symbol name (@name), found '{tok.text}'", tok)
        from stream.ir.parse_attrs import symbol_text

        return StringAttr(symbol_text(tok.text))
    if style == "symbol":
        return p.parse_symbol_ref()
    if style == "int":
        neg = p.accept("-")
        tok = p.lexer.next()
        if tok.kind not in ("int", "hexint"):
            raise p.error(f"expected an integer, found '{tok.text}'", tok)
        from stream.ir.parse_attrs import int_literal

        value = int_literal(tok.text)
        return IntegerAttr(-value if neg else value, attr.int_type)
    if style == "string":
        tok = p.lexer.next()
        if tok.kind != "string":
            raise p.error(f"expected a string, found '{tok.text}'", tok)
        from stream.ir.parse_attrs import unescape

        return StringAttr(unescape(tok.text))
    if style == "type":
        return TypeAttr(p.parse_type())
    if style == "enum":
        if not p._adjacent("<"):
            raise p.error(f"expected '<...>' (the value of {attr.enum_prefix}<...>)")
        return OpaqueAttr(attr.enum_prefix + p._raw_balanced(p.lexer.pos))
    # As MLIR's parseAttribute: a dialect attribute may carry its type (`#stream.parameter.named<
    # "scope"::"key"> : tensor<64xf32>`, an async.constant's value).
    return p.parse_attribute(typed_opaque=True)


def _parse_types(ctx: ParseContext, target: str) -> None:
    p = ctx.parser
    arity = ctx.arity(target)
    if arity == "single":
        ctx.types[target] = [p.parse_type()]
        return
    types: list[Type] = []
    tok = p.lexer.peek()
    if tok.kind in ("bang", "bare") or tok.is_punct("("):
        types.append(p.parse_type())
        while p.accept(","):
            types.append(p.parse_type())
    ctx.types[target] = types


def finish(ctx: ParseContext) -> None:
    spec = ctx.spec
    state = ctx.state
    if spec.infer is not None:
        spec.infer(ctx)
    for group in spec.same_type:
        known = next((ctx.types[n] for n in group if n in ctx.types), None)
        if known is not None:
            for n in group:
                if n not in ctx.types:
                    count = len(ctx.operands.get(n, [])) if n in spec._operand_index else len(known)
                    ctx.types[n] = [known[0]] * count if count != len(known) else list(known)
    sizes: list[int] = []
    resolved, operands, all_types = ctx.resolved, ctx.operands, ctx.types
    for o in spec.operands:
        if o.name in resolved:
            values = resolved[o.name]
        else:
            uses = operands.get(o.name, [])
            types = all_types.get(o.name)
            if types is None:
                if o.type is None and uses:
                    raise ctx.parser.lexer.error_at(uses[0].pos, f"the type of '%{uses[0].name}' is not given")
                types = [o.type] * len(uses)  # type: ignore[list-item]
            # (Half the groups of a typical op are empty: no message to format for them.)
            values = ctx.parser.resolve_all(uses, types, what=f"'{o.name}' operands") if uses or types else []
        state.operands.extend(values)
        sizes.append(len(values))
    result_sizes: list[int] = []
    for r in spec.results:
        types = ctx.types.get(r.name)
        if types is None:
            if r.type is None or r.arity != "single":
                raise ctx.parser.error(f"'{spec.name}': the type of result '{r.name}' is not given")
            types = [r.type]
        state.result_types.extend(types)
        result_sizes.append(len(types))
    state.properties.update({k: v for k, v in ctx.attrs.items() if v is not None})
    for attr in spec.attrs:
        if attr.default is not None and attr.name not in state.properties and attr.name not in ctx.attr_dict:
            state.properties[attr.name] = attr.default
    state.properties.update(spec.segment_properties(sizes, result_sizes))
    for key, value in ctx.attr_dict.items():
        if key in spec.inherent_attributes:
            state.properties[key] = value
        else:
            state.attributes[key] = value
    for rspec in spec.regions:
        region = ctx.regions.get(rspec.name)
        state.regions.append(region if region is not None else Region(()))

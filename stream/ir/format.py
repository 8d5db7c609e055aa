"""MLIR's declarative assembly format, interpreted.

An op's pretty syntax is written as in ODS (`(`on` `(` $affinity^ `)`)? $operand `:` type($operand)`)
and one compiled format both parses (`stream.ir.format_parse`) and prints it (here), so the two
directions cannot drift apart. Spacing follows MLIR's generated printers exactly (a space before
an element unless the previous literal was an opening bracket, none before `,`/`)`/`]`/`>`,
`` `` `` suppresses one), which is what makes the output byte-identical to IREE's. Syntax a format cannot express is a `custom<Name>(...)`
directive implemented in Python (`stream.dialect.directives`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from stream.ir.attributes import Attribute, IntegerAttr, OpaqueAttr, StringAttr, SymbolRefAttr, TypeAttr, format_symbol
from stream.ir.core import Op, Region, Value
from stream.ir.parser import Parser, UnresolvedOperand
from stream.ir.spec_registry import OpState
from stream.ir.types import Type

if TYPE_CHECKING:
    from stream.ir.printer import Printer
    from stream.ir.spec import Attr, OpSpec

__all__ = ["Format", "ParseContext", "format_elements", "DIRECTIVES", "directive", "Arg", "Element"]


# -- elements ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Lit:
    text: str  # "" and " " and "\n" are whitespace elements


@dataclass(frozen=True, slots=True)
class Var:
    name: str
    kind: str  # operand | result | attr | region
    anchor: bool = False


@dataclass(frozen=True, slots=True)
class TypeOf:
    target: str  # an operand/result group name, or "operands"/"results"
    anchor: bool = False


@dataclass(frozen=True, slots=True)
class AttrDict:
    keyword: bool


@dataclass(frozen=True, slots=True)
class Regions:
    pass


@dataclass(frozen=True, slots=True)
class Arg:
    """An argument of a custom directive: `$x`, `type($x)` or `ref(...)` of either."""

    name: str
    is_type: bool = False
    is_ref: bool = False


@dataclass(frozen=True, slots=True)
class Custom:
    name: str
    args: tuple[Arg, ...]


@dataclass(frozen=True, slots=True)
class Group:
    then: tuple[Element, ...]
    otherwise: tuple[Element, ...]


Element = Lit | Var | TypeOf | AttrDict | Regions | Custom | Group


# -- custom directives ---------------------------------------------------------------------------
ParseFn = Callable[["ParseContext", tuple[Arg, ...]], None]
PrintFn = Callable[["Printer", Op, "OpSpec", tuple[Arg, ...]], None]
DIRECTIVES: dict[str, tuple[ParseFn, PrintFn]] = {}


def directive(name: str) -> Callable[[type], type]:
    """Class decorator registering a custom directive with static `parse` and `print`."""

    def wrap(cls: type) -> type:
        DIRECTIVES[name] = (cls.parse, cls.print)  # type: ignore[attr-defined]
        return cls

    return wrap


# -- the format compiler -------------------------------------------------------------------------
_FMT_TOKEN = re.compile(
    r"\s*(?:`(?P<lit>[^`]*)`|\$(?P<var>\w+)|(?P<kw>attr-dict-with-keyword|attr-dict|functional-type|[A-Za-z_][\w-]*)|(?P<p>[()^?:,<>]))"
)


class _FormatTokens:
    def __init__(self, text: str) -> None:
        self.items: list[tuple[str, str]] = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _FMT_TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                raise ValueError(f"bad assembly format near: {text[pos:pos + 30]!r}")
            kind = m.lastgroup or "p"
            self.items.append((kind, m.group(kind)))
            pos = m.end()
            while pos < len(text) and text[pos].isspace():
                pos += 1
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.items[self.i] if self.i < len(self.items) else None

    def next(self) -> tuple[str, str]:
        tok = self.items[self.i]
        self.i += 1
        return tok

    def expect(self, kind: str, text: str) -> None:
        tok = self.next()
        if tok != (kind, text):
            raise ValueError(f"expected {text!r} in assembly format, found {tok[1]!r}")


def format_elements(spec: OpSpec, text: str) -> tuple[Element, ...]:
    """The elements of an assembly format (`stream.ir.format_parse.compile_format` makes the
    `Format` of them)."""
    toks = _FormatTokens(text)
    return tuple(_compile_seq(spec, toks, top=True))


def _var_kind(spec: OpSpec, name: str) -> str:
    if name in spec._operand_index:
        return "operand"
    if name in spec._result_index:
        return "result"
    if name in spec._attr_index:
        return "attr"
    if any(r.name == name for r in spec.regions):
        return "region"
    raise ValueError(f"{spec.name}: assembly format names unknown '${name}'")


def _compile_seq(spec: OpSpec, toks: _FormatTokens, top: bool = False) -> list[Element]:
    out: list[Element] = []
    while True:
        tok = toks.peek()
        if tok is None or (tok == ("p", ")") and not top):
            return out
        kind, text = toks.next()
        element: Element
        if kind == "lit":
            element = Lit(text)
        elif kind == "var":
            element = Var(text, _var_kind(spec, text))
        elif kind == "kw" and text in ("attr-dict", "attr-dict-with-keyword"):
            element = AttrDict(text == "attr-dict-with-keyword")
        elif kind == "kw" and text == "regions":
            element = Regions()
        elif kind == "kw" and text == "type":
            toks.expect("p", "(")
            k, name = toks.next()
            toks.expect("p", ")")
            element = TypeOf(name if k == "var" else name)
        elif kind == "kw" and text == "custom":
            toks.expect("p", "<")
            _, name = toks.next()
            toks.expect("p", ">")
            element = Custom(name, tuple(_compile_args(spec, toks)))
        elif (kind, text) == ("p", "("):
            then = _compile_seq(spec, toks)
            toks.expect("p", ")")
            otherwise: list[Element] = []
            if toks.peek() == ("p", ":"):
                toks.next()
                toks.expect("p", "(")
                otherwise = _compile_seq(spec, toks)
                toks.expect("p", ")")
            toks.expect("p", "?")
            element = Group(tuple(then), tuple(otherwise))
        else:
            raise ValueError(f"{spec.name}: unexpected {text!r} in assembly format")
        if toks.peek() == ("p", "^"):
            toks.next()
            if isinstance(element, Var):
                element = Var(element.name, element.kind, anchor=True)
            elif isinstance(element, TypeOf):
                element = TypeOf(element.target, anchor=True)
        out.append(element)


def _compile_args(spec: OpSpec, toks: _FormatTokens) -> list[Arg]:
    toks.expect("p", "(")
    args: list[Arg] = []
    while toks.peek() != ("p", ")"):
        args.append(_compile_arg(spec, toks))
        if toks.peek() == ("p", ","):
            toks.next()
    toks.next()
    return args


def _compile_arg(spec: OpSpec, toks: _FormatTokens, ref: bool = False) -> Arg:
    kind, text = toks.next()
    if kind == "var":
        _var_kind(spec, text)
        return Arg(text, False, ref)
    if kind == "kw" and text == "type":
        toks.expect("p", "(")
        _, name = toks.next()
        toks.expect("p", ")")
        return Arg(name, True, ref)
    if kind == "kw" and text == "ref":
        toks.expect("p", "(")
        inner = _compile_arg(spec, toks, ref=True)
        toks.expect("p", ")")
        return inner
    if kind == "kw" and text == "attr-dict":
        return Arg("attr-dict")
    raise ValueError(f"{spec.name}: bad custom directive argument {text!r}")


# -- parsing -------------------------------------------------------------------------------------
@dataclass(slots=True)
class ParseContext:
    """What the elements of a format have read so far, by variable name."""

    spec: OpSpec
    parser: Parser
    state: OpState
    operands: dict[str, list[UnresolvedOperand]] = field(default_factory=dict)
    resolved: dict[str, list[Value]] = field(default_factory=dict)
    types: dict[str, list[Type]] = field(default_factory=dict)
    attrs: dict[str, Attribute] = field(default_factory=dict)
    regions: dict[str, Region] = field(default_factory=dict)
    attr_dict: dict[str, Attribute] = field(default_factory=dict)

    def arity(self, name: str) -> str:
        spec = self.spec
        if name in spec._operand_index:
            return spec.operands[spec._operand_index[name]].arity
        if name in spec._result_index:
            return spec.results[spec._result_index[name]].arity
        return "single"

    def resolve_now(self, name: str, uses: list[UnresolvedOperand], types: list[Type]) -> list[Value]:
        """Resolve an operand group at once (directives whose types sit right after the uses)."""
        values = self.parser.resolve_all(uses, types)
        self.resolved[name] = values
        self.types[name] = list(types)
        return values


class Format:
    __slots__ = ("spec", "elements", "_printed", "_steps", "_finish")

    def __init__(self, spec: OpSpec, elements: tuple[Element, ...], steps: tuple[Callable[[ParseContext], None], ...],
                 finish: Callable[[ParseContext], None]) -> None:
        """`steps` and `finish` read the op (the parse half, `stream.ir.format_parse`, compiles
        them: it imports this module's elements, so this one does not import it)."""
        self.spec = spec
        self.elements = elements
        self._printed = frozenset(_mentioned_attrs(elements)) | {"operandSegmentSizes", "resultSegmentSizes"}
        self._steps = steps
        self._finish = finish

    # -- parse -------------------------------------------------------------------------------
    def parse(self, parser: Parser, state: OpState) -> None:
        ctx = ParseContext(self.spec, parser, state)
        for step in self._steps:
            step(ctx)
        self._finish(ctx)

    # -- print -------------------------------------------------------------------------------
    def print(self, printer: Printer, op: Op) -> None:
        st = _PrintState()
        _print_seq(printer, op, self.spec, self.elements, st, self._printed)


def _mentioned_attrs(elements: tuple[Element, ...]) -> list[str]:
    names: list[str] = []
    for e in elements:
        if isinstance(e, Var) and e.kind == "attr":
            names.append(e.name)
        elif isinstance(e, Custom):
            names.extend(a.name for a in e.args if not a.is_type)
        elif isinstance(e, Group):
            names.extend(_mentioned_attrs(e.then))
            names.extend(_mentioned_attrs(e.otherwise))
    return names


# -- printing ------------------------------------------------------------------------------------
@dataclass(slots=True)
class _PrintState:
    should_space: bool = True
    last_punct: bool = False


def _space_before(value: str, last_punct: bool) -> bool:
    if len(value) != 1 and value != "->":
        return True
    if last_punct:
        return value[0] not in ">)}],"
    return value[0] not in "<>(){}[],"


def _print_lit(printer: Printer | None, text: str, st: _PrintState) -> None:
    """A literal; with `printer=None` only the spacing state advances (see `_print_seq`)."""
    if text == "":
        st.last_punct = True
        st.should_space = False
        return
    if text == " ":
        if printer is not None:
            printer.write(" ")
        st.last_punct = False
        st.should_space = False
        return
    if text == "\\n":
        if printer is not None:
            printer.newline()
        st.last_punct = True
        st.should_space = False
        return
    if printer is not None:
        if st.should_space and _space_before(text, st.last_punct):
            printer.write(" ")
        printer.write(text)
    st.should_space = len(text) != 1 or text[0] not in "<({["
    st.last_punct = text[0] != "_" and not text[0].isalpha()


def _element_space(printer: Printer | None, st: _PrintState) -> None:
    if printer is not None and (st.should_space or not st.last_punct):
        printer.write(" ")
    st.last_punct = False
    st.should_space = True


def _present(op: Op, spec: OpSpec, e: Element) -> bool:
    if isinstance(e, Var):
        if e.kind == "operand":
            return bool(spec.operand_group(op, e.name))
        if e.kind == "result":
            return bool(spec.result_group(op, e.name))
        if e.kind == "attr":
            # A default-valued attribute anchors a group only when it differs from its default.
            value = op.properties.get(e.name)
            return value is not None and not _is_default(spec, e.name, value)
        if e.kind == "region":
            index = next(i for i, r in enumerate(spec.regions) if r.name == e.name)
            return index < len(op.regions) and bool(op.regions[index].blocks)
    if isinstance(e, TypeOf):
        if e.target in spec._operand_index:
            return bool(spec.operand_group(op, e.target))
        return bool(spec.result_group(op, e.target))
    return True


def _anchor(elements: tuple[Element, ...]) -> Element:
    for e in elements:
        if isinstance(e, (Var, TypeOf)) and e.anchor:
            return e
    for e in elements:
        if isinstance(e, (Var, TypeOf)):
            return e
    return elements[0]


def _print_seq(
    printer: Printer | None, op: Op, spec: OpSpec, elements: tuple[Element, ...], st: _PrintState, printed: frozenset[str]
) -> None:
    """Print `elements`, or with `printer=None` only advance the spacing state.

    MLIR's generated printers decide spacing from a state threaded through the format at
    *generation* time: an optional group's elements advance it whether or not the group is
    printed, and an `else` branch continues from the state the `then` branch left. Emulating
    that (dry runs of the branch not taken) is what reproduces IREE's spacing exactly.
    """
    for e in elements:
        if isinstance(e, Lit):
            _print_lit(printer, e.text, st)
        elif isinstance(e, Group):
            anchor = _anchor(e.then)
            present = printer is not None and _present(op, spec, anchor)
            elide = isinstance(anchor, Var) and anchor.kind == "attr" and anchor is not e.then[0] and _is_unit(spec, anchor.name)
            body = tuple(x for x in e.then if not (elide and x is anchor))
            _print_seq(printer if present else None, op, spec, body, st, printed)
            _print_seq(printer if (printer is not None and not present) else None, op, spec, e.otherwise, st, printed)
        elif isinstance(e, AttrDict):
            if printer is not None:
                extra = {k: v for k, v in op.properties.items() if k not in printed and not _is_default(spec, k, v)}
                extra.update(op.attributes)
                printer.attr_dict(extra, keyword=e.keyword)
            st.last_punct = False
        else:
            _element_space(printer, st)
            if printer is None:
                continue
            if isinstance(e, Var):
                _print_var(printer, op, spec, e)
            elif isinstance(e, TypeOf):
                group = spec.operand_group(op, e.target) if e.target in spec._operand_index else spec.result_group(op, e.target)
                printer.write(printer.types(v.type for v in group))
            elif isinstance(e, Regions):
                for i in range(len(op.regions)):
                    if i:
                        printer.write(", ")
                    print_region_of(printer, op, spec, i)
            elif isinstance(e, Custom):
                _, print_fn = DIRECTIVES[e.name]
                print_fn(printer, op, spec, e.args)


def _is_default(spec: OpSpec, name: str, value: Attribute) -> bool:
    attr = spec._attr_index.get(name)
    return attr is not None and attr.default is not None and attr.default == value


def _is_unit(spec: OpSpec, name: str) -> bool:
    return spec._attr_index[name].style == "unit"


def print_region_of(
    printer: Printer, op: Op, spec: OpSpec, index: int, print_entry_args: bool = True, print_terminators: bool = False
) -> None:
    """Print region `index`; an implicit trivial terminator is left out unless `print_terminators`
    (IREE's custom printers that call printRegion with printBlockTerminators=true)."""
    specs = spec.regions  # a trailing variadic spec covers every region from its own on
    rspec = specs[index] if index < len(specs) else (specs[-1] if specs and specs[-1].variadic else None)
    region = op.regions[index]
    implicit = not print_terminators and rspec is not None and rspec.terminator is not None
    elide = implicit and _is_trivial_terminator(region, rspec.terminator)  # type: ignore[union-attr]
    printer.print_region(region, op, print_entry_args=print_entry_args, print_terminator=not elide)


def _is_trivial_terminator(region: Region, name: str | None) -> bool:
    if len(region.blocks) != 1 or not region.blocks[0].ops:
        return False
    last = region.blocks[0].ops[-1]
    return (
        last.name == name
        and not last.operands
        and not last.attributes
        and not last.properties
        and not last.results
        and not last.regions
        and last.loc is None  # an explicit `loc(...)` must be printed to survive
    )


def _print_var(printer: Printer, op: Op, spec: OpSpec, e: Var) -> None:
    if e.kind == "operand":
        printer.write(printer.values(spec.operand_group(op, e.name)))
    elif e.kind == "attr":
        attr = op.properties.get(e.name)
        assert attr is not None
        printer.write(format_attr_styled(printer, attr, spec._attr_index[e.name]))
    elif e.kind == "region":
        index = next(i for i, r in enumerate(spec.regions) if r.name == e.name)
        print_region_of(printer, op, spec, index)
    else:
        printer.write(printer.values(spec.result_group(op, e.name)))


def format_attr_styled(printer: Printer, attr: Attribute, spec: Attr) -> str:
    style = spec.style
    if style == "symbol_name" and isinstance(attr, StringAttr):
        return format_symbol(attr.value)
    if style == "int" and isinstance(attr, IntegerAttr):
        return str(attr.value)
    if style == "type" and isinstance(attr, TypeAttr):
        return printer.type(attr.type)
    if style == "symbol" and isinstance(attr, SymbolRefAttr):
        return str(attr)
    if style == "enum" and isinstance(attr, OpaqueAttr) and attr.text.startswith(spec.enum_prefix + "<"):
        return attr.text[len(spec.enum_prefix) :]
    return printer.attr(attr)

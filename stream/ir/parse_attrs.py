"""Parsing of types and attributes (the part of the MLIR grammar with no SSA values).

`AttrParser` is a mixin of the full `Parser`: it only needs the lexer and the alias table.
Unknown dialect types and attributes (`!hal.buffer_view`, `#hal.executable.target<...>`,
`affine_map<...>`) are taken as opaque text by bracket balancing, so any valid MLIR reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from stream.ir.attributes import (
    AffinityAttr,
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseArrayAttr,
    DenseAttr,
    DictAttr,
    FloatAttr,
    ImmediateTimepointAttr,
    IntegerAttr,
    OpaqueAttr,
    OptimalAttr,
    PromiseAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
    float_from_bits,
    format_float,
    round_to_type,
)
from stream.ir.diagnostics import DiagnosticError
from stream.ir.lexer import Lexer, Token
from stream.ir.types import (
    F64,
    FLOAT_NAMES,
    I1,
    I64,
    INDEX,
    TIMEPOINT,
    ComplexType,
    FloatType,
    FunctionType,
    IntegerType,
    Lifetime,
    NoneType,
    OpaqueType,
    ResourceType,
    TensorType,
    Type,
)

__all__ = ["AttrParser", "MAX_NESTING", "unescape", "int_literal", "symbol_text", "normalize_dense"]

# How deep regions may nest, and (separately) attribute brackets (`[...]`, a dictionary inside an
# attribute) and structured types (tensor types, function types). Everything downstream of the
# parser (printer, structural verifier, passes, equality, the executor) walks nesting recursively;
# the limits bound that recursion, and `stream.ir.depth` gives the interpreter the headroom it
# needs. IREE's programs nest a few levels deep; a deeper input is refused with a diagnostic naming
# the limit (exit 2), never a RecursionError. An op's own attribute dictionaries and function type
# do not count (so its pretty and generic forms nest alike); opaque bodies (`#hal...<...>`) are
# scanned iteratively and do not count either.
MAX_NESTING = 256

_INT_TYPE = re.compile(r"(s|u)?i([1-9]\d*)\Z")
_DIMS = re.compile(r"(?:\*x|(?:(?:\d+|\?)x)*)")
_OPAQUE_BUILTIN_TYPES = frozenset({"vector", "memref", "tuple"})
_OPAQUE_BUILTIN_ATTRS = frozenset(
    {"affine_map", "affine_set", "dense_resource", "sparse", "strided", "distinct", "opaque", "loc"}
)
_LIFETIMES = {lt.value: lt for lt in Lifetime}
# `<lifetime>` right after `!stream.resource` in one match (its usual spelling: types are a sixth
# of a cmd-level module's tokens); any other spelling takes the token path and its diagnostics.
# Types are immutable values, so every read of one lifetime shares one object.
_LIFETIME_SUFFIX = re.compile(r"<(\*|\w+)>")
_RESOURCE_TYPES = {text: ResourceType(lt) for text, lt in _LIFETIMES.items()}
# An integer `array<i32: 0, 2, 1>` as MLIR prints it (every segment-size property of the generic
# form), in one match; other spellings take the token path.
_INT_ARRAY = re.compile(r"<(?:(index)|(s|u)?i([1-9]\d*))(?:: (-?\d+(?:, -?\d+)*))?>")

# The generic form spells the same function type and the same property values on thousands of
# lines. Types and attributes are immutable values, so the text of a simple one (no string, no
# nested bracket) is parsed once per module and looked up after that. What follows the text is
# fixed by the pattern (a line break or `loc(` after a function type; `,` or `}` after an
# attribute value), and a value is only remembered when parsing it consumed exactly that text
# and peeked no further: the same text then always parses to the same value.
_SIMPLE_FUNCTION_TYPE = re.compile(r'[ \t]*(\([^()"\n]*\)[ \t]*->[ \t]*(?:\([^()"\n]*\)|[^\s(),{}"]+))(?=[ \t]*(?:\n|loc\(|\Z))')
_SIMPLE_ENTRY_VALUE = re.compile(r'[ \t]*((?:[^,{}\[\]<>"\s]|[ \t]+(?=[^,}\s])|\[[^\[\]{}"]*\]|<[^<>{}"]*>)+)(?=[ \t]*[,}])')


def int_literal(text: str) -> int:
    """An MLIR integer literal: decimal (leading zeros allowed) or `0x` hex."""
    return int(text, 16) if text.startswith(("0x", "0X")) else int(text, 10)


_ESCAPE = re.compile(rb'\\(?:([nt"\\])|([0-9a-fA-F]{2}))')
_SIMPLE_ESCAPES = {b"n": b"\n", b"t": b"\t", b'"': b'"', b"\\": b"\\"}


def unescape(literal: str) -> str:
    """Decode an MLIR string literal token (with its quotes). `\\XX` escapes are bytes, so the
    body is decoded as UTF-8 after they are replaced. Linear, with a small constant: the output
    grows in one bytearray (no list of pieces, which costs ~100 bytes per escape)."""
    body = literal[1:-1]
    if "\\" not in body:
        return body
    data = body.encode("utf-8")
    out = bytearray()
    last = 0
    for m in _ESCAPE.finditer(data):
        out += data[last : m.start()]
        simple = m.group(1)
        if simple is not None:
            out += _SIMPLE_ESCAPES[simple]
        else:
            out.append(int(m.group(2), 16))
        last = m.end()
    out += data[last:]
    return out.decode("utf-8", errors="replace")


class AttrParser:
    """Types and attributes. Subclasses provide `lexer` and `aliases`."""

    lexer: Lexer
    attr_aliases: dict[str, Attribute]
    type_aliases: dict[str, Type]
    _type_memo: dict[str, object]
    _attr_memo: dict[str, object]
    # Attribute brackets and structured types open at the current position.
    _nesting: int = 0

    def _deeper(self, tok: Token | None = None) -> None:
        """Enter one attribute or type nesting level (the caller leaves it with
        `self._nesting -= 1`; after an error the parse is abandoned, or the catcher restores
        the count)."""
        self._nesting += 1
        if self._nesting > MAX_NESTING:
            raise self.error(
                f"attributes and types nested deeper than {MAX_NESTING} levels "
                f"(streamproof's limit, MAX_NESTING = {MAX_NESTING})",
                tok,
            )

    # -- small helpers shared with the op parser ------------------------------------------
    def error(self, message: str, tok: Token | None = None) -> DiagnosticError:
        tok = tok or self.lexer.peek()
        if tok.kind == "eof":
            message += " (reached the end of the input: is a closing bracket missing?)"
        return self.lexer.error_at(tok.pos, message)

    def expect(self, text: str, what: str = "") -> None:
        if not self.lexer.take("punct", text):
            tok = self.lexer.next()
            found = "end of input" if tok.kind == "eof" else f"'{tok.text}'"
            raise self.error(f"expected '{text}'{' ' + what if what else ''}, found {found}", tok)

    def accept(self, text: str) -> bool:
        return self.lexer.take("punct", text)

    def accept_keyword(self, word: str) -> bool:
        return self.lexer.take("bare", word)

    def expect_keyword(self, word: str) -> None:
        if not self.lexer.take("bare", word):
            tok = self.lexer.next()
            raise self.error(f"expected '{word}', found '{tok.text or 'end of input'}'", tok)

    def _adjacent(self, ch: str) -> bool:
        """Is `ch` the very next character (no blank in between)?"""
        return self.lexer.pos < len(self.lexer.text) and self.lexer.text[self.lexer.pos] == ch and self.lexer._peeked is None

    def _raw_balanced(self, start: int) -> str:
        """Consume `<...>`, `(...)` or `[...]` starting exactly at `start`; return its text."""
        pairs = {"<": ">", "(": ")", "[": "]", "{": "}"}
        end = self.lexer.scan_balanced(start, self.lexer.text[start], pairs[self.lexer.text[start]])
        self.lexer.reset(end)
        return self.lexer.text[start:end]

    # -- memoized spellings -------------------------------------------------------------------
    def _memoized(self, pattern: re.Pattern[str], cache: dict[str, object], parse: Callable[[], object]) -> object:
        """`parse()`, or the value the same text gave before. Remembered only when `parse()`
        consumed exactly the text `pattern` matched, with no token peeked beyond it."""
        lexer = self.lexer
        if lexer._peeked is not None:
            lexer.reset(lexer._peeked.pos)  # un-peek, so that the text itself can be matched
        m = pattern.match(lexer.text, lexer.pos)
        if m is None:
            return parse()
        key = m.group(1)
        if (hit := cache.get(key)) is not None:
            lexer.pos = m.end()
            return hit
        value = parse()
        if lexer._peeked is None and lexer.pos == m.end():
            cache[key] = value
        return value

    def parse_function_type(self) -> Type:
        """`(inputs) -> results` (or any type: the caller checks), memoized by its text. An op's
        own function type is not a nesting level (its types nest as deep as in pretty form)."""
        self._nesting -= 1
        ftype = self._memoized(_SIMPLE_FUNCTION_TYPE, self._type_memo, self.parse_type)
        self._nesting += 1
        return ftype  # type: ignore[return-value]

    # -- types -------------------------------------------------------------------------------
    def parse_type(self) -> Type:
        tok = self.lexer.next()
        if tok.kind == "bang":
            return self._parse_bang_type(tok)
        if tok.kind == "bare":
            return self._parse_builtin_type(tok)
        if tok.kind == "punct" and tok.text == "(":
            return self._parse_function_type_rest()
        raise self.error(f"expected a type, found '{tok.text or 'end of input'}'", tok)

    def parse_type_list_parens(self) -> list[Type]:
        """`(t1, t2)` or `()`."""
        self.expect("(")
        types: list[Type] = []
        if not self.accept(")"):
            types.append(self.parse_type())
            while self.accept(","):
                types.append(self.parse_type())
            self.expect(")")
        return types

    def parse_function_result_types(self) -> list[Type]:
        """After `->`: a single type, or a parenthesized list."""
        tok = self.lexer.peek()
        if tok.is_punct("("):
            return self.parse_type_list_parens()
        return [self.parse_type()]

    def _parse_function_type_rest(self) -> FunctionType:
        self._deeper()
        inputs: list[Type] = []
        if not self.accept(")"):
            inputs.append(self.parse_type())
            while self.accept(","):
                inputs.append(self.parse_type())
            self.expect(")")
        self.expect("->", "in function type")
        result = FunctionType(tuple(inputs), tuple(self.parse_function_result_types()))
        self._nesting -= 1
        return result

    def _parse_bang_type(self, tok: Token) -> Type:
        name = tok.text[1:]
        if name == "stream.resource":
            lexer = self.lexer
            if lexer._peeked is None:
                m = _LIFETIME_SUFFIX.match(lexer.text, lexer.pos)
                if m is not None and m.group(1) in _RESOURCE_TYPES:
                    lexer.pos = m.end()
                    return _RESOURCE_TYPES[m.group(1)]
            if not self._adjacent("<"):
                raise self.error("expected '<lifetime>' after !stream.resource")
            self.expect("<")
            lt_tok = self.lexer.next()
            text = lt_tok.text
            if text not in _LIFETIMES:
                raise self.error(
                    f"unknown resource lifetime '{text}' (expected one of: "
                    + ", ".join(_LIFETIMES)
                    + ")",
                    lt_tok,
                )
            self.expect(">")
            return ResourceType(_LIFETIMES[text])
        if name == "stream.timepoint":
            return TIMEPOINT
        if "." not in name and not self._adjacent("<"):
            if name in self.type_aliases:
                return self.type_aliases[name]
            raise self.error(f"undefined type alias '!{name}'", tok)
        text = tok.text
        if self._adjacent("<"):
            text += self._raw_balanced(self.lexer.pos)
        return OpaqueType(text)

    def _parse_builtin_type(self, tok: Token) -> Type:
        word = tok.text
        if word == "index":
            return INDEX
        if word == "none":
            return NoneType()
        if word in FLOAT_NAMES:
            return FloatType(word)
        m = _INT_TYPE.match(word)
        if m:
            return IntegerType(int(m.group(2)), m.group(1) or "")
        if word == "tensor":
            return self._parse_tensor_type()
        if word == "complex" and self._adjacent("<"):
            return self._parse_complex_type()
        if word in _OPAQUE_BUILTIN_TYPES and self._adjacent("<"):
            return OpaqueType(word + self._raw_balanced(self.lexer.pos))
        raise self.error(f"unknown type '{word}'", tok)

    def _parse_complex_type(self) -> ComplexType:
        self._deeper()
        self.expect("<")
        tok = self.lexer.peek()
        part = self.parse_type()
        if not isinstance(part, (FloatType, IntegerType)):  # MLIR: integer or floating-point parts only
            raise self.error(f"invalid element type for complex: {part} (expected an integer or a float type)", tok)
        self.expect(">", "to close complex type")
        self._nesting -= 1
        return ComplexType(part)

    def _parse_tensor_type(self) -> TensorType:
        if not self._adjacent("<"):
            raise self.error("expected '<' after 'tensor'")
        self._deeper()
        self.expect("<")
        m = _DIMS.match(self.lexer.text, self.lexer.pos)
        assert m is not None
        dims_text = m.group()
        self.lexer.reset(m.end())
        shape: tuple[int | None, ...] | None
        if dims_text == "*x":
            shape = None
        else:
            shape = tuple(None if d == "?" else int(d) for d in dims_text.split("x")[:-1])
        element_tok = self.lexer.peek()
        element = self.parse_type()
        if isinstance(element, (NoneType, TensorType, FunctionType)):  # as MLIR's TensorType::isValidElementType
            raise self.error(f"invalid tensor element type: {element}", element_tok)
        encoding = self.parse_attribute() if self.accept(",") else None
        self.expect(">", "to close tensor type")
        self._nesting -= 1
        return TensorType(shape, element, encoding)

    # -- attributes ----------------------------------------------------------------------------
    def parse_attribute(self, typed_opaque: bool = False) -> Attribute:
        """One attribute. With `typed_opaque`, a dialect attribute may carry `: type` (as in an
        alias definition `#x = #hal.device.target<...> : !hal.device`)."""
        lex = self.lexer
        tok = lex.peek()
        kind = tok.kind
        if kind in ("int", "hexint", "float") or tok.is_punct("-"):
            return self._parse_number_attr()
        if kind == "string":
            lex.next()
            return StringAttr(unescape(tok.text))
        if kind == "at":
            return self.parse_symbol_ref()
        if tok.is_punct("["):
            self._deeper(tok)
            lex.next()
            elems: list[Attribute] = []
            if not self.accept("]"):
                elems.append(self.parse_attribute(typed_opaque=True))
                while self.accept(","):
                    elems.append(self.parse_attribute(typed_opaque=True))
                self.expect("]", "to close array attribute")
            self._nesting -= 1
            return ArrayAttr(tuple(elems))
        if tok.is_punct("{"):
            self._deeper(tok)
            entries = self.parse_attr_dict_body()
            self._nesting -= 1
            return DictAttr.of(entries)
        if kind == "hash":
            return self._parse_hash_attr(typed_opaque)
        if kind == "bare":
            word = tok.text
            if word in ("true", "false"):
                lex.next()
                return BoolAttr(word == "true")
            if word == "unit":
                lex.next()
                return UnitAttr()
            if word == "dense":
                return self._parse_dense()
            if word == "array":
                return self._parse_dense_array()
            if word in _OPAQUE_BUILTIN_ATTRS:
                lex.next()
                if not self._adjacent("<") and not self._adjacent("(") and not self._adjacent("["):
                    raise self.error(f"expected '<' after '{word}'")
                text = word + self._raw_balanced(lex.pos)
                while self._adjacent("<") or self._adjacent("("):  # distinct[0]<...>
                    text += self._raw_balanced(lex.pos)
                return OpaqueAttr(text)
            return TypeAttr(self.parse_type())
        if kind == "bang" or tok.is_punct("("):
            return TypeAttr(self.parse_type())
        raise self.error(f"expected an attribute, found '{tok.text or 'end of input'}'", tok)

    def parse_symbol_ref(self) -> SymbolRefAttr:
        tok = self.lexer.next()
        if tok.kind != "at":
            raise self.error(f"expected a symbol reference (@name), found '{tok.text}'", tok)
        parts = [symbol_text(tok.text)]
        while self.lexer.peek().is_punct("::"):
            self.lexer.next()
            nxt = self.lexer.next()
            if nxt.kind != "at":
                raise self.error("expected '@name' after '::'", nxt)
            parts.append(symbol_text(nxt.text))
        return SymbolRefAttr(parts[0], tuple(parts[1:]))

    def _parse_entry_value(self) -> Attribute:
        return self._memoized(_SIMPLE_ENTRY_VALUE, self._attr_memo, lambda: self.parse_attribute(typed_opaque=True))  # type: ignore[return-value]

    def parse_attr_dict_body(self) -> dict[str, Attribute]:
        """`{name = attr, unit_name, "quoted" = attr}` (the opening brace is next)."""
        self.expect("{")
        entries: dict[str, Attribute] = {}
        if self.accept("}"):
            return entries
        while True:
            tok = self.lexer.next()
            if tok.kind == "bare":
                key = tok.text
            elif tok.kind == "string":
                key = unescape(tok.text)
            else:
                raise self.error(f"expected an attribute name, found '{tok.text or 'end of input'}'", tok)
            if key in entries:
                raise self.error(f"duplicate attribute '{key}'", tok)
            entries[key] = self._parse_entry_value() if self.accept("=") else UnitAttr()
            if self.accept("}"):
                return entries
            self.expect(",", "or '}' in attribute dictionary")

    def _parse_number_attr(self) -> Attribute:
        lex = self.lexer
        neg = self.accept("-")
        tok = lex.next()
        if tok.kind not in ("int", "hexint", "float"):
            raise self.error(f"expected a number, found '{tok.text}'", tok)
        type_: Type | None = self.parse_type() if self.accept(":") else None
        if tok.kind == "float" or isinstance(type_, FloatType):
            ftype = type_ if isinstance(type_, FloatType) else F64
            if tok.kind == "hexint":
                value = float_from_bits(int(tok.text, 16), ftype)
            else:
                value = round_to_type(float(tok.text), ftype)
            return FloatAttr(-value if neg else value, ftype)
        ivalue = int_literal(tok.text)
        ivalue = -ivalue if neg else ivalue
        itype = type_ or I64
        if itype == I1:
            return BoolAttr(bool(ivalue))
        return IntegerAttr(ivalue, itype)

    def _parse_hash_attr(self, typed_opaque: bool) -> Attribute:
        tok = self.lexer.next()
        name = tok.text[1:]
        if name == "hal.device.affinity" or name == "hal.device.promise":
            self.expect("<")
            device = self.parse_symbol_ref().root
            queues = None
            if self.accept(","):
                arr = self.parse_attribute()
                if not isinstance(arr, ArrayAttr) or not all(isinstance(e, IntegerAttr) for e in arr):
                    raise self.error("expected a queue list like [0, 1]")
                queues = tuple(e.value for e in arr.elements)  # type: ignore[attr-defined]
            self.expect(">")
            cls = AffinityAttr if name == "hal.device.affinity" else PromiseAttr
            return cls(device, queues)
        if name == "hal.device.optimal":
            self.expect("<")
            arr = self.parse_attribute()
            self.expect(">")
            if not isinstance(arr, ArrayAttr):
                raise self.error("expected a list of affinities in #hal.device.optimal<[...]>")
            return OptimalAttr(arr.elements)
        if name == "stream.timepoint" and self._adjacent("<"):
            start = self.lexer.pos
            body = self._raw_balanced(start)
            if body == "<immediate>":
                # In a dictionary MLIR spells the typed attribute with its type (a global's
                # `initial_value = #stream.timepoint<immediate> : !stream.timepoint`).
                if typed_opaque and self.lexer.peek().is_punct(":"):
                    colon = self.lexer.next()
                    spelled = self.parse_type()
                    if spelled != TIMEPOINT:
                        raise self.error(f"#stream.timepoint<immediate> has type !stream.timepoint, not {spelled}", colon)
                return ImmediateTimepointAttr()
            return OpaqueAttr(tok.text + body)
        if "." not in name and not self._adjacent("<"):
            if name in self.attr_aliases:
                return self.attr_aliases[name]
            raise self.error(f"undefined attribute alias '#{name}'", tok)
        text = tok.text
        if self._adjacent("<"):
            text += self._raw_balanced(self.lexer.pos)
        if typed_opaque and self.lexer.peek().is_punct(":"):
            self.lexer.next()
            text += f" : {self.parse_type()}"
        return OpaqueAttr(text)

    def _parse_dense(self) -> DenseAttr:
        self.lexer.next()
        if not self._adjacent("<"):
            raise self.error("expected '<' after 'dense'")
        start = self.lexer.pos
        raw = self._raw_balanced(start)[1:-1]
        self.expect(":", "and the type of the dense constant")
        type_ = self.parse_type()
        return DenseAttr(normalize_dense(raw, type_), type_)

    def _parse_dense_array(self) -> DenseArrayAttr:
        lexer = self.lexer
        lexer.next()
        if lexer._peeked is None:
            m = _INT_ARRAY.match(lexer.text, lexer.pos)
            if m is not None:
                lexer.pos = m.end()
                index, sign, width, body = m.groups()
                etype: Type = INDEX if index else IntegerType(int(width), sign or "")
                return DenseArrayAttr(etype, tuple(int(v) for v in body.split(", ")) if body else ())
        self.expect("<")
        etype = self.parse_type()
        values: list[int | float] = []
        if self.accept(":"):
            while True:
                attr = self._parse_number_attr() if not self.lexer.peek().kind == "bare" else self.parse_attribute()
                if isinstance(attr, IntegerAttr):
                    values.append(attr.value)
                elif isinstance(attr, FloatAttr):
                    values.append(attr.value)
                elif isinstance(attr, BoolAttr):
                    values.append(int(attr.value))
                else:
                    raise self.error("expected a number in array<...>")
                if not self.accept(","):
                    break
        self.expect(">", "to close array<...>")
        if isinstance(etype, FloatType):
            values = [float(v) for v in values]
        return DenseArrayAttr(etype, tuple(values))


def symbol_text(tok_text: str) -> str:
    body = tok_text[1:]
    return unescape(body) if body.startswith('"') else body


_DENSE_TOKEN = re.compile(r"\s*(?:(-?\d+\.\d*(?:[eE][+\-]?\d+)?|-?\d+(?:[eE][+\-]?\d+)?)|(true|false)|([\[\](),]))")


def normalize_dense(raw: str, type_: Type) -> str:
    """Re-spell the numbers of a dense literal as MLIR prints them; other bodies (hex blobs,
    strings) are kept with blanks collapsed; complex elements are `(re,im)` pairs of the part type."""
    element = type_.element if isinstance(type_, TensorType) else None
    if isinstance(element, ComplexType):  # `(re,im)` pairs, as MLIR prints them: the parts' numbers, no blank inside
        element, pair = element.element, True
    else:
        pair = False
    pos, out, depth = 0, [], 0
    text = raw.strip()
    if not text or text.startswith('"') or element is None:
        return " ".join(text.split())
    while pos < len(text):
        m = _DENSE_TOKEN.match(text, pos)
        if m is None:
            return " ".join(text.split())
        num, boolean, punct = m.groups()
        if num is not None:
            if isinstance(element, FloatType):
                out.append(format_float(round_to_type(float(num), element), element))
            elif isinstance(element, IntegerType) and element.width == 1:
                out.append("true" if int(float(num)) else "false")
            else:
                out.append(str(int(num)) if "." not in num and "e" not in num.lower() else num)
        elif boolean is not None:
            out.append(boolean)
        else:
            depth += {"(": 1, ")": -1}.get(punct, 0)
            out.append(punct + " " if punct == "," and not (pair and depth) else punct)
        pos = m.end()
    return "".join(out)

"""The MLIR text parser: generic form for every op, pretty form for registered ops.

`parse_module(text, filename)` reads one module; `split_input_file` cuts a `--split-input-file`
input at `// -----` lines. SSA names are scoped per region as in MLIR (a region sees the values
of its ancestors up to the nearest isolated-from-above op); a value may be used before its
definition (graph regions, later blocks), and every error is a `DiagnosticError` pointing at the
offending token.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from stream.ir.attributes import Attribute, StringAttr
from stream.ir.core import Alias, Block, Location, Module, Op, Region, Value, freeze
from stream.ir.depth import ensure_recursion_headroom
from stream.ir.diagnostics import DiagnosticError, SourceFile
from stream.ir.gc_pause import paused_gc
from stream.ir.lexer import Lexer, Token
from stream.ir.parse_attrs import MAX_NESTING, AttrParser, unescape
from stream.ir.spec_registry import OpState, lookup, registered_names
from stream.ir.types import FunctionType, Type

__all__ = ["Parser", "parse_module", "parse_attribute_text", "split_input_file", "UnresolvedOperand"]

# At import, so that a harness that watches the limit (Hypothesis resets it after each test) sees
# it raised before it starts; parse_module checks again in case the embedding program lowered it.
ensure_recursion_headroom()

_NUMERIC = re.compile(r"\d+\Z")
_AUTO_ARG = re.compile(r"arg\d+\Z")


def is_auto_name(name: str) -> bool:
    """Names a printer invents (`%12`, `%arg3`) carry no meaning and are not kept as hints."""
    return bool(_NUMERIC.match(name) or _AUTO_ARG.match(name))


class UnknownSyntaxError(DiagnosticError):
    """An op in a custom syntax streamproof does not model (`linalg.generic ...`)."""

    @staticmethod
    def of(error: DiagnosticError) -> UnknownSyntaxError:
        return UnknownSyntaxError(error.diagnostic, error.extra)


# Not frozen (a frozen dataclass is several times slower to build, and the parser makes one per
# use); hashable by value all the same. Treated as immutable.
@dataclass(slots=True, unsafe_hash=True)
class UnresolvedOperand:
    """A `%name` use whose type is not known yet."""

    name: str
    pos: int


@dataclass(slots=True)
class _Frame:
    """Names defined in one region; `isolated` frames stop name lookup."""

    isolated: bool
    values: dict[str, Value] = field(default_factory=dict)
    # Forward references of the isolated segment this frame opens (None on non-isolated frames).
    forward: dict[str, tuple[Value, int]] | None = None
    default_dialect: str | None = None


class Parser(AttrParser):
    def __init__(self, source: SourceFile) -> None:
        self.lexer = Lexer(source)
        self.source = source
        self.attr_aliases: dict[str, Attribute] = {}
        self.type_aliases: dict[str, Type] = {}
        self._type_memo: dict[str, object] = {}
        self._attr_memo: dict[str, object] = {}
        self.aliases: list[Alias] = []
        self._frames: list[_Frame] = [_Frame(isolated=True, forward={}, default_dialect="builtin")]
        self._pending_successors: dict[Op, list[tuple[str, int]]] = {}
        # Region nesting limit, as frames (the bottom frame is the top level). A top-level
        # `module { ... }` does not count: the printer adds one to a module read without it.
        self._max_frames = MAX_NESTING

    # -- locations ------------------------------------------------------------------------------
    def location(self, tok: Token | None = None) -> Location:
        return self.lexer.location((tok or self.lexer.peek()).pos)

    def peek_second(self) -> Token:
        """The token after the next one (the lexer position is left unchanged)."""
        lexer = self.lexer
        saved = (lexer.pos, lexer._peeked)
        lexer.next()
        tok = lexer.peek()
        lexer.pos, lexer._peeked = saved
        return tok

    # -- SSA scopes ------------------------------------------------------------------------------
    def push_scope(self, isolated: bool, default_dialect: str | None = None) -> None:
        parent = self._frames[-1].default_dialect
        frame = _Frame(isolated, forward={} if isolated else None, default_dialect=default_dialect or parent)
        self._frames.append(frame)

    def pop_scope(self) -> None:
        frame = self._frames.pop()
        if frame.forward:
            name, (_, pos) = next(iter(frame.forward.items()))
            raise self.lexer.error_at(pos, f"use of undefined value '%{name}'")

    def _isolated_frame(self) -> _Frame:
        for frame in reversed(self._frames):
            if frame.isolated:
                return frame
        raise AssertionError("no isolated frame")  # the bottom frame is isolated

    def _lookup(self, name: str) -> Value | None:
        for frame in reversed(self._frames):
            value = frame.values.get(name)
            if value is not None:
                return value
            if frame.isolated:
                return None
        return None

    def define(self, name: str, pos: int, type_: Type) -> Value:
        """Define `%name` in the innermost region (reusing a forward reference's value)."""
        frame = self._frames[-1]
        if name in frame.values:
            raise self.lexer.error_at(pos, f"redefinition of SSA value '%{name}'")
        forward = self._isolated_frame().forward
        assert forward is not None
        pending = forward.pop(name, None)
        base, group, index = name.partition("#")
        # Only the first value of a result group carries the group's name.
        hint = None if (group and index != "0") or is_auto_name(base) else base
        if pending is not None:
            value, use_pos = pending
            if value.type != type_:
                raise self.lexer.error_at(
                    use_pos, f"use of '%{name}' as {value.type}, but it is defined as {type_}"
                )
            value.name_hint = hint
        else:
            value = Value(type_, hint)
        frame.values[name] = value
        return value

    def resolve(self, operand: UnresolvedOperand, type_: Type) -> Value:
        value = self._lookup(operand.name)
        if value is None and operand.name.endswith("#0"):
            value = self._lookup(operand.name[:-2])
        if value is None and "#" not in operand.name:
            grouped = self._lookup(operand.name + "#0")
            if grouped is not None:
                raise self.lexer.error_at(
                    operand.pos, f"'%{operand.name}' names several results; use '%{operand.name}#N'"
                )
        if value is None:
            forward = self._isolated_frame().forward
            assert forward is not None
            if operand.name in forward:
                value = forward[operand.name][0]
            else:
                value = Value(type_)
                forward[operand.name] = (value, operand.pos)
        if value.type is not type_ and value.type != type_:
            raise self.lexer.error_at(
                operand.pos, f"'%{operand.name}' has type {value.type}, but is used here as {type_}"
            )
        return value

    # -- value uses --------------------------------------------------------------------------
    def parse_operand(self) -> UnresolvedOperand:
        found = self.lexer.take_kind("percent")
        if found is None:
            tok = self.lexer.next()
            raise self.error(f"expected an SSA value (%name), found '{tok.text or 'end of input'}'", tok)
        return UnresolvedOperand(found[0][1:], found[1])

    def parse_optional_operand(self) -> UnresolvedOperand | None:
        return self.parse_operand() if self.lexer.peek().kind == "percent" else None

    def parse_operand_list(self, close: str | None = None) -> list[UnresolvedOperand]:
        """Comma-separated `%a, %b`; empty when the next token is `close`."""
        if close is not None and self.lexer.peek().is_punct(close):
            return []
        out = [self.parse_operand()]
        while self.accept(","):
            out.append(self.parse_operand())
        return out

    def resolve_all(self, operands: list[UnresolvedOperand], types: list[Type], what: str = "operands") -> list[Value]:
        if len(operands) != len(types):
            pos = operands[0].pos if operands else self.lexer.offset
            raise self.lexer.error_at(pos, f"{len(operands)} {what} given but {len(types)} types")
        return [self.resolve(o, t) for o, t in zip(operands, types)]

    # -- operations --------------------------------------------------------------------------
    def parse_operation(self) -> Op:
        lex = self.lexer
        start = lex.peek()
        groups: list[tuple[str, int, int]] = []
        if start.kind == "percent":
            while True:
                tok = lex.next()
                if tok.kind != "percent" or "#" in tok.text:
                    raise self.error("expected a result name like '%name' or '%name:2'", tok)
                count = 1
                if self.accept(":"):
                    ctok = lex.next()
                    if ctok.kind != "int" or int(ctok.text) < 1:
                        raise self.error("expected a result count after ':'", ctok)
                    count = int(ctok.text)
                groups.append((tok.text[1:], count, tok.pos))
                if not self.accept(","):
                    break
            self.expect("=", "after the result names")
        state = OpState("", lex.location(start.pos))
        name_tok = lex.peek()
        if name_tok.kind == "string":
            self._parse_generic(state)
        elif name_tok.kind == "bare":
            self._parse_pretty(state)
        else:
            raise self.error(f"expected an operation name, found '{name_tok.text or 'end of input'}'", name_tok)
        loc = self.parse_optional_loc()
        total = sum(count for _, count, _ in groups)
        # As in MLIR, results may go unnamed (they cannot be used then); only a wrong count
        # of given names is an error.
        if groups and total != len(state.result_types):
            raise self.lexer.error_at(
                start.pos,
                f"'{state.name}' produces {len(state.result_types)} result(s), but {total} name(s) are given",
            )
        results: list[Value] = [] if groups else [Value(t) for t in state.result_types]
        types = iter(state.result_types)
        for name, count, pos in groups:
            if count == 1:
                results.append(self.define(name, pos, next(types)))
            else:
                results.extend(self.define(f"{name}#{i}", pos, next(types)) for i in range(count))
        op = Op(
            state.name,
            tuple(state.operands),
            tuple(results),
            freeze(state.properties),
            freeze(state.attributes),
            tuple(state.regions),
            (),
            loc,
            state.location,
        )
        if state.successors:
            self._pending_successors[op] = state.successors
        return op

    def parse_optional_loc(self) -> str | None:
        tok = self.lexer.peek()
        if tok.kind == "bare" and tok.text == "loc":
            self.lexer.next()
            if not self._adjacent("("):
                raise self.error("expected '(' after 'loc'")
            return "loc" + self._raw_balanced(self.lexer.pos)
        return None

    def _parse_generic(self, state: OpState) -> None:
        tok = self.lexer.next()
        state.name = unescape(tok.text)
        if not state.name:
            raise self.error("empty operation name", tok)
        spec = lookup(state.name)
        self.expect("(", "to start the operand list")
        uses = self.parse_operand_list(close=")")
        self.expect(")", "to close the operand list")
        if self.accept("["):
            state.successors = self.parse_successor_list()
            self.expect("]")
        if self.lexer.peek().is_punct("<"):
            self.lexer.next()
            state.properties = self.parse_attr_dict_body()
            self.expect(">", "to close the properties '<{...}>'")
        if self.accept("("):
            isolated = bool(spec and spec.isolated)
            dialect = spec.default_dialect if spec else None
            opaque = spec is not None and "opaque_body" in spec.traits
            while True:
                if opaque:
                    terminator = spec.region_terminator(len(state.regions)) if spec is not None else None
                    state.regions.append(self.parse_region_or_verbatim(isolated=isolated, default_dialect=dialect, terminator=terminator))
                else:
                    state.regions.append(self.parse_region(isolated=isolated, default_dialect=dialect))
                if not self.accept(","):
                    break
            self.expect(")", "to close the region list")
        if self.lexer.peek().is_punct("{"):
            state.attributes = self.parse_attr_dict_body()
        self.expect(":", f"and the function type of '{state.name}'")
        type_tok = self.lexer.peek()
        ftype = self.parse_function_type()
        if not isinstance(ftype, FunctionType):
            raise self.error("expected a function type '(operand types) -> result types'", type_tok)
        state.operands = self.resolve_all(uses, list(ftype.inputs))
        state.result_types = list(ftype.results)
        if spec is not None:
            # Inherent attributes written in the discardable dictionary belong to the properties.
            for key in [k for k in state.attributes if k in spec.inherent_attributes]:
                state.properties.setdefault(key, state.attributes.pop(key))

    def _parse_pretty(self, state: OpState) -> None:
        tok = self.lexer.next()
        name = tok.text
        spec = lookup(name)
        if spec is None and "." not in name:
            dialect = self._frames[-1].default_dialect
            if dialect is not None:
                spec = lookup(f"{dialect}.{name}")
            if spec is None:
                spec = lookup(f"builtin.{name}")
        if spec is None or not spec.has_pretty():
            raise self._unknown_op(name, tok, spec is not None)
        state.name = spec.name
        spec.parse_pretty(self, state)

    def _unknown_op(self, name: str, tok: Token, known: bool) -> DiagnosticError:
        hint = "; read IREE output in generic form (iree-compile --mlir-print-op-generic)"
        if known:
            return UnknownSyntaxError.of(self.error(f"'{name}' has no pretty form in streamproof{hint}", tok))
        modelled = registered_names()
        # Inside a function `return` means `func.return`: suggest short names there too.
        dialect = self._frames[-1].default_dialect
        short = {n[len(dialect) + 1 :]: n for n in modelled if dialect and n.startswith(dialect + ".")}
        close = difflib.get_close_matches(name, modelled + list(short), n=1, cutoff=0.8)
        prefix = name.split(".", 1)[0] + "."
        if close and (close[0] in short or any(n.startswith(prefix) for n in modelled)):
            return UnknownSyntaxError.of(self.error(f"unknown operation '{name}'; did you mean '{close[0]}'?", tok))
        return UnknownSyntaxError.of(self.error(f"custom assembly of '{name}' is not known to streamproof{hint}", tok))

    def parse_successor_list(self) -> list[tuple[str, int]]:
        out = []
        while True:
            tok = self.lexer.next()
            if tok.kind != "caret":
                raise self.error("expected a block label like '^bb1'", tok)
            out.append((tok.text, tok.pos))
            if not self.accept(","):
                return out

    # -- regions -----------------------------------------------------------------------------
    def parse_region(
        self,
        entry: list[tuple[UnresolvedOperand, Type]] | None = None,
        *,
        isolated: bool = False,
        default_dialect: str | None = None,
        implicit_terminator: str | None = None,
    ) -> Region:
        """`{ ops }` or `{ ^bb0(...): ops ^bb1: ... }`. `entry` are entry-block arguments
        declared by the op's own syntax (a function signature, `with(...)` captures)."""
        if len(self._frames) > self._max_frames:
            raise self.error(f"regions nested deeper than {MAX_NESTING} levels (streamproof's limit, MAX_NESTING = {MAX_NESTING})")
        self.expect("{", "to start a region")
        self.push_scope(isolated, default_dialect)
        entry_args = [self.define(o.name, o.pos, t) for o, t in (entry or [])]
        blocks: list[Block] = []
        labels: dict[str, int] = {}
        if self.lexer.peek().is_punct("}") and entry is None and implicit_terminator is None:
            self.lexer.next()
            self.pop_scope()
            return Region(())
        args = entry_args
        if self.lexer.peek().kind == "caret":
            label_tok = self.lexer.peek()
            label, args = self._parse_block_label(labels, 0)
            if entry_args:
                raise self.error("the entry block's arguments are declared by the op; it takes no label", label_tok)
        while True:
            ops: list[Op] = []
            lexer = self.lexer
            while True:
                tok = lexer.peek()
                kind = tok.kind
                if (kind == "punct" and tok.text == "}") or kind == "caret":
                    break
                if kind == "eof":
                    raise self.error("expected '}' to close the region")
                ops.append(self.parse_operation())
            if implicit_terminator is not None and (not ops or ops[-1].name != implicit_terminator):
                ops.append(Op(implicit_terminator, location=self.location()))
            blocks.append(Block(tuple(args), tuple(ops)))
            if self.accept("}"):
                break
            _, args = self._parse_block_label(labels, len(blocks))
        self.pop_scope()
        return Region(tuple(self._resolve_successors(blocks, labels)))

    def parse_region_or_verbatim(
        self,
        *,
        isolated: bool,
        default_dialect: str | None,
        implicit_terminator: str | None = None,
        terminator: str | None = None,
    ) -> Region:
        """An opaque body (an executable's): parsed as ops when every op in it has a known
        syntax, else kept as its exact text in a `streamproof.verbatim` op, so that IREE's
        pretty dumps (with `linalg` and friends inside executables) still read.

        `terminator` names the body's terminator (elided in pretty form when it is
        `implicit_terminator`): a verbatim body ends with it as a real op in either form, so
        that pretty and generic reads of one body are equal."""
        start = self.lexer.offset
        depth = len(self._frames)
        nesting = self._nesting
        try:
            return self.parse_region(isolated=isolated, default_dialect=default_dialect, implicit_terminator=implicit_terminator)
        except UnknownSyntaxError:
            # Only syntax streamproof does not model makes a body verbatim; any other error
            # in it (a typo, a truncated file) is reported.
            del self._frames[depth:]
            self._nesting = nesting
            self.lexer.reset(start)
            end = self.lexer.scan_balanced(start, "{", "}")
            self.lexer.reset(end)
            text = _dedent(self.source.text[start + 1 : end - 1])
            terminator = terminator or implicit_terminator
            if terminator is not None:
                lines = text.split("\n")
                if lines and lines[-1].strip() in (terminator, f'"{terminator}"() : () -> ()'):
                    text = "\n".join(lines[:-1]).rstrip("\n")
            location = self.lexer.location(start)
            ops = [Op(VERBATIM, properties=freeze({"text": StringAttr(text)}), location=location)]
            if terminator is not None:
                ops.append(Op(terminator, location=location))
            return Region((Block((), tuple(ops)),))

    def _parse_block_label(self, labels: dict[str, int], index: int) -> tuple[str, list[Value]]:
        tok = self.lexer.next()
        if tok.text in labels:
            raise self.error(f"redefinition of block '{tok.text}'", tok)
        labels[tok.text] = index
        args = self._parse_block_args() if self.lexer.peek().is_punct("(") else []
        self.expect(":", "after the block label")
        return tok.text, args

    def _parse_block_args(self) -> list[Value]:
        self.expect("(")
        args: list[Value] = []
        if self.accept(")"):
            return args
        while True:
            operand = self.parse_operand()
            self.expect(":", "and the argument type")
            value = self.define(operand.name, operand.pos, self.parse_type())
            self.parse_optional_loc()
            args.append(value)
            if not self.accept(","):
                break
        self.expect(")")
        return args

    def _resolve_successors(self, blocks: list[Block], labels: dict[str, int]) -> list[Block]:
        out = []
        for block in blocks:
            pending = self._pending_successors.pop(block.ops[-1], None) if block.ops else None
            if pending:
                indices = []
                for label, pos in pending:
                    if label not in labels:
                        raise self.lexer.error_at(pos, f"reference to an undefined block '{label}'")
                    indices.append(labels[label])
                block = block.replace(ops=block.ops[:-1] + (block.ops[-1].replace(successors=tuple(indices)),))
            for op in block.ops[:-1]:
                if op in self._pending_successors:
                    raise DiagnosticError.at(op.location, f"'{op.name}' has successors but is not the last op of its block", self.source)
            out.append(block)
        return out

    # -- modules -----------------------------------------------------------------------------
    def parse_top_level(self) -> Module:
        ops: list[Op] = []
        first = self.lexer.peek()
        if first.text in ("module", '"builtin.module"'):
            self._max_frames = MAX_NESTING + 1
        while True:
            tok = self.lexer.peek()
            if tok.kind == "eof":
                break
            if tok.kind in ("hash", "bang") and self._is_alias_definition():
                self._parse_alias()
                continue
            ops.append(self.parse_operation())
        frame = self._frames[0]
        if frame.forward:
            name, (_, pos) = next(iter(frame.forward.items()))
            raise self.lexer.error_at(pos, f"use of undefined value '%{name}'")
        aliases = tuple(self.aliases)
        if len(ops) == 1 and ops[0].name == "builtin.module":
            mod = ops[0]
            sym = mod.properties.get("sym_name")
            body = mod.regions[0].blocks[0].ops if mod.regions and mod.regions[0].blocks else ()
            return Module(
                body,
                mod.attributes,
                sym.value if isinstance(sym, StringAttr) else None,
                aliases,
                mod.loc,
                mod.location,
            )
        return Module(tuple(ops), aliases=aliases, location=Location(self.source.name, 1 + self.source.line_offset, 1, self.source))

    def _is_alias_definition(self) -> bool:
        saved = (self.lexer.pos, self.lexer._peeked)
        first = self.lexer.next()
        is_def = "." not in first.text and self.lexer.peek().is_punct("=")
        self.lexer.pos, self.lexer._peeked = saved
        return is_def

    def _parse_alias(self) -> None:
        tok = self.lexer.next()
        name = tok.text[1:]
        self.expect("=")
        if tok.kind == "hash":
            if name in self.attr_aliases:
                raise self.error(f"redefinition of attribute alias '#{name}'", tok)
            attr = self.parse_attribute(typed_opaque=True)
            self.attr_aliases[name] = attr
            self.aliases.append(Alias(name, attr))
        else:
            if name in self.type_aliases:
                raise self.error(f"redefinition of type alias '!{name}'", tok)
            type_ = self.parse_type()
            self.type_aliases[name] = type_
            self.aliases.append(Alias(name, type_))


VERBATIM = "streamproof.verbatim"


def _dedent(text: str) -> str:
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    indent = min((len(line) - len(line.lstrip(" ")) for line in lines if line.strip()), default=0)
    return "\n".join(line[indent:].rstrip() for line in lines)


def parse_module(text: str, filename: str = "<stdin>", line_offset: int = 0) -> Module:
    """Parse one module (an explicit `module { ... }` or a list of top-level ops)."""
    ensure_recursion_headroom()  # the module may nest up to MAX_NESTING levels
    parser = Parser(SourceFile(filename, text, line_offset))
    with paused_gc():
        return parser.parse_top_level()


def parse_attribute_text(text: str, filename: str = "<attribute>") -> Attribute:
    """One attribute written out in full (the body of a dialect attribute the parser keeps as
    text, such as the element list of `#util.composite<...>`); DiagnosticError when it is not
    one attribute."""
    parser = Parser(SourceFile(filename, text))
    attr = parser.parse_attribute()
    if parser.lexer.peek().kind != "eof":
        raise parser.error("expected the end of the attribute")
    return attr


_SPLIT = re.compile(r"^// -----[^\n]*$", re.MULTILINE)


def split_input_file(text: str) -> list[tuple[str, int]]:
    """Cut at `// -----` lines (MLIR's --split-input-file); each chunk keeps its line offset."""
    chunks: list[tuple[str, int]] = []
    start, line = 0, 0
    for m in _SPLIT.finditer(text):
        chunk = text[start : m.start()]
        chunks.append((chunk, line))
        line += chunk.count("\n") + 1
        start = m.end() + 1
    chunks.append((text[start:], line))
    return chunks

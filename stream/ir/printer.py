"""The MLIR text printer: pretty form (IREE's custom syntax for registered ops) or generic form.

Value names follow MLIR's `AsmPrinter`: each region is numbered after its parent region is done,
sibling regions restart from the same counters (so every function starts at `%0`), and name
clashes get `_N` suffixes from one conflict counter. In pretty form a value keeps the name it was
read with (`%c16384`, `%results`) or gets the op's conventional name; in generic form every value
is numbered, exactly as `--mlir-print-op-generic` does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from stream.ir.attributes import (
    ArrayAttr,
    Attribute,
    DictAttr,
    OptimalAttr,
    StringAttr,
    TypeAttr,
    UnitAttr,
    dict_value,
    format_dict_entries,
    quote_string,
)
from stream.ir.core import Alias, Block, Module, Op, Region, Value
from stream.ir.gc_pause import paused_gc
from stream.ir.spec_registry import RegisteredOp, lookup
from stream.ir.types import FunctionType, TensorType, Type

__all__ = ["Printer", "print_module", "print_op"]

_VALID_NAME = re.compile(r"[A-Za-z_$.\-][A-Za-z_$.\-0-9]*\Z")
# Names the printer itself makes up; a hint spelled like one would collide with them.
_AUTO_NAME = re.compile(r"(?:arg)?\d+\Z")


def _usable_hint(hint: str | None) -> bool:
    return bool(hint) and bool(_VALID_NAME.match(hint)) and not _AUTO_NAME.match(hint)  # type: ignore[arg-type]


_INVALID_NAME_CHAR = re.compile(r"[^A-Za-z0-9_$.\-]")


def _sanitized(suggested: str | None) -> str | None:
    """An op's suggested result name made a valid SSA name, as MLIR's printer does it.

    `util.global.load` names its result after the global, and a symbol may be any string:
    characters an SSA id cannot hold become `_` and a leading digit gets a `_` in front (so
    `@"0"` never collides with the printer's own `%0`)."""
    if not suggested:
        return None
    name = _INVALID_NAME_CHAR.sub("_", suggested)
    if name[0].isdigit():
        name = "_" + name
    return name if _usable_hint(name) else None


@dataclass(slots=True)
class _Counters:
    value: int = 0
    arg: int = 0
    conflict: int = 0


class _Names:
    """Names in use in one region, chained to the enclosing region's (lookups walk up)."""

    __slots__ = ("used", "parent")

    def __init__(self, parent: _Names | None) -> None:
        self.used: set[str] = set()
        self.parent = parent

    def __contains__(self, name: str) -> bool:
        scope: _Names | None = self
        while scope is not None:
            if name in scope.used:
                return True
            scope = scope.parent
        return False


class Printer:
    """Accumulates text. Op syntaxes write through `write()` and the typed helpers below."""

    def __init__(self, generic: bool = False, aliases: Iterable[Alias] = ()) -> None:
        self.generic = generic
        self.out: list[str] = []
        self.indent = 0
        self.names: dict[Value, str] = {}
        self._dialects = ["builtin"]
        self._attr_alias: dict[Attribute, str] = {}
        self._type_alias: dict[Type, str] = {}
        for alias in aliases:
            if isinstance(alias.value, Type):
                self._type_alias.setdefault(alias.value, alias.name)
            else:
                self._attr_alias.setdefault(alias.value, alias.name)

    # -- low-level output ---------------------------------------------------------------------
    def write(self, text: str) -> None:
        self.out.append(text)

    def newline(self) -> None:
        self.out.append("\n" + "  " * self.indent)

    def text(self) -> str:
        return "".join(self.out)

    # -- names ---------------------------------------------------------------------------------
    def value(self, v: Value) -> str:
        name = self.names.get(v)
        if name is None:  # defined outside what is being printed (a lone op in a diagnostic)
            return f"%{v.name_hint or '<<unknown>>'}"
        return name

    def values(self, vs: Iterable[Value]) -> str:
        return ", ".join(self.value(v) for v in vs)

    def number_regions(self, regions: Iterable[Region]) -> None:
        """Assign names to every value in `regions` and below, in MLIR's order.

        Regions are taken from a stack (last pushed, first numbered). In pretty form a region
        starts from the counters its parent had when the region was pushed, so sibling regions
        restart from the same numbers and every function starts at `%0`; in generic form the
        counters are never restored, so every name is unique in the whole module, as
        `--mlir-print-op-generic` prints it.
        """
        shared = _Counters()
        root = _Names(None)
        stack = [(r, _Counters(), root) for r in regions]
        while stack:
            region, saved, parent = stack.pop()
            counters = shared if self.generic else saved
            scope = _Names(parent)
            self._number_region(region, counters, scope)
            for block in region.blocks:
                for op in block.ops:
                    for nested in op.regions:
                        snapshot = _Counters(counters.value, counters.arg, counters.conflict)
                        stack.append((nested, snapshot, scope))

    def _unique(self, name: str, counters: _Counters, scope: _Names) -> str:
        if name in scope:
            base = name + "_"
            while True:
                probe = base + str(counters.conflict)
                counters.conflict += 1
                if probe not in scope:
                    name = probe
                    break
        scope.used.add(name)
        return name

    def _number_region(self, region: Region, c: _Counters, scope: _Names) -> None:
        pretty = not self.generic
        for index, block in enumerate(region.blocks):
            for arg in block.arguments:
                hint = arg.name_hint if pretty and _usable_hint(arg.name_hint) else None
                if hint is not None:
                    self.names[arg] = "%" + self._unique(hint, c, scope)
                elif index == 0:  # MLIR names only entry-block arguments `%argN`
                    self.names[arg] = f"%arg{c.arg}"
                    c.arg += 1
                else:
                    self.names[arg] = f"%{c.value}"
                    c.value += 1
            for op in block.ops:
                if op.results:
                    self._name_results(op, c, scope, pretty)

    def _name_results(self, op: Op, c: _Counters, scope: _Names, pretty: bool) -> None:
        results = op.results
        hints: list[str | None] = [None] * len(results)
        if pretty:
            asm = None
            for i, r in enumerate(results):
                h = r.name_hint
                if _usable_hint(h):
                    hints[i] = h
                elif asm is None:
                    spec = lookup(op.name)
                    asm = (spec.asm_result_names(op) if spec else None) or []
                    if i < len(asm):
                        hints[i] = _sanitized(asm[i])
                elif i < len(asm):
                    hints[i] = _sanitized(asm[i])
        i = 0
        while i < len(results):
            j = i + 1
            while j < len(results) and hints[j] is None:
                j += 1
            if hints[i] is not None:
                base = "%" + self._unique(hints[i], c, scope)  # type: ignore[arg-type]
            else:
                base = f"%{c.value}"
                c.value += 1
            if j - i == 1:
                self.names[results[i]] = base
            else:
                for k in range(i, j):
                    self.names[results[k]] = f"{base}#{k - i}"
            i = j

    def result_groups(self, op: Op) -> str:
        """`%a, %b:2` for the op's results as named."""
        parts: list[str] = []
        i = 0
        results = op.results
        while i < len(results):
            name = self.value(results[i])
            base = name.split("#", 1)[0]
            j = i + 1
            while j < len(results) and self.value(results[j]).split("#", 1)[0] == base and "#" in name:
                j += 1
            parts.append(base if j - i == 1 else f"{base}:{j - i}")
            i = j
        return ", ".join(parts)

    # -- attributes and types ----------------------------------------------------------------
    def attr(self, a: Attribute) -> str:
        alias = self._attr_alias.get(a) if self._attr_alias else None
        if alias is not None:
            return "#" + alias
        if self._attr_alias or self._type_alias:
            if isinstance(a, ArrayAttr):
                return "[" + ", ".join(self.attr(e) for e in a.elements) + "]"
            if isinstance(a, DictAttr):
                return "{" + self.dict_entries(a.entries) + "}"
            if isinstance(a, OptimalAttr):
                return "#hal.device.optimal<[" + ", ".join(self.attr(e) for e in a.options) + "]>"
            if isinstance(a, TypeAttr):
                return self.type(a.type)
        return str(a)

    def type(self, t: Type) -> str:
        if self._type_alias:
            alias = self._type_alias.get(t)
            if alias is not None:
                return "!" + alias
        if self._attr_alias or self._type_alias:
            if isinstance(t, FunctionType):
                ins = ", ".join(self.type(x) for x in t.inputs)
                if len(t.results) == 1 and not isinstance(t.results[0], FunctionType):
                    return f"({ins}) -> {self.type(t.results[0])}"
                return f"({ins}) -> (" + ", ".join(self.type(x) for x in t.results) + ")"
            if isinstance(t, TensorType) and t.encoding is not None:
                base = str(TensorType(t.shape, t.element))
                return base[:-1] + ", " + self.attr(t.encoding) + ">"  # type: ignore[arg-type]
        return str(t)

    def types(self, ts: Iterable[Type]) -> str:
        return ", ".join(self.type(t) for t in ts)

    def dict_entries(self, entries: Iterable[tuple[str, Attribute]]) -> str:
        if not (self._attr_alias or self._type_alias):
            return format_dict_entries(tuple(entries))
        parts = []
        for key, value in entries:
            k = key if re.match(r"[A-Za-z_][\w$.]*\Z", key) else quote_string(key)
            parts.append(k if isinstance(value, UnitAttr) else f"{k} = {dict_value(value, self.attr(value))}")
        return ", ".join(parts)

    def attr_dict(self, attrs: Mapping[str, Attribute], elided: Iterable[str] = (), keyword: bool = False) -> None:
        """` {a = 1, b}` (or ` attributes {...}`), omitting elided names; nothing when empty."""
        skip = set(elided)
        items = sorted((k, v) for k, v in attrs.items() if k not in skip)
        if items:
            self.write((" attributes {" if keyword else " {") + self.dict_entries(items) + "}")

    # -- ops -------------------------------------------------------------------------------------
    def print_op(self, op: Op) -> None:
        if op.results:
            self.write(self.result_groups(op) + " = ")
        spec = None if self.generic else lookup(op.name)
        if spec is not None and spec.has_pretty():
            self._print_pretty_or_generic(op, spec)
        else:
            self.print_generic(op)
        if op.loc:
            self.write(" " + op.loc)

    def _print_pretty_or_generic(self, op: Op, spec: RegisteredOp) -> None:
        """The op's custom syntax, or generic form for a malformed op (unknown properties,
        missing attributes, wrong group sizes, a signature its body disagrees with), whose
        custom syntax would not read back the same, as MLIR prints ops that fail to verify."""
        from stream.ir.verifier import op_shape_errors

        if op_shape_errors(op):
            self.print_generic(op)
            return
        name = op.name
        prefix = self._dialects[-1] + "."
        if self._dialects[-1] and name.startswith(prefix):
            name = name[len(prefix) :]
        self.write(name)
        spec.print_pretty(self, op)

    def print_generic(self, op: Op) -> None:
        self.write(quote_string(op.name) + "(" + self.values(op.operands) + ")")
        if op.successors:
            self.write("[" + ", ".join(f"^bb{i}" for i in op.successors) + "]")
        if op.properties:
            self.write(" <{" + self.dict_entries(sorted(op.properties.items())) + "}>")
        if op.regions:
            self.write(" (")
            for i, region in enumerate(op.regions):
                if i:
                    self.write(", ")
                self.print_region(region, op=op)
            self.write(")")
        if op.attributes:
            self.write(" {" + self.dict_entries(sorted(op.attributes.items())) + "}")
        ins = self.types(v.type for v in op.operands)
        res = [v.type for v in op.results]
        if len(res) == 1 and not isinstance(res[0], FunctionType):
            outs = self.type(res[0])
        else:
            outs = "(" + self.types(res) + ")"
        self.write(f" : ({ins}) -> {outs}")

    def print_region(
        self,
        region: Region,
        op: Op | None = None,
        print_entry_args: bool = True,
        print_terminator: bool = True,
    ) -> None:
        """`{` blocks `}`. With `print_entry_args=False` the entry block's arguments were
        printed by the op's own syntax; with `print_terminator=False` an implicit terminator is
        left out."""
        spec = lookup(op.name) if op is not None else None
        self._dialects.append((spec.default_dialect or "") if spec is not None else "")
        self.write("{")
        self.indent += 1
        for index, block in enumerate(region.blocks):
            # An empty entry block needs its label, else `{}` would read as a region without blocks.
            header = index > 0 or (print_entry_args and block.arguments) or (self.generic and block.arguments) or not block.ops
            if header:
                self.indent -= 1
                self.newline()
                self.write(self._block_header(block, index) + _predecessor_comment(region, index))
                self.indent += 1
            ops = block.ops
            if not print_terminator and len(region.blocks) == 1 and ops:
                ops = ops[:-1]
            self._print_ops(ops)
        self.indent -= 1
        self.newline()
        self.write("}")
        self._dialects.pop()

    def _print_ops(self, ops: tuple[Op, ...]) -> None:
        for op in ops:
            if op.name == "streamproof.verbatim":
                # An opaque body kept as read: re-indent its lines at the current depth.
                text = op.properties["text"]
                for line in str(getattr(text, "value", "")).split("\n"):
                    if line:
                        self.newline()
                        self.write(line)
                    else:
                        self.write("\n")
                continue
            self.newline()
            self.print_op(op)

    def _block_header(self, block: Block, index: int) -> str:
        if not block.arguments:
            return f"^bb{index}:"
        args = ", ".join(f"{self.value(a)}: {self.type(a.type)}" for a in block.arguments)
        return f"^bb{index}({args}):"

    def successor(self, index: int) -> str:
        return f"^bb{index}"


def _predecessor_comment(region: Region, index: int) -> str:
    """MLIR's `  // pred: ^bb0` / `  // 2 preds: ^bb0, ^bb1` after a block label (one entry
    per branch edge, sorted; nothing for an entry block without predecessors)."""
    preds = sorted(
        i for i, block in enumerate(region.blocks) if block.ops for s in block.ops[-1].successors if s == index
    )
    if not preds:
        return "" if index == 0 else "  // no predecessors"
    if len(preds) == 1:  # MLIR's getSinglePredecessor: two edges from one block are two preds
        return f"  // pred: ^bb{preds[0]}"
    return f"  // {len(preds)} preds: " + ", ".join(f"^bb{i}" for i in preds)


def _alias_lines(printer: Printer, aliases: tuple[Alias, ...], locations: bool) -> list[str]:
    lines = []
    for alias in aliases:
        is_loc = not alias.is_type and str(alias.value).startswith("loc(")
        if is_loc == locations:
            sigil = "!" if alias.is_type else "#"
            lines.append(f"{sigil}{alias.name} = {alias.value}")
    return lines


def print_module(module: Module, generic: bool = False) -> str:
    """The module as MLIR text (ends with a newline)."""
    with paused_gc():
        return _print_module(module, generic)


def _print_module(module: Module, generic: bool) -> str:
    printer = Printer(generic, module.aliases)
    body = Region((Block((), module.ops),))
    printer.number_regions([body])
    lines = _alias_lines(printer, module.aliases, locations=False)
    if generic:
        props = {"sym_name": StringAttr(module.sym_name)} if module.sym_name else {}
        synthetic = Op("builtin.module", properties=props, attributes=module.attributes, regions=(body,), loc=module.loc)
        printer.print_generic(synthetic)
        if module.loc:
            printer.write(" " + module.loc)
    else:
        printer.write("module")
        if module.sym_name:
            printer.write(" @" + module.sym_name)
        printer.attr_dict(module.attributes, keyword=True)
        printer.write(" ")
        printer._dialects.append("")
        printer.write("{")
        printer.indent += 1
        printer._print_ops(module.ops)
        printer.indent -= 1
        printer.newline()
        printer.write("}")
        printer._dialects.pop()
        if module.loc:
            printer.write(" " + module.loc)
    lines.append(printer.text())
    lines.extend(_alias_lines(printer, module.aliases, locations=True))
    return "\n".join(lines) + "\n"


def print_op(op: Op, generic: bool = False) -> str:
    """One op on its own (names of values defined outside it are shown by their hints)."""
    printer = Printer(generic)
    holder = Region((Block((), (op,)),))
    printer.number_regions([holder])
    printer.print_op(op)
    return printer.text()

"""Op specifications: one declarative record per op, from which everything else is derived.

An `OpSpec` names the op's operand groups, results, inherent attributes and regions in IREE's ODS
order (so that the generic form, `operandSegmentSizes` included, matches IREE's byte for byte),
its level, traits, tie rule and pretty syntax (an MLIR declarative assembly format, see
`stream.ir.format`). From it come:

* accessors: `view(op).await_timepoint`, `view(op).resource_operands`, ...;
* the structural checks of an op's shape (`check_shape`);
* what the parser and printer need (`stream.ir.spec_registry.RegisteredOp`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from stream.ir.attributes import ArrayAttr, Attribute, DenseArrayAttr, IntegerAttr
from stream.ir.core import Op, Region, Value
from stream.ir.interfaces import Access, Alias, Effect, Sized, Timeline
from stream.ir.spec_registry import OpState, lookup, register
from stream.ir.types import I32, INDEX, Type
from stream.ir.views import OpView, view_class

if TYPE_CHECKING:
    from stream.ir.format import Format, ParseContext
    from stream.ir.parser import Parser
    from stream.ir.printer import Printer

__all__ = ["Operand", "Result", "Attr", "RegionSpec", "OpSpec", "OpView", "view", "spec_of", "Level"]

Arity = Literal["single", "optional", "variadic"]
Level = Literal["input", "tensor", "async", "cmd", "any"]


@dataclass(frozen=True, slots=True)
class Operand:
    """An operand group. `type` is the type every value of the group has when the constraint
    fixes it (index sizes, timepoints); the pretty parser then needs no `type(...)` for it.
    `kind` names the constraint the structural verifier checks."""

    name: str
    arity: Arity = "single"
    type: Type | None = None
    kind: str = "any"  # any | resource | timepoint | index | scalar


@dataclass(frozen=True, slots=True)
class Result:
    name: str
    arity: Arity = "single"
    type: Type | None = None
    kind: str = "any"


AttrPrint = Literal["attr", "symbol_name", "symbol", "int", "string", "type", "unit", "enum"]


@dataclass(frozen=True, slots=True)
class Attr:
    """An inherent attribute. `style` says how the pretty form spells it: a full attribute, a
    symbol name (`@f` for a StringAttr), an integer without its type, a bare type, or (`enum`)
    a dialect enum attribute without its `#dialect.mnemonic` prefix (`overflow<nsw>` for
    `#arith.overflow<nsw>`; the prefix is the one of `default`)."""

    name: str
    required: bool = False
    style: AttrPrint = "attr"
    int_type: Type = INDEX  # for style="int"
    # A default the pretty form leaves out (MLIR's DefaultValuedAttr): set when parsing if
    # absent, elided when printing if equal.
    default: Attribute | None = None

    @property
    def enum_prefix(self) -> str:
        """`#arith.overflow` for an `enum` attribute whose default is `#arith.overflow<none>`."""
        text = str(self.default)
        if self.style != "enum" or "<" not in text:
            raise ValueError(f"attribute '{self.name}' is not an enum with a default")
        return text[: text.index("<")]


@dataclass(frozen=True, slots=True)
class RegionSpec:
    name: str
    terminator: str | None = None  # an implicit terminator the pretty form leaves out
    variadic: bool = False  # the last region spec only: any number of regions like it (scf.index_switch's cases)

    @staticmethod
    def of(specs: tuple[RegionSpec, ...], index: int) -> RegionSpec | None:
        """The spec of region `index` (a trailing variadic spec covers every region from its own on)."""
        if index < len(specs):
            return specs[index]
        return specs[-1] if specs and specs[-1].variadic else None


@dataclass(eq=False)
class OpSpec:
    name: str
    operands: tuple[Operand, ...] = ()
    results: tuple[Result, ...] = ()
    attrs: tuple[Attr, ...] = ()
    regions: tuple[RegionSpec, ...] = ()
    # Levels at which the op may appear, and the level its presence puts a function at.
    levels: frozenset[str] = frozenset({"input", "tensor", "async", "cmd"})
    defines_level: Level | None = None
    traits: frozenset[str] = frozenset()
    format: str | None = None
    summary: str = ""
    default_dialect: str | None = None
    # Tied results: the name of the operand group that IREE's `tied_operands` property indexes
    # into (e.g. "resource_operands"), or a fixed map result -> operand ({"result": "target"}).
    ties: str | Mapping[str, str] | None = None
    # Op interfaces (stream.ir.interfaces): resources and their sizes, the bytes each access
    # touches, results that alias an operand unchanged, awaited and produced timepoints.
    sized: Sized | None = None
    accesses: tuple[Access, ...] | None = None
    aliases: tuple[Alias, ...] = ()
    timeline: Timeline | None = None
    # IREE's Pure (Stream_PureOp / Util_PureOp; the trait "pure" says the same) and MLIR's memory
    # effects: () = NoMemoryEffect, None = not declared (any effect).
    pure: bool = False
    # Stream_AffinityOp's getResultAffinityAttr: the attribute saying where the op's resource
    # results live, when it is not the op's own `affinity` (a transfer's `target_affinity`).
    result_affinity: str | None = None
    effects: tuple[Effect, ...] | None = None
    asm_names: Callable[[Op], list[str | None]] | None = None
    # Fills in result/operand types the format does not spell (arith.constant's result type).
    infer: Callable[[ParseContext], None] | None = None
    # Groups of operands/results that share one type (SameOperandsAndResultType).
    same_type: tuple[tuple[str, ...], ...] = ()
    # Extra structural checks: returns error messages.
    verify: Callable[[Op], list[str]] | None = None
    # Hand-written syntax for the few ops a declarative format cannot express.
    custom_parse: Callable[[Parser, OpState], None] | None = None
    custom_print: Callable[[Printer, Op], None] | None = None
    _format: Format | None = field(default=None, init=False, repr=False)
    _view: type[OpView] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.traits = frozenset(self.traits) | ({"timeline"} if self.timeline is not None else frozenset())
        self.pure = self.pure or "pure" in self.traits
        if self.pure and self.effects is None:  # Pure implies NoMemoryEffect unless it declares some
            self.effects = ()
        self.levels = frozenset(self.levels)
        variable = [o for o in self.operands if o.arity != "single"]
        # Several variable-length groups need `operandSegmentSizes`, unless the op declares
        # that they all have the same length (IREE's stream.yield).
        self.segmented = len(variable) > 1 and "same_variadic_size" not in self.traits
        self.result_segmented = len([r for r in self.results if r.arity != "single"]) > 1
        # Groups of exactly one value, counted once (group sizes are asked for all the time).
        self._operand_singles = sum(1 for o in self.operands if o.arity == "single")
        self._result_singles = sum(1 for r in self.results if r.arity == "single")
        # The groups before the first variable-length one start at their own index (when no
        # segment sizes are involved): most lookups need no group-size arithmetic at all.
        self._leading_singles = next((i for i, o in enumerate(self.operands) if o.arity != "single"), len(self.operands))
        names = {a.name for a in self.attrs}
        if self.segmented:
            names.add("operandSegmentSizes")
        if self.result_segmented:
            names.add("resultSegmentSizes")
        self.inherent_attributes = frozenset(names)
        self.isolated = "isolated" in self.traits
        self._operand_index = {o.name: i for i, o in enumerate(self.operands)}
        self._result_index = {r.name: i for i, r in enumerate(self.results)}
        self._attr_index = {a.name: a for a in self.attrs}
        # Where the op runs (`on(...)`): `affinity`, which IREE names `execution_affinity` on a
        # transfer (whose `from`/`to` are the other two).
        self.affinity = next((n for n in ("affinity", "execution_affinity") if n in self._attr_index), None)
        if self.result_affinity is not None and self.result_affinity not in self._attr_index:
            raise ValueError(f"{self.name}: result_affinity names attribute '{self.result_affinity}', which the op does not have")
        self._check_interfaces()

    def _check_interfaces(self) -> None:
        """Every group an interface names exists (a misspelled name fails when the op is defined)."""
        operands, results = self._operand_index, self._result_index
        named: list[tuple[str, str | None, dict[str, int]]] = []
        if self.sized is not None:
            for group, size in self.sized.operands:
                named += [("sized", group, operands), ("sized", size, operands)]
            named.append(("sized", self.sized.results, operands))
        for a in self.accesses or ():
            named += [("access", n, operands) for n in (a.resource, a.size, a.offset, a.end, a.length)]
        for al in self.aliases:
            named += [("alias", al.result, results), ("alias", al.operand, operands), ("alias", al.offset, operands), ("alias", al.length, operands)]
        if self.timeline is not None:
            named += [("timeline", self.timeline.awaits, operands), ("timeline", self.timeline.result, results)]
        for e in self.effects or ():
            if e.on is not None and e.on not in operands and e.on not in results:
                raise ValueError(f"{self.name}: the effects interface names group '{e.on}', which the op does not have "
                                 f"(it has {sorted({*operands, *results})})")
        for what, name, index in named:
            if name is not None and name not in index:
                kind = "result" if index is results else "operand"
                raise ValueError(f"{self.name}: the {what} interface names {kind} group '{name}', which the op does not have "
                                 f"(it has {sorted(index)})")
        if "timeline" in self.traits and self.timeline is None:
            raise ValueError(f"{self.name}: a timeline op declares its timepoints with `timeline=Timeline(...)`")

    # -- RegisteredOp protocol -------------------------------------------------------------
    def region_terminator(self, index: int) -> str | None:
        """The terminator the op's region number `index` ends with (None when free)."""
        return self.regions[index].terminator if index < len(self.regions) else None

    def has_pretty(self) -> bool:
        return self.format is not None or self.custom_parse is not None

    def _compiled(self) -> Format:
        if self._format is None:
            from stream.ir.format_parse import compile_format

            assert self.format is not None
            self._format = compile_format(self, self.format)
        return self._format

    def parse_pretty(self, parser: Parser, state: OpState) -> None:
        if self.custom_parse is not None:
            self.custom_parse(parser, state)
        else:
            self._compiled().parse(parser, state)

    def print_pretty(self, printer: Printer, op: Op) -> None:
        if self.custom_print is not None:
            self.custom_print(printer, op)
        else:
            self._compiled().print(printer, op)

    def asm_result_names(self, op: Op) -> list[str | None] | None:
        return self.asm_names(op) if self.asm_names else None

    # -- segments ---------------------------------------------------------------------------
    def operand_sizes(self, op: Op) -> list[int]:
        """Number of values in each operand group of `op`."""
        b = self.operand_bounds(op)
        return [b[i + 1] - b[i] for i in range(len(b) - 1)]

    def operand_bounds(self, op: Op) -> tuple[int, ...]:
        """Where each operand group of `op` starts, then `len(op.operands)`: group i is
        `op.operands[b[i]:b[i + 1]]`. Computed once per op (cached on it)."""
        b = op._operand_bounds
        if b is None:
            segments = op.properties.get("operandSegmentSizes") if self.segmented else None
            sizes = _group_sizes(self.operands, len(op.operands), segments, self.segmented, self._operand_singles)
            b = tuple(itertools.accumulate(sizes, initial=0))
            object.__setattr__(op, "_operand_bounds", b)
        return b

    def result_sizes(self, op: Op) -> list[int]:
        segments = op.properties.get("resultSegmentSizes") if self.result_segmented else None
        return _group_sizes(self.results, len(op.results), segments, self.result_segmented, self._result_singles)

    def operand_group(self, op: Op, name: str) -> tuple[Value, ...]:
        index = self._operand_index[name]
        if index < self._leading_singles and not self.segmented:
            return op.operands[index : index + 1]
        b = self.operand_bounds(op)
        return op.operands[b[index] : b[index + 1]]

    def result_group(self, op: Op, name: str) -> tuple[Value, ...]:
        index = self._result_index[name]
        sizes = self.result_sizes(op)
        start = sum(sizes[:index])
        return op.results[start : start + sizes[index]]

    def operand_groups(self, op: Op) -> dict[str, tuple[Value, ...]]:
        """Every operand group of `op` by name (the segment sizes computed once)."""
        b = self.operand_bounds(op)
        return {group.name: op.operands[b[i] : b[i + 1]] for i, group in enumerate(self.operands)}

    def result_offset(self, op: Op, name: str) -> int:
        """Index in `op.results` of the first value of a group."""
        if self.result_segmented or len(self.results) != self._result_singles:
            return sum(self.result_sizes(op)[: self._result_index[name]])
        return self._result_index[name]

    def operand_offset(self, op: Op, name: str) -> int:
        """Index in `op.operands` of the first value of a group."""
        index = self._operand_index[name]
        if index <= self._leading_singles and not self.segmented:
            return index
        return self.operand_bounds(op)[index]

    def segment_properties(self, sizes: list[int], results: list[int] | None = None) -> dict[str, Attribute]:
        props: dict[str, Attribute] = {}
        if self.segmented:
            props["operandSegmentSizes"] = DenseArrayAttr(I32, tuple(sizes))
        if self.result_segmented and results is not None:
            props["resultSegmentSizes"] = DenseArrayAttr(I32, tuple(results))
        return props

    # -- building ------------------------------------------------------------------------------
    def build(
        self,
        operands: Mapping[str, Value | None | tuple[Value, ...] | list[Value]] | None = None,
        results: Mapping[str, Type | tuple[Type, ...] | list[Type]] | None = None,
        attrs: Mapping[str, Attribute | None] | None = None,
        regions: tuple[Region, ...] = (),
        discardable: Mapping[str, Attribute] | None = None,
        location: Any = None,
    ) -> Op:
        """Build an op from named groups.

        Segment sizes are derived, `None` attributes dropped, default-valued attributes
        materialized and `tied_operands` put in the canonical form the parser produces (it may
        be given as a list of ints), so that a built op equals its printed-and-parsed self."""
        operands = operands or {}
        results = results or {}
        tiable = {"tied_operands"} if isinstance(self.ties, str) else set()
        for what, given, known in (("operand", operands, self._operand_index), ("result", results, self._result_index),
                                   ("attribute", attrs or {}, self.inherent_attributes | tiable)):
            unknown = set(given) - set(known)
            if unknown:  # a misspelled name would otherwise silently build the default
                raise ValueError(f"{self.name}: unknown {what} group(s) {sorted(unknown)} (it has {sorted(known)})")
        flat: list[Value] = []
        sizes: list[int] = []
        for o in self.operands:
            group = _as_tuple(operands.get(o.name))
            if o.arity == "single" and len(group) != 1:
                raise ValueError(f"{self.name}: operand '{o.name}' needs exactly one value")
            if o.arity == "optional" and len(group) > 1:
                raise ValueError(f"{self.name}: operand '{o.name}' takes at most one value")
            flat.extend(group)
            sizes.append(len(group))
        values: list[Value] = []
        rsizes: list[int] = []
        for r in self.results:
            types = _as_tuple(results.get(r.name, r.type if r.arity == "single" else ()))
            values.extend(Value(t) for t in types)  # type: ignore[arg-type]
            rsizes.append(len(types))
        props = {k: v for k, v in (attrs or {}).items() if v is not None}
        for a in self.attrs:  # as MLIR's builders do, default-valued attributes are materialized
            if a.default is not None and a.name not in props:
                props[a.name] = a.default
        if isinstance(self.ties, str):
            # One entry per result of the tiable group (an execute's timepoint has none).
            n_tiable = rsizes[self._result_index["results"]] if "results" in self._result_index else len(values)
            props["tied_operands"] = canonical_ties(props.get("tied_operands"), n_tiable, sparse=bool(self.regions))
        props.update(self.segment_properties(sizes, rsizes))
        from stream.ir.core import UNKNOWN_LOC, freeze

        return Op(
            self.name,
            tuple(flat),
            tuple(values),
            freeze(props),
            freeze(discardable),
            regions,
            location=location or UNKNOWN_LOC,
        )

    # -- ties ---------------------------------------------------------------------------------
    def tied_operand(self, op: Op, result_index: int) -> int | None:
        """Index in `op.operands` of the operand result `result_index` is tied to, if any."""
        if self.ties is None:
            return None
        if isinstance(self.ties, str):
            tied = op.properties.get("tied_operands")
            if not isinstance(tied, ArrayAttr) or result_index >= len(tied):
                return None
            entry = tied.elements[result_index]
            if not isinstance(entry, IntegerAttr) or entry.value < 0:
                return None
            # IREE numbers tied operands from the start of the op's tiable operand group.
            return self.operand_offset(op, self.ties) + entry.value
        assert isinstance(self.ties, Mapping)
        for result_name, operand_name in self.ties.items():
            group = self.result_group(op, result_name)
            start = sum(self.result_sizes(op)[: self._result_index[result_name]])
            if start <= result_index < start + len(group):
                return self.operand_offset(op, operand_name) + (result_index - start)
        return None


def canonical_ties(attr: Attribute | None, n_results: int, sparse: bool) -> ArrayAttr:
    """IREE's `tied_operands` as its parsers store it: one `index` entry per result (-1 when
    untied). Region ops (execute, concurrent) store `[]` when nothing is tied. `attr` may also
    be a plain list of ints."""
    raw: list[int]
    if attr is None:
        raw = []
    elif isinstance(attr, ArrayAttr):
        raw = [e.value if isinstance(e, IntegerAttr) else -1 for e in attr.elements]
    else:
        raw = [int(x) for x in attr]  # type: ignore[attr-defined]
    raw = (raw + [-1] * n_results)[:n_results]
    if sparse and all(t < 0 for t in raw):
        return ArrayAttr(())
    return ArrayAttr(tuple(IntegerAttr(t, INDEX) for t in raw))


def _as_tuple(x: Any) -> tuple[Any, ...]:
    if x is None:
        return ()
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _group_sizes(groups: tuple[Any, ...], total: int, segments: Attribute | None, segmented: bool, fixed: int) -> list[int]:
    """Values per group: from the segment sizes, else one per single group and an equal share of
    the rest per variable-length group (`fixed` counts the single groups)."""
    if segmented:
        if isinstance(segments, DenseArrayAttr) and len(segments.values) == len(groups):
            return list(map(int, segments.values))
        raise SegmentError(f"missing or malformed segment sizes ({len(groups)} groups expected)")
    variable = len(groups) - fixed
    if not variable:
        return [1] * fixed
    rest = max(total - fixed, 0)
    share = rest // variable if variable else 0
    return [1 if g.arity == "single" else share for g in groups]


class SegmentError(ValueError):
    pass


def define(spec: OpSpec) -> OpSpec:
    """Register an op spec (used by the tables in `stream.dialect`)."""
    register(spec)
    return spec


def spec_of(op: Op | str) -> OpSpec | None:
    # Called about a million times per pipeline run at 3k dispatches: no import per call.
    found = lookup(op if type(op) is str else op.name)  # type: ignore[union-attr]
    return found if isinstance(found, OpSpec) else None


def affinity_of(op: Op) -> Attribute | None:
    """The op's own `on(...)` affinity, whatever its spec calls it (`OpSpec.affinity`); an op
    without a spec is read under the common name `affinity`."""
    spec = spec_of(op)
    name = spec.affinity if spec is not None else None
    return op.properties.get(name or "affinity")


def view(op: Op) -> OpView:
    """The typed view of `op` (`stream.ir.views`): `view(op).target_offset`, ..."""
    spec = spec_of(op)
    if spec is None:
        raise KeyError(f"no spec for '{op.name}'")
    cls = spec._view
    if cls is None:
        cls = spec._view = view_class(spec)
    return cls(op, spec)


# Types fixed by common constraints, used by the op tables.
SIZE = Operand  # alias for readability in tables: SIZE("target_size", type=INDEX)

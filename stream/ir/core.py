"""The IR core: values, operations, blocks, regions and modules.

The IR is MLIR's generic structure, held immutably:

* a `Value` is an SSA value identified by object identity (two values of the same type are
  different values), carrying its type and an optional name hint from the source text;
* an `Op` is frozen: name, operands, results, properties (`<{...}>`), discardable attributes
  (`{...}`), regions, successors (block indices in the enclosing region) and a source location;
* a `Block` holds arguments and ops, a `Region` holds blocks, a `Module` holds top-level ops.

Nothing keeps back-references (no use lists, no parent pointers), so a pass builds a new module
that may share every unchanged op with its input, and the input is never mutated. Def-use facts
are computed on demand (`stream.ir.walk`). Equality of two modules is alpha-equivalence
(`structurally_equal`), which ignores value names and source locations.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from stream.ir.attributes import Attribute
from stream.ir.types import Type

if TYPE_CHECKING:
    from stream.ir.diagnostics import SourceFile

__all__ = [
    "Location",
    "UNKNOWN_LOC",
    "Value",
    "Op",
    "Block",
    "Region",
    "Module",
    "EMPTY",
    "freeze",
]


@dataclass(frozen=True, slots=True)
class Location:
    """A position in a source file (1-based line and column), and the source text it points
    into when it came from a parse (`source`, a `stream.ir.diagnostics.SourceFile`), so that a
    diagnostic raised long after parsing quotes this module's line, not that of another text
    parsed later under the same name. Equality and hashing are by position only."""

    file: str
    line: int
    col: int
    source: SourceFile | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


UNKNOWN_LOC = Location("<unknown>", 0, 0)

EMPTY: Mapping[str, Any] = MappingProxyType({})


def freeze(mapping: Mapping[str, Attribute] | None) -> Mapping[str, Attribute]:
    """A read-only copy of an attribute mapping (shared empty mapping when there is none)."""
    if not mapping:
        return EMPTY
    return MappingProxyType(dict(mapping))


@dataclass(slots=True, eq=False)
class Value:
    """An SSA value. Identity is object identity; `name_hint` is only for printing."""

    type: Type
    name_hint: str | None = None

    def __repr__(self) -> str:
        hint = self.name_hint if self.name_hint is not None else hex(id(self))[-6:]
        return f"<Value %{hint}: {self.type}>"


@dataclass(frozen=True, slots=True, eq=False)
class Block:
    """A basic block: arguments and a straight-line list of ops (the last one may branch)."""

    arguments: tuple[Value, ...] = ()
    ops: tuple[Op, ...] = ()

    def replace(self, **changes: Any) -> Block:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True, eq=False)
class Region:
    blocks: tuple[Block, ...] = ()

    @property
    def block(self) -> Block:
        """The single block of a single-block region."""
        if len(self.blocks) != 1:
            raise ValueError(f"expected a single-block region, found {len(self.blocks)} blocks")
        return self.blocks[0]

    @staticmethod
    def of(arguments: tuple[Value, ...], ops: tuple[Op, ...]) -> Region:
        return Region((Block(arguments, ops),))


@dataclass(frozen=True, slots=True, eq=False)
class Op:
    """One operation in MLIR's generic shape.

    `properties` are the op's inherent attributes (printed `<{...}>` in generic form);
    `attributes` are discardable ones (`{...}`). `successors` index blocks of the enclosing
    region. `loc` is an explicit `loc(...)` trailer kept as text; `location` is where the op was
    read from (or built), used for diagnostics and never compared.
    """

    name: str
    operands: tuple[Value, ...] = ()
    results: tuple[Value, ...] = ()
    properties: Mapping[str, Attribute] = field(default_factory=lambda: EMPTY)
    attributes: Mapping[str, Attribute] = field(default_factory=lambda: EMPTY)
    regions: tuple[Region, ...] = ()
    successors: tuple[int, ...] = ()
    loc: str | None = None
    location: Location = field(default=UNKNOWN_LOC, compare=False)
    # Where each operand group starts, cached by `OpSpec.operand_bounds` (a pure function of the
    # frozen fields; `replace` builds a new op without it). Hot: millions of reads per pipeline.
    _operand_bounds: tuple[int, ...] | None = field(default=None, init=False, repr=False, compare=False)
    # The op's declared accesses bound to its values, cached by `stream.ir.interfaces.bound_accesses`.
    _bound_accesses: tuple[Any, ...] | None = field(default=None, init=False, repr=False, compare=False)
    # Set by the structural verifier once the op's own checks found nothing (`stream.ir.verifier`).
    _checked: bool = field(default=False, init=False, repr=False, compare=False)

    def replace(self, **changes: Any) -> Op:
        """A copy with some fields changed (the original op is untouched)."""
        for key in ("properties", "attributes"):
            if key in changes:
                changes[key] = freeze(changes[key])
        return dataclasses.replace(self, **changes)

    def attr(self, name: str) -> Attribute | None:
        """An inherent property or, failing that, a discardable attribute."""
        value = self.properties.get(name)
        return value if value is not None else self.attributes.get(name)

    @property
    def result(self) -> Value:
        if len(self.results) != 1:
            raise ValueError(f"'{self.name}' has {len(self.results)} results, not one")
        return self.results[0]

    @property
    def dialect(self) -> str:
        return self.name.split(".", 1)[0]

    def walk(self) -> Iterator[Op]:
        """This op and every op nested in its regions, in pre-order."""
        # With an explicit stack: nested generators (`yield from`) cost each op its depth.
        yield self
        if not self.regions:
            return
        stack = [op for region in reversed(self.regions) for block in reversed(region.blocks) for op in reversed(block.ops)]
        while stack:
            op = stack.pop()
            yield op
            if op.regions:
                stack.extend(inner for region in reversed(op.regions) for block in reversed(region.blocks) for inner in reversed(block.ops))

    def __repr__(self) -> str:
        return f"<Op {self.name} at {self.location}>"


@dataclass(frozen=True, slots=True, eq=False)
class Alias:
    """A top-level alias definition: `#name = attr` or `!name = type`."""

    name: str  # without the sigil
    value: Attribute | Type

    @property
    def is_type(self) -> bool:
        return isinstance(self.value, Type)


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class Module:
    """A module: top-level ops (functions, executables, globals, ...) plus its attributes and
    the alias definitions that precede it in the text. Weakly referenceable, so that what a
    consumer prepares for a module (the runtime's `runtime.program.Program`) goes with it."""

    ops: tuple[Op, ...] = ()
    attributes: Mapping[str, Attribute] = field(default_factory=lambda: EMPTY)
    sym_name: str | None = None
    aliases: tuple[Alias, ...] = ()
    loc: str | None = None
    location: Location = field(default=UNKNOWN_LOC, compare=False)

    def replace(self, **changes: Any) -> Module:
        if "attributes" in changes:
            changes["attributes"] = freeze(changes["attributes"])
        return dataclasses.replace(self, **changes)

    def walk(self) -> Iterator[Op]:
        for op in self.ops:
            yield from op.walk()

    def lookup(self, symbol: str) -> Op | None:
        """The top-level op whose `sym_name` is `symbol`."""
        from stream.ir.attributes import StringAttr

        for op in self.ops:
            name = op.properties.get("sym_name")
            if isinstance(name, StringAttr) and name.value == symbol:
                return op
        return None

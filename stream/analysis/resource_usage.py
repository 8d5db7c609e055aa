"""ResourceUsage: how each storage is used, and the lifetime that follows from it.

Values that share storage (ties and passthrough casts, `stream.analysis.storage`) form one *class*
and get one lifetime. Each use or definition adds `Usage` bits to its class (`USAGE_RULES`, one
rule per op); the lifetime is the first match of IREE's RefineUsage order (`lifetime_for`):

1. global storage that is constant -> `constant`;
2. indirect (crosses a function boundary) or external (imported / exported) -> `external`;
3. staging (read or written by the host) -> `staging`;
4. constant -> `constant`;
5. global read or write -> `variable` when ever written, else `constant`;
6. anything else -> `transient`.

A class whose members already carry a lifetime (an import is `external`) keeps it. A cast joins
its operand's class unless both sides already have different concrete lifetimes (then it is a
real conversion). Uses whose op cannot take the class's lifetime are *conflicts*
(`conflicts`): the host only loads from and stores to `staging`, dispatches never touch
`staging`, and nothing writes a `constant` in place. A class that dispatches use never becomes
`staging` (its host loads and stores conflict instead). refine-usage resolves each conflict with
a transfer.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

from stream.analysis.storage import RETURN_OPS, is_passthrough, tied_source, tied_writes
from stream.dialect import load_all
from stream.ir.core import Block, Op, Value
from stream.ir.rule_table import OpSet, Requirement, RuleTable, execution_op
from stream.ir.spec import spec_of
from stream.ir.spec_registry import registered_names
from stream.ir.types import Lifetime, ResourceType

__all__ = ["Usage", "USAGE_RULES", "lifetime_for", "ResourceUsage", "Conflict", "CLASS_CONFLICT", "nested_ops", "carried_pairs"]


class Usage(enum.Flag):
    NONE = 0
    INDIRECT = enum.auto()
    EXTERNAL = enum.auto()
    MUTATED = enum.auto()
    CONSTANT = enum.auto()
    TRANSFER_READ = enum.auto()
    TRANSFER_WRITE = enum.auto()
    STAGING_READ = enum.auto()
    STAGING_WRITE = enum.auto()
    DISPATCH_READ = enum.auto()
    DISPATCH_WRITE = enum.auto()
    GLOBAL_READ = enum.auto()
    GLOBAL_WRITE = enum.auto()
    GLOBAL_STORAGE = enum.auto()


STAGING = Usage.STAGING_READ | Usage.STAGING_WRITE
DISPATCH = Usage.DISPATCH_READ | Usage.DISPATCH_WRITE
GLOBAL = Usage.GLOBAL_READ | Usage.GLOBAL_WRITE
WRITES = Usage.MUTATED | Usage.GLOBAL_WRITE | Usage.DISPATCH_WRITE | Usage.STAGING_WRITE | Usage.TRANSFER_WRITE


def lifetime_for(usage: Usage) -> Lifetime:
    """IREE RefineUsage's mapping from usage bits to a lifetime (first match wins)."""
    if Usage.GLOBAL_STORAGE in usage and Usage.CONSTANT in usage:
        return Lifetime.CONSTANT
    if usage & (Usage.INDIRECT | Usage.EXTERNAL):
        return Lifetime.EXTERNAL
    if usage & STAGING:
        return Lifetime.STAGING
    if Usage.CONSTANT in usage:
        return Lifetime.CONSTANT
    if usage & GLOBAL:
        return Lifetime.VARIABLE if usage & WRITES else Lifetime.CONSTANT
    return Lifetime.TRANSIENT


def _by_type(v: Value, default: Usage) -> Usage:
    if isinstance(v.type, ResourceType) and v.type.lifetime is Lifetime.STAGING:
        return Usage.STAGING_READ | Usage.STAGING_WRITE
    return default


def _dispatch(op: Op) -> list[tuple[Value, Usage]]:
    tied = set(tied_writes(op))
    out = [(v, Usage.DISPATCH_READ | (Usage.DISPATCH_WRITE | Usage.MUTATED if i in tied else Usage.NONE)) for i, v in enumerate(op.operands)]
    out += [(r, Usage.DISPATCH_WRITE) for r in op.results]
    return out


def _copies(read: Usage, write: Usage) -> Callable[[Op], list[tuple[Value, Usage]]]:
    """Ops that read their resource operands and write their results (tied targets: mutated)."""

    def rule(op: Op) -> list[tuple[Value, Usage]]:
        tied = set(tied_writes(op))
        out = [(v, write | Usage.MUTATED if i in tied else read) for i, v in enumerate(op.operands)]
        return out + [(r, write) for r in op.results]

    return rule


_HOST_ACCESS = OpSet(
    "_HOST_ACCESS",
    "Async ops whose declared accesses are host staging reads and writes, not transfers (their usage is STAGING).",
    {"stream.async.load", "stream.async.store"},
)


def _transfer_ops() -> list[str]:
    """Value-level ops that read and write resources by plain declared accesses (no dispatch-style
    `tied` mode): transfers, clones, slices, updates, copies, fills. Their usage is a transfer's
    (IREE's RefineUsage), from their spec's `accesses`, not a list of names."""
    load_all()
    out = []
    for name in registered_names():
        spec = spec_of(name)
        if (spec is not None and name not in _HOST_ACCESS and "async" in spec.levels and "cmd" not in spec.levels
                and not spec.regions and spec.accesses and all(a.mode in ("read", "write", "read_write") for a in spec.accesses)):
            out.append(name)
    return out


# op name -> (value, bits) pairs the op contributes
USAGE_RULES: RuleTable[Callable[[Op], list[tuple[Value, Usage]]]] = RuleTable(
    "USAGE_RULES",
    """The `Usage` bits the op contributes to the lifetime classes of its resource values
    (`fn(op) -> [(value, bits)]`: external, constant, staging, transfer, dispatch, indirect).
    An op without an entry contributes no bits (identity).""",
    policy="identity",
    requires=Requirement(where=execution_op, ops=frozenset({"stream.tensor.import", "stream.tensor.export", "stream.async.load", "stream.async.store", "stream.async.constant"}) | RETURN_OPS, unless=frozenset({"stream.async.alloca", "stream.async.barrier"}), why="an alloca and a barrier say nothing about the lifetime"),
    entries={
        "stream.tensor.import": lambda op: [(r, _by_type(r, Usage.EXTERNAL)) for r in op.results],
        "stream.tensor.export": lambda op: [(v, _by_type(v, Usage.EXTERNAL)) for v in op.operands],
        "stream.async.constant": lambda op: [(r, Usage.CONSTANT) for r in op.results],
        "stream.async.load": lambda op: [(op.operands[0], Usage.STAGING_READ)],
        "stream.async.store": lambda op: [(op.operands[0], Usage.STAGING_WRITE | Usage.MUTATED), (op.results[0], Usage.STAGING_WRITE)],
        "stream.async.dispatch": _dispatch,
        **dict.fromkeys(_transfer_ops(), _copies(Usage.TRANSFER_READ, Usage.TRANSFER_WRITE)),
        "stream.async.splat": lambda op: [(r, Usage.TRANSFER_WRITE) for r in op.results],
        **{name: (lambda op: [(v, Usage.INDIRECT) for v in op.operands]) for name in RETURN_OPS},
    },
)


# op name -> (operand index -> the lifetimes that operand may have); absent: any.
def _allowed(op: Op, index: int) -> frozenset[Lifetime] | None:
    every = frozenset(Lifetime) - {Lifetime.UNKNOWN}
    if op.name in ("stream.async.load", "stream.async.store") and index == 0:
        return frozenset({Lifetime.STAGING})
    if op.name == "stream.async.dispatch":
        allowed = every - {Lifetime.STAGING}
        return allowed - {Lifetime.CONSTANT} if index in tied_writes(op) else allowed
    if index in tied_writes(op):
        return every - {Lifetime.CONSTANT}
    return None


@dataclass(frozen=True, slots=True)
class Conflict:
    """A use (operand `index` of `op`) whose op cannot take the lifetime its class got."""

    op: Op
    index: int
    lifetime: Lifetime


CLASS_CONFLICT = "a resource class with two different lifetimes"


def nested_ops(block: Block) -> list[Op]:
    """The ops of `block` and of the `scf` regions nested in it, in program order."""
    out: list[Op] = []
    for op in block.ops:
        out.append(op)
        if op.dialect == "scf":
            for region in op.regions:
                for inner in region.blocks:
                    out.extend(nested_ops(inner))
    return out


def carried_pairs(op: Op) -> list[tuple[Value, Value]]:
    """Pairs of values an `scf` op makes one: an `scf.for`'s initial value, iter_arg, yielded
    value and result; an `scf.if`'s yielded values and result. They get one lifetime (a
    class): each may be the storage of the others."""
    out: list[tuple[Value, Value]] = []
    if op.name == "scf.for":
        body = op.regions[0].blocks[0]
        for init, arg, result in zip(op.operands[3:], body.arguments[1:], op.results):
            out += [(init, arg), (arg, result)]
    if op.name in ("scf.for", "scf.if"):
        for region in op.regions:
            for inner in region.blocks:
                if inner.ops and inner.ops[-1].name == "scf.yield":
                    out += list(zip(inner.ops[-1].operands, op.results))
    return out


@dataclass(slots=True)
class ResourceUsage:
    """Classes, usage bits and lifetimes of the resource values of one block."""

    parent: dict[Value, Value] = field(default_factory=dict)
    usage: dict[Value, Usage] = field(default_factory=dict)
    fixed: dict[Value, set[Lifetime]] = field(default_factory=dict)

    @staticmethod
    def of(block: Block, arguments: tuple[Value, ...] = ()) -> ResourceUsage:
        ru = ResourceUsage()
        for v in (*arguments, *block.arguments):
            if isinstance(v.type, ResourceType):
                ru._add(v)
                ru.usage[ru.find(v)] |= Usage.INDIRECT
        casts: list[tuple[Value, Value]] = []
        for op in nested_ops(block):
            for a, b in carried_pairs(op):
                if isinstance(a.type, ResourceType) and isinstance(b.type, ResourceType):
                    ru._add(a)
                    ru._add(b)
                    ru._union(a, b)
            for r in op.results:
                if isinstance(r.type, ResourceType):
                    ru._add(r)
            for v in op.operands:
                if isinstance(v.type, ResourceType):
                    ru._add(v)
            for i, r in enumerate(op.results):
                src = tied_source(op, i)
                if src is None or not isinstance(r.type, ResourceType):
                    continue
                if is_passthrough(op):
                    casts.append((op.operands[src], r))
                else:  # a tied write: the result is a new version of the operand's storage
                    ru._union(op.operands[src], r)
            rule = USAGE_RULES.get(op.name)
            if rule is not None:
                for v, bits in rule(op):
                    if isinstance(v.type, ResourceType):
                        root = ru.find(v)
                        ru.usage[root] = ru.usage.get(root, Usage.NONE) | bits
        for a, b in casts:
            fa, fb = ru.fixed_of(a), ru.fixed_of(b)
            if not fa or not fb or fa == fb:
                ru._union(a, b)
        return ru

    # -- union-find ----------------------------------------------------------------------------
    def _add(self, v: Value) -> None:
        if v in self.parent:
            return
        self.parent[v] = v
        self.usage[v] = Usage.NONE
        assert isinstance(v.type, ResourceType)
        self.fixed[v] = set() if v.type.lifetime is Lifetime.UNKNOWN else {v.type.lifetime}

    def find(self, v: Value) -> Value:
        root = v
        while self.parent[root] is not root:
            root = self.parent[root]
        while self.parent[v] is not root:
            self.parent[v], v = root, self.parent[v]
        return root

    def _union(self, a: Value, b: Value) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra is rb:
            return
        self.parent[rb] = ra
        self.usage[ra] = self.usage.get(ra, Usage.NONE) | self.usage.get(rb, Usage.NONE)
        self.fixed[ra] = self.fixed.get(ra, set()) | self.fixed.get(rb, set())

    # -- queries ---------------------------------------------------------------------------------
    def fixed_of(self, v: Value) -> set[Lifetime]:
        return self.fixed.get(self.find(v), set())

    def usage_of(self, v: Value) -> Usage:
        return self.usage.get(self.find(v), Usage.NONE)

    def lifetime(self, v: Value) -> Lifetime:
        """The class's lifetime: the one its members already have, else from its usage."""
        fixed = self.fixed_of(v)
        if len(fixed) == 1:
            return next(iter(fixed))
        if len(fixed) > 1:
            raise ValueError(CLASS_CONFLICT)
        usage = self.usage_of(v)
        if usage & DISPATCH:
            # Dispatches cannot touch staging memory: the device side decides, and the host
            # loads and stores of the class become conflicts (refine-usage adds transfers).
            usage &= ~STAGING
        return lifetime_for(usage)

    def conflicts(self, block: Block) -> list[Conflict]:
        """Uses whose op cannot take the lifetime of the operand's class."""
        out = []
        for op in nested_ops(block):
            for index, v in enumerate(op.operands):
                if not isinstance(v.type, ResourceType):
                    continue
                allowed = _allowed(op, index)
                lifetime = self.lifetime(v)
                if allowed is not None and lifetime not in allowed:
                    out.append(Conflict(op, index, lifetime))
        return out

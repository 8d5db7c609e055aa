"""ResourceHazards: which bytes of which storage each op touches, and which ops conflict.

IREE's ResourceHazardAnalysis compares SSA values: two different values never overlap and two
ranges are disjoint only when one's end is the other's start. Both halves are wrong in the
direction that matters: values that share storage through ties (a reader of `%x` and an in-place
writer of `%x`, IREE #14889) look unrelated. This analysis works on storage instead:

* `StorageAliases` maps every resource value of a function to its *root*, the value whose storage
  it is: a tied result is its operand (`dispatch ... -> %a`, `fill`, `update`, `copy`, `store`),
  pass-through ops (`timepoint.await`, `async.barrier`, `async.cast`, `timepoint.barrier`,
  `resource.subview`) return their operand's storage, a region's block argument is the value it
  captures, and a region's result is the value yielded inside it (so an execute result written in
  place inside the region is its capture's storage even when the execute does not declare the tie).
* `op_accesses(op)` lists an op's accesses `(value, [start, end), R | W | RW)` from a rule table
  keyed by op name (async ops, regions as a whole, host ops); an op without a rule reads and writes
  every resource operand it takes, as SPEC section 2.2 requires for unknown ops.
* Two accesses conflict when they reach the same root, their byte ranges may intersect, and at
  least one writes. Ranges are compared exactly when their bounds are constants (folded through
  `arith`), and are disjoint when one's end *is* the other's start (the same SSA value); anything
  else may overlap. A value reached through a subview or another value of unknown offset is
  treated as covering its whole root.

Soundness: every way the IR lets two values share bytes is one of the alias rules above, so two
accesses this analysis calls disjoint never touch a common byte; everything it cannot decide is a
conflict (a false alarm splits a wave or orders two regions, never loses an order).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from stream.analysis.resource_sizes import resource_sizes
from stream.ir.core import Block, Op, Value
from stream.ir.spec import OpSpec, spec_of
from stream.ir.types import ResourceType
from stream.ir.walk import constant_int, defining_ops

__all__ = [
    "Mode",
    "Access",
    "StorageAliases",
    "HazardAnalysis",
    "op_accesses",
    "PASSTHROUGH_OPS",
]


class Mode(enum.IntFlag):
    READ = 1
    WRITE = 2
    READ_WRITE = 3


Bound = Value | int | None  # a byte offset: an SSA index value, a constant, or None (0 / the size)


@dataclass(frozen=True, slots=True)
class Access:
    """`op` touches `[start, end)` of the storage of `value` with `mode`. `start is None` means
    offset 0 and `end is None` means the end of the resource."""

    value: Value
    mode: Mode
    start: Bound = None
    end: Bound = None

    @staticmethod
    def whole(value: Value, mode: Mode) -> Access:
        return Access(value, mode)


# Ops whose results are their operands' storage and which touch no bytes.
PASSTHROUGH_OPS = frozenset(
    {
        "stream.timepoint.await",
        "stream.timepoint.barrier",
        "stream.async.barrier",
        "stream.async.cast",
        "stream.resource.subview",
    }
)

# Ops that take resources without touching their bytes (sizes, terminators of regions).
_NO_ACCESS = PASSTHROUGH_OPS | frozenset({"stream.yield", "stream.resource.size"})


def _one(spec: OpSpec, op: Op, name: str) -> Value:
    return spec.operand_group(op, name)[0]


def _ranged(spec: OpSpec, op: Op, resource: str, offset: str, end: str, mode: Mode) -> Access:
    return Access(_one(spec, op, resource), mode, _one(spec, op, offset), _one(spec, op, end))


def _tied_operand_indices(spec: OpSpec, op: Op) -> set[int]:
    out: set[int] = set()
    for i in range(len(op.results)):
        index = spec.tied_operand(op, i)
        if index is not None:
            out.add(index)
    return out


def _dispatch(spec: OpSpec, op: Op) -> list[Access]:
    operands = spec.operand_group(op, "resource_operands")
    offsets = spec.operand_group(op, "resource_operand_offsets")
    ends = spec.operand_group(op, "resource_operand_ends")
    base = spec.operand_offset(op, "resource_operands")
    tied = _tied_operand_indices(spec, op)
    out: list[Access] = []
    k = 0
    for i, v in enumerate(operands):
        if not isinstance(v.type, ResourceType):
            continue
        mode = Mode.READ_WRITE if base + i in tied else Mode.READ
        out.append(Access(v, mode, offsets[k], ends[k]))
        k += 1
    return out


def _region(spec: OpSpec, op: Op) -> list[Access]:
    """An execute or wave as a whole: every capture is read, and written when a result is tied to
    it. (What the body does in place to an untied capture shows up as the result's write, because
    the result's storage is the capture's; see `StorageAliases`.)"""
    base = spec.operand_offset(op, "resource_operands")
    tied = _tied_operand_indices(spec, op)
    return [
        Access.whole(v, Mode.READ_WRITE if base + i in tied else Mode.READ)
        for i, v in enumerate(spec.operand_group(op, "resource_operands"))
        if isinstance(v.type, ResourceType)
    ]


def _reads(*names: str) -> Callable[[OpSpec, Op], list[Access]]:
    def rule(spec: OpSpec, op: Op) -> list[Access]:
        return [Access.whole(_one(spec, op, n), Mode.READ) for n in names]

    return rule


def _writes(*names: str) -> Callable[[OpSpec, Op], list[Access]]:
    def rule(spec: OpSpec, op: Op) -> list[Access]:
        return [Access.whole(_one(spec, op, n), Mode.READ_WRITE) for n in names]

    return rule


def _read_all_resources(spec: OpSpec, op: Op) -> list[Access]:
    return [Access.whole(v, Mode.READ) for v in op.operands if isinstance(v.type, ResourceType)]


def _none(spec: OpSpec, op: Op) -> list[Access]:
    return []


# Accesses an op makes through its operands, keyed by op name. Untied resource results are added
# generically as writes of their (fresh, or aliased through a region) storage.
ACCESS_RULES: dict[str, Callable[[OpSpec, Op], list[Access]]] = {
    "stream.async.dispatch": _dispatch,
    "stream.async.fill": lambda s, o: [_ranged(s, o, "target", "target_offset", "target_end", Mode.WRITE)],
    "stream.async.update": lambda s, o: [
        _ranged(s, o, "target", "target_offset", "target_end", Mode.WRITE),
        Access.whole(_one(s, o, "update"), Mode.READ),
    ],
    "stream.async.copy": lambda s, o: [
        _ranged(s, o, "source", "source_offset", "source_end", Mode.READ),
        _ranged(s, o, "target", "target_offset", "target_end", Mode.WRITE),
    ],
    "stream.async.slice": lambda s, o: [_ranged(s, o, "source", "source_offset", "source_end", Mode.READ)],
    "stream.async.clone": _reads("source"),
    "stream.async.transfer": _reads("source"),
    "stream.async.load": _reads("source"),
    "stream.async.store": _writes("target"),
    "stream.async.splat": _none,
    "stream.async.alloca": _none,
    "stream.async.constant": _none,
    "stream.async.execute": _region,
    "stream.async.concurrent": _region,
    "stream.tensor.import": _none,
    "stream.tensor.export": _reads("source"),
    "func.return": _read_all_resources,
    "util.return": _read_all_resources,
}


def op_accesses(op: Op) -> list[Access]:
    """The accesses `op` makes (see the module docstring)."""
    if op.name in _NO_ACCESS:
        return []
    spec = spec_of(op)
    rule = ACCESS_RULES.get(op.name)
    if rule is None or spec is None:
        # Unknown (or unmodelled) ops read and write every resource they take.
        out = [Access.whole(v, Mode.READ_WRITE) for v in op.operands if isinstance(v.type, ResourceType)]
    else:
        out = rule(spec, op)
    for i, r in enumerate(op.results):
        if isinstance(r.type, ResourceType) and (spec is None or spec.tied_operand(op, i) is None):
            out.append(Access.whole(r, Mode.WRITE))
    return out


@dataclass(slots=True)
class StorageAliases:
    """The storage each resource value of a function lives in (see the module docstring).

    `parent[v] = (u, exact)`: `v` is `u`'s storage; `exact` is False when `v` starts at an offset
    into `u` (a subview), so byte ranges on `v` say nothing precise about `u`.
    """

    parent: dict[Value, tuple[Value, bool]] = field(default_factory=dict)
    _roots: dict[Value, tuple[Value, bool]] = field(default_factory=dict)

    @staticmethod
    def of(block: Block) -> StorageAliases:
        aliases = StorageAliases()
        for top in block.ops:
            for op in top.walk():
                aliases._link(op)
        return aliases

    def _link(self, op: Op) -> None:
        spec = spec_of(op)
        if op.name in ("stream.async.execute", "stream.async.concurrent") and op.regions and op.regions[0].blocks:
            assert spec is not None
            body = op.regions[0].blocks[0]
            for arg, outer in zip(body.arguments, spec.operand_group(op, "resource_operands")):
                self.parent[arg] = (outer, True)
            yielded = body.ops[-1].operands[: len(body.ops[-1].operands) // 2] if body.ops else ()
            for result, inner in zip(spec.result_group(op, "results"), yielded):
                self.parent[result] = (inner, True)
            return
        if op.name == "stream.async.cast":
            self.parent[op.results[0]] = (op.operands[0], True)
            return
        if spec is None or spec.ties is None:
            return
        for i, r in enumerate(op.results):
            if not isinstance(r.type, ResourceType):
                continue
            index = spec.tied_operand(op, i)
            if index is not None:
                self.parent[r] = (op.operands[index], op.name != "stream.resource.subview")

    def root(self, v: Value) -> tuple[Value, bool]:
        """The root whose storage `v` is, and whether `v` starts at the root's offset 0."""
        found = self._roots.get(v)
        if found is not None:
            return found
        chain: list[Value] = []
        current, exact = v, True
        while current in self.parent and current not in self._roots:
            chain.append(current)
            current, link_exact = self.parent[current]
            exact = exact and link_exact
            if len(chain) > len(self.parent):  # a malformed cycle: stop rather than loop
                break
        base, base_exact = self._roots.get(current, (current, True))
        result = (base, exact and base_exact)
        for value in chain:
            self._roots.setdefault(value, result)
        return result


@dataclass(frozen=True, slots=True)
class _Resolved:
    root: Value
    mode: Mode
    start: Bound
    end: Bound
    size: Value | None  # the accessed value's size, when known
    exact: bool = True  # False: somewhere unknown inside the root (through a subview)


@dataclass(slots=True)
class HazardAnalysis:
    """Storage conflicts among the ops of one function body (regions included)."""

    aliases: StorageAliases
    defs: dict[Value, Op]
    sizes: dict[Value, Value]
    _consts: dict[Value, int | None] = field(default_factory=dict)
    _accesses: dict[Op, list[_Resolved]] = field(default_factory=dict)

    @staticmethod
    def of(block: Block) -> HazardAnalysis:
        return HazardAnalysis(StorageAliases.of(block), defining_ops(block), resource_sizes(block))

    # -- ranges --------------------------------------------------------------------------------
    def _const(self, b: Bound) -> int | None:
        if b is None or isinstance(b, int):
            return b
        if b not in self._consts:
            self._consts[b] = constant_int(b, self.defs)
        return self._consts[b]

    def _resolve(self, access: Access) -> _Resolved:
        root, exact = self.aliases.root(access.value)
        size = self.sizes.get(access.value)
        if not exact:
            return _Resolved(root, access.mode, None, None, None, exact=False)
        return _Resolved(root, access.mode, access.start, access.end, size)

    def _disjoint(self, a: _Resolved, b: _Resolved) -> bool:
        """True only when the two byte ranges provably share no byte."""
        for lo, hi in ((a.start, a.end), (b.start, b.end)):
            clo, chi = self._const(lo if lo is not None else 0), self._const(hi)
            if lo is not None and hi is not None and (lo is hi or (clo is not None and clo == chi)):
                return True  # an empty range
        if a.end is not None and a.end is b.start:
            return True
        if b.end is not None and b.end is a.start:
            return True
        a_end, b_end = self._const(a.end), self._const(b.end)
        a_start, b_start = self._const(a.start if a.start is not None else 0), self._const(b.start if b.start is not None else 0)
        if a_end is not None and b_start is not None and a_end <= b_start:
            return True
        if b_end is not None and a_start is not None and b_end <= a_start:
            return True
        return False

    def _conflict(self, a: _Resolved, b: _Resolved) -> bool:
        return a.root is b.root and bool((a.mode | b.mode) & Mode.WRITE) and not self._disjoint(a, b)

    def _covers_all(self, a: _Resolved) -> bool:
        """A write of every byte of its root (its value is the root's whole storage)."""
        if not a.exact or not a.mode & Mode.WRITE or self._const(a.start if a.start is not None else 0) != 0:
            return False
        if a.end is None:
            return True
        if a.size is None:
            return False
        if a.end is a.size:
            return True
        end, size = self._const(a.end), self._const(a.size)
        return end is not None and end == size

    # -- queries -------------------------------------------------------------------------------
    def resolved(self, op: Op) -> list[_Resolved]:
        """The op's accesses with their roots (computed once per op)."""
        cached = self._accesses.get(op)
        if cached is None:
            cached = self._accesses[op] = [self._resolve(a) for a in op_accesses(op)]
        return cached

    def conflicts(self, a: Op, b: Op) -> bool:
        """Whether two ops (in either order) make conflicting accesses."""
        return any(self._conflict(x, y) for x in self.resolved(a) for y in self.resolved(b))

    def roots_of(self, op: Op) -> set[Value]:
        """The roots an op touches."""
        return {a.root for a in self.resolved(op)}

    def conflicting_roots(self, a: Op, b: Op) -> set[Value]:
        """The roots on which the two ops make conflicting accesses."""
        return {x.root for x in self.resolved(a) for y in self.resolved(b) if self._conflict(x, y)}

    def edges(self, units: Sequence[Iterable[Op]]) -> list[tuple[int, int]]:
        """Ordering edges `(i, j)`, `i < j`, between units of a sequence (a unit is a group of ops
        that acts as one, e.g. a top-level op with its nested ops) whose accesses conflict.

        Not every conflicting pair gets an edge: after a write that covers a whole root, earlier
        accesses to that root are ordered before later ones through the write, so they are
        forgotten. Every conflicting pair is therefore ordered by a path of edges."""
        edges: set[tuple[int, int]] = set()
        reads: dict[Value, list[tuple[int, _Resolved]]] = {}
        writes: dict[Value, list[tuple[int, _Resolved]]] = {}
        for j, unit in enumerate(units):
            mine = [a for op in unit for a in self.resolved(op)]
            for a in mine:
                prior = writes.get(a.root, [])
                if a.mode & Mode.WRITE:
                    prior = prior + reads.get(a.root, [])
                for i, p in prior:
                    if i != j and self._conflict(p, a):
                        edges.add((i, j))
            for a in mine:
                if self._covers_all(a):
                    writes[a.root] = [(j, a)]
                    reads[a.root] = []
                elif a.mode & Mode.WRITE:
                    writes.setdefault(a.root, []).append((j, a))
                else:
                    reads.setdefault(a.root, []).append((j, a))
        return sorted(edges)

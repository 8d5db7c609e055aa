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
* `op_accesses(op)` lists an op's accesses `(value, [start, end), R | W | RW)` from the accesses
  its spec declares (`OpSpec.accesses`: async ops, regions as a whole, host ops); an op that
  declares none reads and writes every resource operand it takes, as SPEC section 2.2 requires for
  unknown ops. Untied resource results that alias no operand are writes of fresh storage.
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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from stream.analysis.resource_sizes import resource_sizes
from stream.ir.core import Block, Op, Value
from stream.ir.interfaces import alias_pairs, bound_accesses
from stream.ir.spec import spec_of
from stream.ir.types import ResourceType
from stream.ir.walk import constant_int, defining_ops

__all__ = [
    "Mode",
    "Access",
    "StorageAliases",
    "HazardAnalysis",
    "op_accesses",
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


_MODES = {"read": Mode.READ, "write": Mode.WRITE, "read_write": Mode.READ_WRITE, "discard": Mode.WRITE,
          "touch": Mode.READ_WRITE}  # a cache flush: ordered like a write, to be safe


def op_accesses(op: Op) -> list[Access]:
    """The accesses `op` makes (see the module docstring), from its spec's `accesses`: an access
    with an offset and an end is that range, any other covers the whole resource."""
    spec = spec_of(op)
    declared = bound_accesses(spec, op) if spec is not None else None
    if declared is None:
        # Unknown (or unmodelled) ops read and write every resource they take.
        out = [Access.whole(v, Mode.READ_WRITE) for v in op.operands if isinstance(v.type, ResourceType)]
    else:
        out = [Access(b.value, _MODES[b.mode], b.offset, b.end) if b.offset is not None and b.end is not None
               else Access.whole(b.value, _MODES[b.mode]) for b in declared]
    if not op.results:
        return out
    aliased = {r for _o, r, _a in alias_pairs(spec, op)} if spec is not None else set()
    for i, r in enumerate(op.results):
        if isinstance(r.type, ResourceType) and i not in aliased and (spec is None or spec.tied_operand(op, i) is None):
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
        if spec is None:
            return
        # A result aliasing an operand is its storage (a window of it, inexactly, for a subview);
        # a tied result is its operand's storage, written in place.
        aliased: set[int] = set()
        for oi, ri, alias in alias_pairs(spec, op):
            if isinstance(op.results[ri].type, ResourceType):
                self.parent[op.results[ri]] = (op.operands[oi], alias.offset is None)
                aliased.add(ri)
        if spec.ties is None:
            return
        for i, r in enumerate(op.results):
            if not isinstance(r.type, ResourceType) or i in aliased:
                continue
            index = spec.tied_operand(op, i)
            if index is not None:
                self.parent[r] = (op.operands[index], True)

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

"""TimepointCoverage: which timepoints are certainly reached when another one is.

`cov(t)` is the set of timepoints guaranteed reached whenever `t` is reached. It is computed over
one straight-line block (the passes refuse multi-block functions and `scf`), in program order,
from these rules (SPEC section 3.1):

* a timeline op's result timepoint (`cmd.execute`, `async.execute`, `resource.alloca`,
  `resource.dealloca`, `resource.constants`) covers itself, everything its `await` covers, and everything the host had
  awaited before the op was issued: `reach(a) <= await(host) <= issue(op) <= start(op) <
  end(op) <= reach(result)`;
* `timepoint.join` covers itself and the union of its inputs' coverage (it is reached once all of
  them are);
* `arith.select` of two timepoints covers itself and the **intersection** of the two sides: only
  what both alternatives guarantee (IREE takes the union here, which is unsound);
* `timepoint.immediate`, and joins and selects of immediates, are immediate: reached before
  anything, so every timepoint covers them;
* anything else that yields a timepoint (function arguments, `timepoint.import`, calls, unknown
  ops, `timepoint.barrier`, whose timepoint says when *this version* of a resource is available
  and carries no known order) covers only itself.

Host awaits count as coverage (IREE #9747): once `stream.timepoint.await %t` has run, every op
issued later starts after `%t` and everything `%t` covers. `host_covered(i, t)` answers whether
`t` is reached before the op at position `i` of the block is issued.

Soundness: every rule is an HB edge chain of SPEC section 3.1, so `b in cov(a)` implies
`reach(b) <= reach(a)` on every execution; the analysis never needs FIFO queues.

Representation: the timepoints are split into *chains* as they are defined: a timepoint that
covers the current last element of some chain extends that chain, any other starts a new one. Along a chain each element covers the previous one, so what a
timepoint covers of a chain is always a prefix, and `cov(t)` is stored as one number per chain
(the last covered index; absent chains are not covered). Union is the per-chain maximum,
intersection the per-chain minimum, and the sets stay as small as the number of chains a
timepoint actually reaches (a few per device on pipelines), instead of one bit per timepoint.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from stream.ir.core import Block, Op, Value
from stream.ir.spec import spec_of
from stream.ir.types import TimepointType

__all__ = ["TimepointCoverage", "awaited_timepoints", "AWAIT_HOLDERS"]

# Timeline ops whose result timepoint is reached only after their `await_timepoint` and after
# their issue by the host.
AWAIT_HOLDERS = frozenset(
    {
        "stream.cmd.execute",
        "stream.async.execute",
        "stream.resource.alloca",
        "stream.resource.dealloca",
    }
)


def awaited_timepoints(op: Op) -> tuple[Value, ...]:
    """The timepoints an op waits for before it starts (empty for ops that do not wait)."""
    if op.name == "stream.timepoint.join":
        return op.operands
    if op.name in AWAIT_HOLDERS or op.name == "stream.timepoint.await":
        spec = spec_of(op)
        assert spec is not None
        return spec.operand_group(op, "await_timepoint")
    return ()


def _is_timepoint(v: Value) -> bool:
    return isinstance(v.type, TimepointType)


Chains = dict[int, int]  # chain id -> index of the last element covered


def _union(a: Chains, b: Chains) -> Chains:
    if len(a) < len(b):
        a, b = b, a
    out = dict(a)
    for chain, index in b.items():
        if out.get(chain, -1) < index:
            out[chain] = index
    return out


def _intersection(a: Chains, b: Chains) -> Chains:
    return {chain: min(index, b[chain]) for chain, index in a.items() if chain in b}


@dataclass(slots=True)
class TimepointCoverage:
    """Coverage facts for the timepoints of one block (see the module docstring)."""

    block: Block
    # (chain, index in the chain) of every timepoint value defined or used in the block.
    place: dict[Value, tuple[int, int]] = field(default_factory=dict)
    # cov(t) for every timepoint value: the covered prefix of each chain it reaches.
    cov: dict[Value, Chains] = field(default_factory=dict)
    immediate: set[Value] = field(default_factory=set)
    position: dict[Op, int] = field(default_factory=dict)
    # What the host has seen reached: (position of the op after a host await, coverage), in order.
    _host: list[tuple[int, Chains]] = field(default_factory=list)
    _chain_ends: list[int] = field(default_factory=list)  # chain id -> index of its last element
    _order: dict[Value, int] = field(default_factory=dict)  # definition order of each timepoint

    @staticmethod
    def of(block: Block) -> TimepointCoverage:
        c = TimepointCoverage(block)
        c._build()
        return c

    # -- queries -------------------------------------------------------------------------------
    def covers(self, a: Value, b: Value) -> bool:
        """True when `b` is certainly reached whenever `a` is (immediates are covered by all)."""
        if b in self.immediate:
            return True
        place = self.place.get(b)
        return place is not None and self._cov(a).get(place[0], -1) >= place[1]

    def host_covered(self, position: int, t: Value) -> bool:
        """True when `t` is reached before the op at `position` is issued (by a host await
        earlier in the block, or because `t` is immediate)."""
        if t in self.immediate:
            return True
        place = self.place.get(t)
        if place is None:
            return False
        return self._host_at(position).get(place[0], -1) >= place[1]

    def roots(self, candidates: Sequence[Value], position: int | None = None) -> list[Value]:
        """The candidates no other candidate (nor the host, before `position`) covers, in
        their original order, without duplicates and immediates: awaiting exactly these waits
        for everything awaiting all candidates would."""
        unique = [t for t in dict.fromkeys(candidates) if t not in self.immediate]
        for t in unique:
            self._cov(t)  # timepoints from outside the block get their place
        # A timepoint is only covered by timepoints defined after it, so walking the candidates
        # from the latest to the earliest with the union of what the later ones cover decides
        # each in one lookup (asking every other candidate was quadratic for the host await at
        # the end of a long program).
        covered: set[Value] = set()
        later: Chains = {}
        for t in sorted(unique, key=self._order.__getitem__, reverse=True):
            chain, index = self.place[t]
            if later.get(chain, -1) >= index:
                covered.add(t)
            for c, i in self.cov[t].items():
                if later.get(c, -1) < i:
                    later[c] = i
        return [t for t in unique if t not in covered and not (position is not None and self.host_covered(position, t))]

    # -- construction --------------------------------------------------------------------------
    def _host_at(self, position: int) -> Chains:
        """Host coverage before the op at `position` is issued (the snapshots are in order)."""
        i = bisect_right(self._host, position, key=lambda entry: entry[0])
        return self._host[i - 1][1] if i else {}

    def _cov(self, v: Value) -> Chains:
        found = self.cov.get(v)
        if found is None:
            # A timepoint from outside the block (an argument): it covers itself only.
            self._define(v, {}, ())
            found = self.cov[v]
        return found

    def _define(self, v: Value, covered: Chains, extends: Sequence[Value], immediate: bool = False) -> None:
        """Give `v` a place at the end of a chain whose last element it covers (preferably the
        chain of one of `extends`, which it covers directly), or at the start of a new chain.
        Extending any covered chain end (first fit), not only direct predecessors', keeps the
        number of chains near the width of the timeline instead of growing with its length."""
        chain = -1
        for p in extends:
            place = self.place.get(p)
            if place is not None and self._chain_ends[place[0]] == place[1]:
                chain = place[0]
                break
        else:
            for c, index in covered.items():
                if self._chain_ends[c] == index:
                    chain = c
                    break
        if chain >= 0:
            index = self._chain_ends[chain] + 1
            self._chain_ends[chain] = index
        else:
            chain, index = len(self._chain_ends), 0
            self._chain_ends.append(0)
        self.place[v] = (chain, index)
        self._order[v] = len(self._order)
        own = dict(covered)
        own[chain] = index
        self.cov[v] = own
        if immediate:
            self.immediate.add(v)

    def _build(self) -> None:
        for arg in self.block.arguments:
            if _is_timepoint(arg):
                self._define(arg, {}, ())
        seen: Chains = {}
        for i, op in enumerate(self.block.ops):
            self.position[op] = i
            rule = _RULES.get(op.name, _opaque)
            rule(self, op, seen)
            if op.name == "stream.timepoint.await":
                for t in awaited_timepoints(op):
                    seen = _union(seen, self._cov(t))
                self._host.append((i + 1, seen))

    def union_of(self, values: Iterable[Value]) -> Chains:
        out: Chains = {}
        for v in values:
            out = _union(out, self._cov(v))
        return out


def _timeline(c: TimepointCoverage, op: Op, host: Chains) -> None:
    waits = awaited_timepoints(op)
    covered = _union(c.union_of(waits), host)
    for r in op.results:
        if _is_timepoint(r):
            c._define(r, covered, waits)


def _join(c: TimepointCoverage, op: Op, host: Chains) -> None:
    inputs = op.operands
    c._define(op.results[0], c.union_of(inputs), inputs, immediate=all(v in c.immediate for v in inputs))


def _immediate(c: TimepointCoverage, op: Op, host: Chains) -> None:
    c._define(op.results[0], {}, (), immediate=True)


def _select(c: TimepointCoverage, op: Op, host: Chains) -> None:
    result = op.results[0]
    if not _is_timepoint(result):
        return
    _cond, a, b = op.operands
    # Only what both alternatives guarantee: the intersection, never the union. A select
    # covers neither side, so it never extends their chains.
    c._define(result, _intersection(c._cov(a), c._cov(b)), (), immediate=a in c.immediate and b in c.immediate)


def _opaque(c: TimepointCoverage, op: Op, host: Chains) -> None:
    for r in op.results:
        if _is_timepoint(r):
            c._define(r, {}, ())


_RULES: dict[str, Callable[[TimepointCoverage, Op, Chains], None]] = {
    **dict.fromkeys(AWAIT_HOLDERS, _timeline),
    # An upload is a device op too: issued in program order, so it starts after host awaits.
    "stream.resource.constants": _timeline,
    "stream.timepoint.join": _join,
    "stream.timepoint.immediate": _immediate,
    "arith.select": _select,
}

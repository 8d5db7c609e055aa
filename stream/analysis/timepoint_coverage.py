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
`reach(b) <= reach(a)` on every execution; the analysis never needs FIFO queues. Coverage sets are
bitsets (Python ints) indexed by the order in which timepoints are defined.
"""

from __future__ import annotations

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


@dataclass(slots=True)
class TimepointCoverage:
    """Coverage facts for the timepoints of one block (see the module docstring)."""

    block: Block
    # Bit index of each timepoint value defined or used in the block.
    index: dict[Value, int] = field(default_factory=dict)
    # cov(t) as a bitset (bit index(t) included) for every timepoint value.
    cov: dict[Value, int] = field(default_factory=dict)
    immediate: set[Value] = field(default_factory=set)
    # host[i]: bitset of timepoints the host has certainly seen reached before op i is issued.
    host: list[int] = field(default_factory=list)
    position: dict[Op, int] = field(default_factory=dict)

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
        bit = self.index.get(b)
        return bit is not None and bool(self._cov(a) >> bit & 1)

    def host_covered(self, position: int, t: Value) -> bool:
        """True when `t` is reached before the op at `position` is issued (by a host await
        earlier in the block, or because `t` is immediate)."""
        if t in self.immediate:
            return True
        bit = self.index.get(t)
        if bit is None or position >= len(self.host):
            return False
        return bool(self.host[position] >> bit & 1)

    def covered_set(self, t: Value) -> int:
        return self._cov(t)

    def roots(self, candidates: Sequence[Value], position: int | None = None) -> list[Value]:
        """The candidates no other candidate (nor the host, before `position`) covers, in
        their original order, without duplicates and immediates: awaiting exactly these waits
        for everything awaiting all candidates would."""
        unique: list[Value] = []
        for t in candidates:
            if t not in unique and t not in self.immediate:
                unique.append(t)
        kept: list[Value] = []
        for t in unique:
            if position is not None and self.host_covered(position, t):
                continue
            if any(o is not t and self.covers(o, t) for o in unique):
                continue
            kept.append(t)
        return kept

    # -- construction --------------------------------------------------------------------------
    def _bit(self, v: Value) -> int:
        bit = self.index.get(v)
        if bit is None:
            bit = len(self.index)
            self.index[v] = bit
        return bit

    def _cov(self, v: Value) -> int:
        found = self.cov.get(v)
        if found is None:
            # A timepoint from outside the block (an argument): it covers itself only.
            found = 1 << self._bit(v)
            self.cov[v] = found
        return found

    def _build(self) -> None:
        for arg in self.block.arguments:
            if _is_timepoint(arg):
                self.cov[arg] = 1 << self._bit(arg)
        seen = 0
        for i, op in enumerate(self.block.ops):
            self.position[op] = i
            self.host.append(seen)
            rule = _RULES.get(op.name, _opaque)
            rule(self, op, seen)
            if op.name == "stream.timepoint.await":
                for t in awaited_timepoints(op):
                    seen |= self._cov(t)
        self.host.append(seen)

    def _define(self, v: Value, bits: int, immediate: bool = False) -> None:
        self.cov[v] = bits | (1 << self._bit(v))
        if immediate:
            self.immediate.add(v)

    def union_of(self, values: Iterable[Value]) -> int:
        bits = 0
        for v in values:
            bits |= self._cov(v)
        return bits


def _timeline(c: TimepointCoverage, op: Op, host: int) -> None:
    awaited = c.union_of(awaited_timepoints(op))
    for r in op.results:
        if _is_timepoint(r):
            c._define(r, awaited | host)


def _join(c: TimepointCoverage, op: Op, host: int) -> None:
    inputs = op.operands
    c._define(op.results[0], c.union_of(inputs), immediate=all(v in c.immediate for v in inputs))


def _immediate(c: TimepointCoverage, op: Op, host: int) -> None:
    c._define(op.results[0], 0, immediate=True)


def _select(c: TimepointCoverage, op: Op, host: int) -> None:
    result = op.results[0]
    if not _is_timepoint(result):
        return
    _cond, a, b = op.operands
    # Only what both alternatives guarantee: the intersection, never the union.
    c._define(result, c._cov(a) & c._cov(b), immediate=a in c.immediate and b in c.immediate)


def _opaque(c: TimepointCoverage, op: Op, host: int) -> None:
    for r in op.results:
        if _is_timepoint(r):
            c._define(r, 0)


_RULES: dict[str, Callable[[TimepointCoverage, Op, int], None]] = {
    **dict.fromkeys(AWAIT_HOLDERS, _timeline),
    # An upload is a device op too: issued in program order, so it starts after host awaits.
    "stream.resource.constants": _timeline,
    "stream.timepoint.join": _join,
    "stream.timepoint.immediate": _immediate,
    "arith.select": _select,
}

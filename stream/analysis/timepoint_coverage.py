"""TimepointCoverage: which timepoints are certainly reached when another one is.

`cov(t)` is the set of timepoints guaranteed reached whenever `t` is reached. It is computed over
one straight-line sequence of ops (elide-timepoints builds one per block from the ops that ran on every
path to it: `stream.passes.elide_timepoints`), in program order,
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
  ops) covers only itself; a `timepoint.barrier` (whose timepoint says when *this version* of a
  resource is available) covers only itself and what its resource carries (below).

Host awaits count as coverage (IREE #9747), where they really order the host. An await is a pure
op (`stream.dialect.awaits`): it orders the host from its first *host* consumer on (the first op
using one of its results, or a value derived from them, that is neither a timeline op nor a pure
host op such as an export), and every op
issued after that consumer starts after `%t` and everything `%t` covers; an await marked `sync`
orders the host from itself on. A timeline op using an awaited value also waits for what the
value carries (it starts after those timepoints), and a `timepoint.barrier` of an awaited value
covers what it carries. An await nothing uses covers nothing. `host_covered(i, t)` answers
whether `t` is reached before the op at position `i` of the block is issued.

Soundness: every rule is an HB edge chain of SPEC section 3.1, so `b in cov(a)` implies
`reach(b) <= reach(a)` on every execution; the analysis never needs FIFO queues.

Representation: each `cov(t)` is stored as a sorted list of intervals of node *numbers*, where
the numbering is the postorder of a *cover tree*. Every timepoint picks one parent among the
timeline ops and joins that wait on it directly (a select is never a parent: it does not cover
its sides); the parent is the one with the longest path of such waits after it (ties: the
earliest), so that the tree follows the timeline's long-lived spine and short side branches (a
free and the join of its last uses, awaited only by the function's final join) hang off it
instead of carrying it away. In postorder each subtree is one interval of numbers.

Why the stored sets are exactly the rule-defined `cov` (no more, no less):

* the numbering is a bijection between the block's timepoints and `0..n-1`, so a set of
  timepoints and its set of numbers determine each other;
* a tree edge `p -> parent` is a direct wait of a timeline op or join, for which the rules give
  `cov(parent) ⊇ cov(p)`; by induction every timepoint of `subtree(t)` is in `cov(t)`, so adding
  the subtree's interval to `cov(t)` adds nothing the rules do not already put there;
* `cov(t)` is then computed in program order from its rule: the union of the subtree interval and
  of the (already exact) lists of what it waits for and what the host has awaited, or for a
  select the intersection of its sides' lists plus its own number. Union and intersection of
  sorted, merged interval lists are exact set operations.

So `covers(a, b)` is one binary search for `b`'s number in `a`'s list. What the tree buys is
size: `cov(t)` is mostly `t`'s own subtree, and measured on the 10k-dispatch bench program the
lists hold 1.8 intervals per timepoint on average (the earlier chain decomposition held one entry
per chain reached, 970 per timepoint there, because every side branch that took over a chain left
the spine to start another one that every later timepoint reached).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from stream.dialect.awaits import PURE_HOST_USERS, Gates, is_sync_await
from stream.ir.core import Block, Op, Value
from stream.ir.interfaces import awaits_group
from stream.ir.rule_table import OpSet, Requirement, awaits_and_signals, queue_timeline
from stream.ir.spec import OpSpec, spec_of
from stream.ir.spec_registry import registered_names
from stream.ir.types import TimepointType

__all__ = ["TimepointCoverage", "awaited_timepoints", "AWAIT_HOLDERS"]

# Timeline ops whose result timepoint is reached only after their `await_timepoint` and after
# their issue by the host.
# Derived from the ops' `Timeline` interfaces (`awaits_and_signals`).
AWAIT_HOLDERS = OpSet(
    "AWAIT_HOLDERS",
    "Timeline ops whose result timepoint is reached only after their `await_timepoint` and after their issue by the host.",
    (n for n in registered_names() if awaits_and_signals(spec_of(n))),
    requires=Requirement(where=awaits_and_signals),
)

# Ops whose timepoint results follow the timeline rule. An upload is a device op too: issued in
# program order, so it starts after host awaits.
_TIMELINE = OpSet(
    "_TIMELINE",
    "Ops whose timepoint results follow the timeline rule: the await holders, and uploads (device ops issued in program order).",
    (n for n in registered_names() if queue_timeline(spec_of(n))),  # AWAIT_HOLDERS and resource.constants
    requires=Requirement(where=queue_timeline),
)


def awaited_timepoints(op: Op) -> tuple[Value, ...]:
    """The timepoints an op waits for before it starts (its `Timeline` interface's awaited
    group; empty for ops that do not wait)."""
    spec, group = _awaiting(op.name)
    return spec.operand_group(op, group) if spec is not None and group is not None else ()


@cache
def _awaiting(name: str) -> tuple[OpSpec | None, str | None]:
    """The spec of the op and its awaited group, looked up once per op name."""
    spec = spec_of(name)
    return spec, awaits_group(spec)


def _is_timepoint(v: Value) -> bool:
    return isinstance(v.type, TimepointType)


# A set of node numbers as sorted, merged, half-open intervals flattened into one list:
# [start0, end0, start1, end1, ...] with end_k < start_{k+1}. A number x is in the set iff
# bisect_right(spans, x) is odd.
Spans = list[int]


def _union(a: Spans, b: Spans) -> Spans:
    if not b or a is b:
        return a
    if not a:
        return b
    if len(b) == 2:  # the common case: one interval, often inside `a` already
        i = bisect_right(a, b[0])
        if i & 1 and b[1] <= a[i]:
            return a
    out: Spans = []
    i = j = 0
    na, nb = len(a), len(b)
    while i < na or j < nb:
        if j >= nb or (i < na and a[i] <= b[j]):
            s, e = a[i], a[i + 1]
            i += 2
        else:
            s, e = b[j], b[j + 1]
            j += 2
        if out and s <= out[-1]:  # overlapping or adjacent: merge
            if e > out[-1]:
                out[-1] = e
        else:
            out += (s, e)
    return out


def _intersection(a: Spans, b: Spans) -> Spans:
    out: Spans = []
    i = j = 0
    while i < len(a) and j < len(b):
        s, e = max(a[i], b[j]), min(a[i + 1], b[j + 1])
        if s < e:
            if out and out[-1] == s:
                out[-1] = e
            else:
                out += (s, e)
        if a[i + 1] < b[j + 1]:
            i += 2
        else:
            j += 2
    return out


@dataclass(slots=True)
class _Node:
    """One timepoint while the coverage is built (see `_Builder`)."""

    value: Value
    waits: list[int]  # nodes it directly covers by the rules (tree edges may only be these)
    host: int = -1  # host snapshot it was issued after (timeline ops), -1 for none
    select: tuple[int, int] | None = None


@dataclass(slots=True)
class TimepointCoverage:
    """Coverage facts for the timepoints of one block (see the module docstring)."""

    block: Block
    immediate: set[Value] = field(default_factory=set)
    position: dict[Op, int] = field(default_factory=dict)
    # Postorder number in the cover tree of every timepoint value defined or used in the block.
    number: dict[Value, int] = field(default_factory=dict)
    # cov(t) for every timepoint value, as spans of numbers.
    spans: dict[Value, Spans] = field(default_factory=dict)
    # What the host has seen reached after each host await, in order: the position of the op
    # after the await, and the spans of everything awaited so far.
    _host_positions: list[int] = field(default_factory=list)
    _host_spans: list[Spans] = field(default_factory=list)
    _next_number: int = 0  # the number a timepoint from outside the block gets
    # Per op: the awaited timepoints its resource operands carry (stream.dialect.awaits), which
    # the op is ordered after without waiting for them itself.
    carried: dict[Op, tuple[Value, ...]] = field(default_factory=dict)

    @staticmethod
    def of(block: Block) -> TimepointCoverage:
        c = TimepointCoverage(block)
        _Builder(c).build()
        return c

    # -- queries -------------------------------------------------------------------------------
    def covers(self, a: Value, b: Value) -> bool:
        """True when `b` is certainly reached whenever `a` is (immediates are covered by all)."""
        if b in self.immediate:
            return True
        spans = self.spans.get(a)
        if spans is None:
            spans = self._spans(a)
        x = self.number.get(b)
        return x is not None and bisect_right(spans, x) & 1 == 1

    def host_covered(self, position: int, t: Value) -> bool:
        """True when `t` is reached before the op at `position` is issued (by a host await
        earlier in the block, or because `t` is immediate)."""
        if t in self.immediate:
            return True
        if not self._host_positions:
            return False
        x = self.number.get(t)
        return x is not None and bisect_right(self._host_at(position), x) & 1 == 1

    def roots(self, candidates: Sequence[Value], position: int | None = None, waited: Sequence[Value] = ()) -> list[Value]:
        """The candidates no other candidate (nor the host, before `position`, nor any of the
        timepoints `waited` the op is ordered after anyway) covers, in their original order,
        without duplicates and immediates: awaiting exactly these waits for everything awaiting
        all candidates would."""
        unique = [t for t in dict.fromkeys(candidates) if t not in self.immediate and not any(self.covers(w, t) for w in waited)]
        n = len(unique)
        lists = [self._spans(t) for t in unique]  # timepoints from outside the block get a number
        numbers = [self.number[t] for t in unique]
        if n <= 12:  # the common case (a few waits): ask each pair
            covered = [False] * n
            for i, x in enumerate(numbers):
                for j, spans in enumerate(lists):
                    if j != i and bisect_right(spans, x) & 1:
                        covered[i] = True
                        break
        else:
            # Every candidate's own list holds its number once, so a candidate is covered by
            # another one exactly when two or more lists hold its number. Counting by sorted
            # interval bounds decides all of them in one sort (pairwise was quadratic for the
            # final await of long programs).
            starts: list[int] = []
            ends: list[int] = []
            for spans in lists:
                starts += spans[0::2]
                ends += spans[1::2]
            starts.sort()
            ends.sort()
            covered = [bisect_right(starts, x) - bisect_right(ends, x) >= 2 for x in numbers]
        host = self._host_at(position) if position is not None and self._host_positions else None
        return [t for t, c, x in zip(unique, covered, numbers) if not c and not (host and bisect_right(host, x) & 1)]

    # -- helpers -------------------------------------------------------------------------------
    def _host_at(self, position: int) -> Spans:
        """Host coverage before the op at `position` is issued (the snapshots are in order)."""
        i = bisect_right(self._host_positions, position)
        return self._host_spans[i - 1] if i else []

    def _spans(self, v: Value) -> Spans:
        """`cov(v)` (numbering a timepoint from outside the block first)."""
        found = self.spans.get(v)
        if found is None:
            # A timepoint from outside the block (an argument of nothing we saw): it covers
            # itself only, under a number past the block's.
            x = self._next_number
            self._next_number = x + 1
            self.number[v] = x
            found = self.spans[v] = [x, x + 1]
        return found


class _Builder:
    """Builds a `TimepointCoverage` in four linear passes over the block's timepoints:
    collect the nodes and their rule edges; choose tree parents (longest onward path, from the
    last node back); number the tree in postorder; compute the spans in program order."""

    def __init__(self, c: TimepointCoverage) -> None:
        self.c = c
        self.nodes: list[_Node] = []
        self.index: dict[Value, int] = {}
        # Host awaits: (position of the op after it, nodes awaited, number of nodes before it).
        self.host_awaits: list[tuple[int, list[int], int]] = []

    def node(self, v: Value, waits: list[int] | None = None) -> int:
        i = len(self.nodes)
        self.nodes.append(_Node(v, waits or []))
        self.index[v] = i
        return i

    def ref(self, v: Value) -> int:
        """The node of a timepoint an op reads (one from outside the block covers itself)."""
        i = self.index.get(v)
        return self.node(v) if i is None else i

    def build(self) -> None:
        self.collect()
        parents = self.parents()
        starts, ends = self.number(parents)
        self.compute_spans(starts, ends)

    def collect(self) -> None:
        c = self.c
        for arg in c.block.arguments:
            if _is_timepoint(arg):
                self.node(arg)
        hosts = 0
        gates = Gates()
        for i, op in enumerate(c.block.ops):
            c.position[op] = i
            name = op.name
            carried = gates.step(op)  # awaited timepoints the op's uses are ordered after
            if name == "stream.timepoint.await":
                c.carried[op] = tuple(gates.of(op.operands))  # its results are ordered after these anyway
            elif carried:
                c.carried[op] = tuple(carried)
            if carried and name not in _TIMELINE and name not in PURE_HOST_USERS:  # the host waits here
                self.host_awaits.append((i + 1, [self.ref(t) for t in carried], len(self.nodes)))
                hosts += 1
            if name in _TIMELINE:
                waits = [self.ref(t) for t in (*awaited_timepoints(op), *carried)]
                for r in op.results:
                    if _is_timepoint(r):
                        self.nodes[self.node(r, list(waits))].host = hosts - 1
            elif name == "stream.timepoint.join":
                inputs = [self.ref(t) for t in op.operands]
                result = op.results[0]
                self.node(result, inputs)
                if all(v in c.immediate for v in op.operands):
                    c.immediate.add(result)
            elif name == "stream.timepoint.immediate":
                self.node(op.results[0])
                c.immediate.add(op.results[0])
            elif name == "arith.select":
                if not _is_timepoint(op.results[0]):
                    continue
                _cond, a, b = op.operands
                sides = (self.ref(a), self.ref(b))
                self.nodes[self.node(op.results[0])].select = sides
                if a in c.immediate and b in c.immediate:
                    c.immediate.add(op.results[0])
            elif name == "stream.timepoint.barrier":
                # Reached once what its resource carries is (IREE's ChainTimepoints).
                self.node(op.results[-1], [self.ref(t) for t in gates.barrier_carried(op)])
            else:
                for r in op.results:
                    if _is_timepoint(r):
                        self.node(r)
                if is_sync_await(op):  # a blocking host wait: orders everything after it
                    awaited = [self.ref(t) for t in awaited_timepoints(op)]
                    self.host_awaits.append((i + 1, awaited, len(self.nodes)))
                    hosts += 1

    def parents(self) -> list[int]:
        """Each node's tree parent: of the nodes waiting on it directly, the one with the longest
        path of direct waits after it, the earliest among equals (-1 for none)."""
        n = len(self.nodes)
        height = [0] * n
        parent = [-1] * n
        best = [-1] * n
        for i in range(n - 1, -1, -1):  # a node's waiters come after it: their heights are final
            h = height[i]
            for p in self.nodes[i].waits:
                if h >= best[p]:  # `>=`: walking back, a later tie yields to the earlier waiter
                    best[p], parent[p] = h, i
                    height[p] = h + 1
        return parent

    def number(self, parent: list[int]) -> tuple[list[int], list[int]]:
        """Postorder ranges `[start, end)` of every subtree (the node itself is `end - 1`):
        subtree sizes forward, then ranges from the last node back, earlier roots and children
        getting lower numbers."""
        n = len(self.nodes)
        size = [1] * n
        for i in range(n):
            if parent[i] >= 0:
                size[parent[i]] += size[i]
        starts, ends, cursor = [0] * n, [0] * n, [0] * n
        top = n
        for i in range(n - 1, -1, -1):
            p = parent[i]
            if p < 0:
                end, top = top, top - size[i]
            else:
                end = cursor[p]
                cursor[p] = end - size[i]
            ends[i], starts[i] = end, end - size[i]
            cursor[i] = end - 1
        return starts, ends

    def compute_spans(self, starts: list[int], ends: list[int]) -> None:
        c = self.c
        spans: list[Spans] = []

        def await_on_host(position: int, awaited: list[int]) -> None:
            seen = c._host_spans[-1] if c._host_spans else []
            for t in awaited:
                seen = _union(seen, spans[t])
            c._host_positions.append(position)
            c._host_spans.append(seen)

        pending = self.host_awaits[::-1]
        for i, node in enumerate(self.nodes):
            while pending and pending[-1][2] <= i:  # host awaits issued before this timepoint
                position, awaited, _ = pending.pop()
                await_on_host(position, awaited)
            own: Spans = [starts[i], ends[i]]
            if node.select is not None:
                a, b = node.select
                own = _union(_intersection(spans[a], spans[b]), [ends[i] - 1, ends[i]])
            else:
                for p in node.waits:
                    own = _union(own, spans[p])
                if node.host >= 0:
                    own = _union(own, c._host_spans[node.host])
            spans.append(own)
        while pending:  # host awaits after the last timepoint
            position, awaited, _ = pending.pop()
            await_on_host(position, awaited)
        for node, s, e in zip(self.nodes, spans, ends):
            c.number[node.value] = e - 1
            c.spans[node.value] = s
        c._next_number = len(self.nodes)

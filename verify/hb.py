"""Exact happens-before: `before(a, b)` iff the event graph has a path from a's end to b's start.

How it decides, and why that is exact (this is the soundness argument of every proof that says
"proved by reachability"):

1. **Units.** The event graph groups events into units (`verify.events`): a host op, an issue,
   a reach event, or a device op with everything nested in it. `check_collapse` verifies, for
   every edge between two different units, that it leaves its unit by the unit's exit event and
   enters the other by its entry event. Inside a device unit every event is reachable from the
   entry and reaches the exit (region bodies are built that way: serial bodies chain their
   children from start to end, concurrent ones fan out from start and in to end). Hence for
   sites `a` in unit `U` and `b` in unit `V != U`: a path end(a) → start(b) exists iff a path
   exit(U) → entry(V) exists, i.e. iff `U` reaches `V` in the *unit graph* (a path must leave U
   through its exit and enter V through its entry; conversely end(a) reaches exit(U) and
   entry(V) reaches start(b)). No path can leave a unit and come back (that would be a cycle,
   reported as DEADLOCK before anything is proved).
2. **Inside one unit** the order is the region structure (series-parallel): with `path` the
   positions of the two sites in their nested containers, let `i` be the first depth where
   they differ; the sites are ordered iff the container at depth `i` is serial, in the order of
   their positions there. A concurrent container fans its children out from its start and in to
   its end, so no path joins two of its children; a serial one chains them in block order.
3. **Unit reachability** uses vector clocks over a chain cover of the unit graph (a chain is a
   set of units totally ordered by the graph, so one column per chain suffices):
   `U reaches V (U != V) iff VC[V][chain(U)] >= pos(U)`, where `VC[V][c]` is the highest position
   on chain `c` among V and its ancestors. This is exact for a DAG (TSan's vector clocks, applied
   to the whole program rather than one run). Only units with two or more successors need a
   column: a unit with exactly one successor `S` reaches `V` iff `V` is `S` or `S` reaches `V`
   (every path from it starts with that edge), so a query walks such units forward to the first
   unit with another out-degree (one with no successor reaches nothing). Queue-ordered
   allocations and joins, which would otherwise form wide antichains, have one successor each,
   which keeps the cover about as wide as the number of concurrent device streams. Chains are
   built in topological order: a unit's clock (its ancestors' highest position per chain) is
   known before it joins a chain, and it joins the closest chain whose last unit is among its
   ancestors, so every chain stays totally ordered. When the cover is still too wide for the
   memory budget, `before` falls back to an exact backward search bounded by topological index.

No approximation is made anywhere: an ordered pair has a real path, an unordered pair has none,
so an unordered conflicting pair has an execution where both overlap (every DAG has a linear
extension placing two incomparable events in either order). The full-SMT mode (`--smt=full`)
re-derives every verdict with Z3 over the raw event graph, and a property test checks that both
agree.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from verify.events import EventGraph, Site

__all__ = ["HappensBefore", "CollapseError"]


class CollapseError(AssertionError):
    """The event graph breaks the unit invariant (a verifier bug, never a user error)."""


def sp_before(a: Site, b: Site) -> bool:
    """Within one unit: does `a` end before `b` starts (region structure)?"""
    pa, pb = a.path, b.path
    n = min(len(pa), len(pb))
    for i in range(n):
        if pa[i] != pb[i]:
            return not a.parallel[i] and pa[i] < pb[i]
    return False  # one contains the other (or the same site)


# The longest chain: positions and clocks are int16 (a longer run of units starts a new chain,
# one more column per 32k units of it).
_MAX_POS = 32_000


class HappensBefore:
    def __init__(self, graph: EventGraph, vc_budget: int = 128_000_000) -> None:
        self.graph = graph
        n = len(graph.units)
        self.n = n
        preds: list[list[int]] = [[] for _ in range(n)]
        succs: list[list[int]] = [[] for _ in range(n)]
        self.check_collapse(preds, succs)
        self.preds = preds
        self.succs = succs
        self.topo, self.cycle = _toposort(preds, succs)
        self.index = [0] * n
        for i, u in enumerate(self.topo):
            self.index[u] = i
        self.vc: np.ndarray | None = None
        self.chain = [0] * n
        self.pos = [0] * n
        self._cache: dict[tuple[int, int], bool] = {}
        self.fwd: list[int] = list(range(n))
        self.tin: list[int] = [0] * n
        self.tout: list[int] = [-1] * n
        if self.cycle is None:
            self._vector_clocks(vc_budget)
            self._runs()

    def _runs(self) -> None:
        """The run forest: each unit with one successor has that successor as its parent, so the
        units a unit reaches by single-successor steps are its ancestors, ending at its root
        (`fwd`: a unit with no or several successors). Euler-tour intervals (`tin`, `tout`) make
        "is `v` on `u`'s run" one comparison, where walking the run made a query on a chain of n
        regions O(n), and n such queries quadratic."""
        succs, n = self.succs, self.n
        children: list[list[int]] = [[] for _ in range(n)]
        roots = []
        for x in range(n):
            if len(succs[x]) == 1:
                children[succs[x][0]].append(x)
            else:
                roots.append(x)
        clock = 0
        for root in roots:
            stack = [(root, False)]
            while stack:
                x, leaving = stack.pop()
                if leaving:
                    self.tout[x] = clock - 1
                    continue
                self.tin[x] = clock
                clock += 1
                self.fwd[x] = root
                stack.append((x, True))
                stack.extend((c, False) for c in children[x])

    def check_collapse(self, preds: list[list[int]], succs: list[list[int]]) -> None:
        g = self.graph
        units, unit_of = g.units, g.unit_of
        seen: set[tuple[int, int]] = set()
        for u, v in zip(g.src, g.dst):
            uu, uv = unit_of[u], unit_of[v]
            if uu == uv:
                continue
            if units[uu].exit != u or units[uv].entry != v:
                raise CollapseError(f"edge {u}->{v} crosses units {uu}->{uv} away from their exit/entry events")
            if (uu, uv) not in seen:
                seen.add((uu, uv))
                preds[uv].append(uu)
                succs[uu].append(uv)

    def _vector_clocks(self, budget: int) -> None:
        """Chains and vector clocks in one pass over the units in topological order. A unit's
        clock is the maximum of its predecessors' (its ancestors' highest position per chain),
        computed before it joins a chain; it may then join any chain whose last unit is among
        its ancestors (`clock[chain] == position of that last unit`), which keeps every chain
        totally ordered. Taking the closest such chain, not only one whose last unit is a
        nearest predecessor, keeps the cover about as wide as the program's real concurrency
        (the nearest-predecessor rule left one chain behind at every fork: 1,561 chains at 30k
        dispatches, 110 now, and the clocks outgrew their budget of `budget` entries)."""
        units, preds = self.graph.units, self.preds
        column = [len(x) >= 2 for x in self.succs]
        n, index = self.n, self.index
        chain, pos = self.chain, self.pos
        cap = 8
        vc = np.full((n, cap), -1, dtype=np.int16)  # chains end at _MAX_POS units: half the memory
        tail_pos = np.full(cap, -2, dtype=np.int16)  # position of each chain's last unit
        host = np.zeros(cap, dtype=bool)  # host units and device units keep to chains of their own
        tails: list[int] = []
        for v in self.topo:
            ps = preds[v]
            if len(ps) == 1:
                vc[v] = vc[ps[0]]
            elif ps:
                np.max(vc[ps], axis=0, out=vc[v])
            if not column[v]:
                chain[v] = -1
                continue
            is_host = units[v].kind == "host"
            width = len(tails)
            hits = np.flatnonzero((vc[v, :width] == tail_pos[:width]) & (host[:width] == is_host) & (tail_pos[:width] < _MAX_POS))
            if hits.size:
                c = min((int(h) for h in hits), key=lambda h: index[tails[h]])
                p = int(tail_pos[c]) + 1
                tails[c] = v
            else:
                if width == cap:
                    if n * cap * 2 > budget:
                        self.width = width + 1
                        self.vc = None  # too wide: exact search per query instead
                        return
                    vc = np.concatenate([vc, np.full((n, cap), -1, dtype=np.int16)], axis=1)
                    tail_pos = np.concatenate([tail_pos, np.full(cap, -2, dtype=np.int16)])
                    host = np.concatenate([host, np.zeros(cap, dtype=bool)])
                    cap *= 2
                c, p = width, 0
                tails.append(v)
                host[c] = is_host
            chain[v], pos[v] = c, p
            tail_pos[c] = p
            vc[v, c] = p
        self.width = max(len(tails), 1)
        self.vc = vc[:, : self.width] if n * self.width <= budget else None

    # -- queries -------------------------------------------------------------------------------
    def units_before(self, u: int, v: int) -> bool:
        """Is there a path from unit `u` to unit `v` (u != v)?"""
        if u == v:
            return False
        if self.vc is None:
            key = (u, v)
            hit = self._cache.get(key)
            if hit is None:
                hit = self._search(u, v)
                self._cache[key] = hit
            return hit
        # Forward through units with a single successor (they have no column): `v` is on that
        # run iff it is an ancestor of `u` in the run forest; else ask the run's last unit.
        if self.tin[v] <= self.tin[u] <= self.tout[v]:
            return True
        x = self.fwd[u]
        if not self.succs[x]:
            return False
        return bool(self.vc[v, self.chain[x]] >= self.pos[x])

    def _search(self, u: int, v: int) -> bool:
        floor = self.index[u]
        if self.index[v] <= floor:
            return False
        seen = {v}
        queue = deque([v])
        while queue:
            x = queue.popleft()
            for p in self.preds[x]:
                if p == u:
                    return True
                if p not in seen and self.index[p] > floor:
                    seen.add(p)
                    queue.append(p)
        return False

    def before(self, a: Site, b: Site) -> bool:
        """Does `a` end before `b` starts, on every execution?"""
        if a.unit == b.unit:
            return sp_before(a, b)
        return self.units_before(a.unit, b.unit)

    def ordered(self, a: Site, b: Site) -> bool:
        return self.before(a, b) or self.before(b, a)


def _toposort(preds: list[list[int]], succs: list[list[int]]) -> tuple[list[int], list[int] | None]:
    """Kahn's algorithm in id order (ids follow program order); on a cycle, one cycle."""
    n = len(preds)
    indeg = [len(p) for p in preds]
    ready = deque(i for i in range(n) if indeg[i] == 0)
    order: list[int] = []
    while ready:
        u = ready.popleft()
        order.append(u)
        for w in succs[u]:
            indeg[w] -= 1
            if indeg[w] == 0:
                ready.append(w)
    if len(order) == n:
        return order, None
    left = {i for i in range(n) if indeg[i] > 0}
    return order, _find_cycle(left, preds)


def _find_cycle(nodes: set[int], preds: list[list[int]]) -> list[int]:
    """A cycle among `nodes`, in edge order. Every node Kahn's algorithm leaves behind has a
    predecessor that was also left behind, so walking predecessors must close a cycle."""
    seen: dict[int, int] = {}
    path: list[int] = []
    u = min(nodes)
    while u not in seen:
        seen[u] = len(path)
        path.append(u)
        u = next(w for w in preds[u] if w in nodes)
    cycle = path[seen[u]:]
    cycle.reverse()
    return cycle

"""Race obligations: which pairs of accesses to one allocation must be ordered (shape `conflict`).

In full mode every pair of accesses to one allocation, at least one a write, is an obligation.
Pruned, a constant-range sweep (`sweep_pairs`) leaves out pairs whose ranges cannot intersect,
and, given the happens-before graph, the frontiers of `verify.frontier` also leave out the pairs
reachability orders by transitivity. At the async level value semantics order everything but
an op with itself, so only pairs within one site are candidates. Pairs of accesses through two
slices of one pack are left to the pack's `PACK_OVERLAP` obligations
(`verify.storage_obligations`). `race_class` names a conflict by program order.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterator

from stream.ir.core import Op
from verify.frontier import conflict_pairs
from verify.hb import HappensBefore
from verify.model import Access, FunctionModel
from verify.obligation import Obligation, overlap_cond
from verify.storage_obligations import slice_membership

__all__ = ["race_class", "sweep_pairs", "races"]


def race_class(x: Access, y: Access) -> tuple[str, Access, Access, tuple[str, str]]:
    """Name a conflict by program order: (class, earlier access, later access, roles).

    A later read of what an earlier access writes is a read-after-write (a MISSED_WAIT when the
    two are in different submissions: the consumer lacks a wait on the producer's timepoint);
    a later write of what was only read is a write-after-read; two writes otherwise."""
    a, b = (x, y) if x.site.order <= y.site.order else (y, x)
    if a.site is b.site:  # one op conflicting with itself: its write and its read
        w, r = (a, b) if a.writes else (b, a)
        if r.reads and not r.writes:
            return "RACE_READ_AFTER_WRITE", w, r, ("write", "read")
        return "RACE_WRITE_AFTER_WRITE", a, b, ("write", "write")
    if a.writes and b.reads:
        if a.site.unit != b.site.unit:
            return "MISSED_WAIT", a, b, ("producer", "consumer")
        return "RACE_READ_AFTER_WRITE", a, b, ("write", "read")
    if not a.writes:
        return "RACE_WRITE_AFTER_READ", a, b, ("read", "write")
    return "RACE_WRITE_AFTER_WRITE", a, b, ("write", "write")


def sweep_pairs(group: list[Access], full: bool) -> Iterator[tuple[Access, Access]]:
    """Pairs of accesses of one allocation, at least one a write, whose ranges may intersect
    (all pairs in full mode). Constant ranges are swept in offset order; symbolic ones are
    paired with everything."""
    data = [a for a in group if a.mode]
    if full:
        for i, x in enumerate(data):
            for y in data[i + 1:]:
                if x.writes or y.writes:
                    yield x, y
        return
    static = [a for a in data if a.lo.is_const and a.length.is_const]
    dynamic = [a for a in data if not (a.lo.is_const and a.length.is_const)]
    static.sort(key=lambda a: a.lo.const)
    writers: list[tuple[int, int, Access]] = []  # heaps of (hi, id, access) still open
    readers: list[tuple[int, int, Access]] = []
    for a in static:
        lo, hi = a.lo.const, a.lo.const + a.length.const
        if hi <= lo:
            continue
        for heap in (writers, readers):
            while heap and heap[0][0] <= lo:
                heapq.heappop(heap)
        for _, _, w in writers:
            yield w, a
        if a.writes:
            for _, _, r in readers:
                yield r, a
        heapq.heappush(writers if a.writes else readers, (hi, a.id, a))
    for i, d in enumerate(dynamic):
        for other in static + dynamic[i + 1:]:
            if d.writes or other.writes:
                yield d, other


def _candidates(group: list[Access], full: bool, cmd: bool, hb: HappensBefore | None) -> Iterator[tuple[Access, Access]]:
    """The pairs of one allocation's accesses that get a race obligation (see `races`)."""
    if not cmd:
        # At the async level value semantics order everything but an op with itself (ties and
        # readiness are checked by their own obligations): only pairs within one site.
        by_site: dict[int, list[Access]] = defaultdict(list)
        for a in group:
            by_site[a.site.id].append(a)
        for same in by_site.values():
            if len(same) > 1:
                yield from sweep_pairs(same, full)
        return
    if full or hb is None:
        yield from sweep_pairs(group, full)
        return
    # Pruned, with the happens-before graph: constant ranges by their frontiers (linear when
    # they are ordered, `verify.frontier`), symbolic ones against everything.
    data = [a for a in group if a.mode]
    static = [a for a in data if a.lo.is_const and a.length.is_const and a.length.const > 0]
    dynamic = [a for a in data if not (a.lo.is_const and a.length.is_const)]
    yield from conflict_pairs(static, hb)
    for i, d in enumerate(dynamic):
        for other in static + dynamic[i + 1:]:
            if d.writes or other.writes:
                yield d, other


def races(model: FunctionModel, full: bool, members: dict[Op, list[list[Access]]] | None = None,
          hb: HappensBefore | None = None) -> Iterator[Obligation]:
    """Pairs of accesses to one allocation that may conflict must be ordered. In full mode every
    pair is an obligation; pruned, a constant-range sweep (or, given `hb`, the frontiers of
    `verify.frontier`) leaves out pairs that cannot intersect or are ordered by transitivity."""
    if model.level == "tensor":
        return
    by_alloc: dict[int, list[Access]] = defaultdict(list)
    for a in model.accesses:
        by_alloc[a.alloc.id].append(a)
    cmd = model.level == "cmd"
    slices = slice_membership(model, members)
    for group in by_alloc.values():
        for x, y in _candidates(group, full, cmd, hb):
            # Slices a pack may alias: their PACK_OVERLAP obligation (uses separated in time)
            # implies every pair of their accesses is ordered.
            sx, sy = slices.get(x.id), slices.get(y.id)
            if sx is not None and sy is not None and sx[0] is sy[0] and sx[1] != sy[1]:
                if not sx[2][sy[1]]:
                    continue
                # Slices live at once: the pack lays them on disjoint bytes (its contract, a fact
                # of verify.symbolic), and each access stays in its slice (PACK_OVERLAP's range
                # obligation for every member), so the two cannot intersect. Full mode asks anyway.
                if not full:
                    continue
            cls, a, b, roles = race_class(x, y)
            # At the async level an op conflicting with itself is a broken tie (rule A2), not a
            # schedule: it touches two versions of one storage (a tie ended a version the op
            # still uses), or it writes in place a value it also reads through another operand
            # (the in-place write must come after every other use of the value).
            rule = "A2" if not cmd and (x.view.version != y.view.version or x.tie or y.tie) else ""
            yield Obligation(cls, "conflict", a.site, b.site, a, b, a.alloc, overlap_cond(a, b), roles, rule=rule)

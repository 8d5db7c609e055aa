"""Race candidates in linear time: per-byte-interval frontiers (FastTrack's idea over the
happens-before graph).

Checking every pair of accesses to one allocation is quadratic: a chain of n dispatches through
one buffer has n(n-1)/2 pairs, each proved by reachability. FastTrack (Flanagan and Freund,
PLDI 2009) keeps, per memory location, the last write and the reads since, and checks each new
access against that *frontier* only. `conflict_pairs` does the same for one allocation's
accesses with constant ranges, processed in a topological order of the happens-before graph
(`HappensBefore.topo` for units, the region path inside a unit), over an interval map of the
allocation's bytes:

* a read is checked against the segment's last write `W` (`W` ends before it starts);
* a write against `W` and every read since `W`;
* then a write becomes the segment's `W` (its reads cleared), a read joins the reads.

**Why a pair that is not checked is ordered.** Invariant of a clean segment: every access to it
processed before its `W` ends before `W` starts, and `W` before each read since. It holds when
`W` is set (all of `W`'s checks passed) and reads keep it. A new read `a` with `W` before it is
then after every earlier write (they are before `W`, or `W`); a new write `a` after `W` and after
each read since is after every earlier access. Reachability is transitive, so each pair left out
is one the pruned discharge proves by reachability anyway: the same verdicts, fewer obligations.

**When a check fails** the invariant no longer holds for that segment: it is marked dirty for
good, and from then on (and for the access that failed) the access is paired with every earlier
access of the allocation that overlaps it and is not ordered before it, as the quadratic sweep
would pair them. Every pair that could fail is therefore emitted: a program with a race gets
all of its race obligations, a program without one gets one check per access and segment (plus
the reads a write closes). Same-site pairs are never ordered and always emitted.

Accesses with symbolic ranges are not in the map; the caller pairs them with every access as
before. `--smt=full` does not use this module (every pair is an obligation): the cross-check.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

from verify.hb import HappensBefore
from verify.model import Access

__all__ = ["conflict_pairs"]


@dataclass(slots=True)
class _Segment:
    """The frontier of the bytes [start, next segment's start)."""

    write: Access | None = None
    reads: list[Access] = field(default_factory=list)
    dirty: bool = False

    def copy(self) -> _Segment:
        return _Segment(self.write, list(self.reads), self.dirty)


class _IntervalMap:
    """Segments over the byte line: `starts[i]` begins `segs[i]`; the last one runs to infinity.
    Bytes never accessed are in segments with no write and no reads."""

    def __init__(self) -> None:
        self.starts: list[int] = [0]
        self.segs: list[_Segment] = [_Segment()]

    def _split(self, at: int) -> int:
        """The index of the segment starting at `at` (splitting the one containing it)."""
        i = bisect_right(self.starts, at) - 1
        if self.starts[i] == at:
            return i
        self.starts.insert(i + 1, at)
        self.segs.insert(i + 1, self.segs[i].copy())
        return i + 1

    def cover(self, lo: int, hi: int) -> list[_Segment]:
        """The segments exactly covering [lo, hi), split as needed."""
        first = self._split(max(lo, 0))
        last = self._split(hi)
        return self.segs[first:last]


def _key(hb: HappensBefore, a: Access) -> tuple[int, tuple[int, ...]]:
    return hb.index[a.site.unit], a.site.path


def conflict_pairs(static: list[Access], hb: HappensBefore) -> Iterator[tuple[Access, Access]]:
    """The pairs of `static` (one allocation's accesses with constant, non-empty ranges and a
    mode) that need a race obligation: every pair not shown ordered by the frontier argument
    (module docstring). Each pair is (earlier, later) in the topological order."""
    order = sorted(static, key=lambda a: _key(hb, a))
    imap = _IntervalMap()
    done: list[Access] = []
    for a in order:
        lo, hi = a.lo.const, a.lo.const + a.length.const
        segs = imap.cover(lo, hi)
        failed = any(s.dirty for s in segs)
        if not failed:
            for s in segs:
                if s.write is not None and s.write is not a and not hb.before(s.write.site, a.site):
                    failed = True
                    break
                if a.writes and any(r is not a and not hb.before(r.site, a.site) for r in s.reads):
                    failed = True
                    break
        if failed:
            for s in segs:
                s.dirty = True
            for x in done:
                xlo = x.lo.const
                if (x.writes or a.writes) and xlo < hi and lo < xlo + x.length.const and not hb.before(x.site, a.site):
                    yield x, a
        for s in segs:
            if a.writes:
                s.write, s.reads = a, []
            else:
                s.reads.append(a)
        done.append(a)

"""Proof obligations: what must hold for a function to be free of each property class.

Each obligation is an explicit object with a *shape* saying what must be shown:

* `order`: `first` ends before `second` starts on every execution (lifetimes, readiness, the
  caller-visible completion of the function);
* `order_if_overlap`: the same, unless the byte ranges in `cond` cannot intersect (tie
  linearity: a reader of a value before the in-place write that replaces it);
* `conflict`: the two sites are ordered one way or the other, unless the ranges cannot intersect
  (races; with `first is second`, an op that conflicts with itself);
* `range`: the condition `cond` (a disjunction of conjunctions of linear facts `e > 0`) is
  unsatisfiable (bounds, pack slices, writes to read-only storage);
* `fact`: violated by the program's structure alone (two frees, a leak, a cycle);
* `opaque`: undecidable from the model (an access through storage an unmodelled op returned):
  never proved, always `unknown` (fail closed).

`generate(model, full)` lists them. In full mode nothing is pruned: every pair of accesses on one
allocation is listed, even where constant ranges are disjoint.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from stream.dialect.abi import is_fence
from stream.ir.core import Op, Value
from stream.ir.types import Lifetime
from verify.events import Site
from verify.frontier import conflict_pairs
from verify.hb import HappensBefore
from verify.model import Access, FunctionModel, RangeCheck
from verify.storage import Allocation, AllocKind
from verify.symbolic import Expr, overlaps, pack_intervals

__all__ = ["Obligation", "Cond", "generate", "overlap_cond", "race_class"]

# A condition: a disjunction of conjunctions; each literal `e` means `e > 0`.
Cond = tuple[tuple[Expr, ...], ...]


def overlap_cond(x: Access, y: Access) -> Cond:
    return ((x.hi - y.lo, y.hi - x.lo, x.length, y.length),)


@dataclass(slots=True, eq=False)
class Obligation:
    cls: str
    shape: str
    first: Site | None = None
    second: Site | None = None
    x: Access | None = None
    y: Access | None = None
    alloc: Allocation | None = None
    cond: Cond | None = None
    roles: tuple[str, str] = ("", "")
    detail: str = ""
    rule: str = ""
    op: Op | None = None
    extra: tuple[int, ...] = ()  # DEADLOCK: the units on the cycle; PACK_OVERLAP: the slices
    targets: tuple[Site, ...] = ()  # order_any: `first` must end before one of these starts
    groups: tuple[tuple[Access, ...], tuple[Access, ...]] = ((), ())  # pack: the two slices' accesses
    range_check: RangeCheck | None = None  # OUT_OF_BOUNDS: the range and the size it must fit in
    value: Value | None = None  # readiness: the value consumed


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


# -- races -----------------------------------------------------------------------------------------
def _pairs(group: list[Access], full: bool) -> Iterator[tuple[Access, Access]]:
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
                yield from _pairs(same, full)
        return
    if full or hb is None:
        yield from _pairs(group, full)
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


# -- lifetimes -------------------------------------------------------------------------------------
def _by_site(accesses: list[Access]) -> dict[tuple[int, int], Access]:
    out: dict[tuple[int, int], Access] = {}
    for a in accesses:
        out.setdefault((a.site.id, a.alloc.id), a)
    return out


def lifetimes(model: FunctionModel) -> Iterator[Obligation]:
    per_site = _by_site(model.accesses)
    by_alloc: dict[int, list[Access]] = defaultdict(list)
    for a in per_site.values():
        by_alloc[a.alloc.id].append(a)
    for alloc_id, site in model.allocas.items():
        for a in by_alloc.get(alloc_id, ()):
            if a.site is not site:
                yield Obligation("USE_BEFORE_ALLOC", "order", site, a.site, None, a, a.alloc, roles=("alloca", "access"))
    for d, alloc in model.deallocas:
        alloca = model.allocas.get(alloc.id)
        if alloca is not None:
            yield Obligation(
                "USE_BEFORE_ALLOC", "order", alloca, d, alloc=alloc, roles=("alloca", "dealloca"),
                detail="the dealloca may run before the allocation is made",
            )
        for a in by_alloc.get(alloc.id, ()):
            yield Obligation("USE_AFTER_FREE", "order", a.site, d, a, None, alloc, roles=("access", "dealloca"))
    for site, alloc in _release_frees(model):
        for a in by_alloc.get(alloc.id, ()):
            if a.site is not site:
                yield Obligation(
                    "USE_AFTER_FREE", "order", a.site, site, a, None, alloc, roles=("access", "release"),
                    detail="the release drops the last claim on the resource",
                )


def _release_frees(model: FunctionModel) -> list[tuple[Site, Allocation]]:
    """Releases that drop the last claim on an owned allocation (its count starts at 1)."""
    counts: dict[int, int] = {}
    out: list[tuple[Site, Allocation]] = []
    for site, alloc, delta in sorted(model.retains, key=lambda r: r[0].order):
        if not alloc.owned:
            continue
        n = counts.get(alloc.id, 1) + delta
        counts[alloc.id] = n
        if n == 0 and delta < 0:
            out.append((site, alloc))
    return out


def frees(model: FunctionModel) -> Iterator[Obligation]:
    seen: dict[int, Site] = {}
    for site, alloc in sorted([*model.deallocas, *_release_frees(model)], key=lambda p: p[0].order):
        kind = "dealloca" if site.op.name.endswith("dealloca") else "release"
        if site.op.name.endswith("dealloca"):
            if not alloc.owned:
                yield Obligation(
                    "DOUBLE_FREE", "fact", site, None, alloc=alloc, roles=(kind, ""),
                    detail=f"frees storage the function does not own ({alloc.kind.value})",
                )
            elif alloc.indeterminate:
                yield Obligation(
                    "DOUBLE_FREE", "fact", site, None, alloc=alloc, roles=(kind, ""),
                    detail="frees an `indeterminate` allocation, which only its last release may free",
                )
        prior = seen.get(alloc.id)
        if prior is not None:
            yield Obligation("DOUBLE_FREE", "fact", prior, site, alloc=alloc, roles=("free", "free"), detail="the allocation is freed twice")
        else:
            seen[alloc.id] = site
    freed = {a.id for _, a in model.deallocas} | {a.id for _, a in _release_frees(model)}
    for alloc in model.storage.allocations:
        if (alloc.owned and alloc.lifetime is Lifetime.TRANSIENT and alloc.id not in freed and alloc.id not in model.escapes
                and alloc.id not in model.global_handoffs):
            yield Obligation(
                "LEAK", "fact", model.allocas.get(alloc.id), None, alloc=alloc, roles=("alloca", ""),
                detail="the transient allocation is never freed",
                op=alloc.op,
            )


# -- async level: readiness and tie linearity -------------------------------------------------------
def readiness(model: FunctionModel) -> Iterator[Obligation]:
    seen: set[tuple[int, int]] = set()
    by_site: dict[tuple[int, int], list[Access]] | None = None
    for use in model.uses:
        producer = model.ready.get(use.value)
        if producer is None or producer is use.site or (producer.id, use.site.id) in seen:
            continue
        seen.add((producer.id, use.site.id))
        if producer in model.opaque_handoffs:  # what signals the fence it comes with is unknown
            yield Obligation("MISSED_WAIT", "opaque", producer, use.site, roles=("signal fence", "consumer"), op=use.site.op,
                             value=use.value, rule="coarse-fences", detail=model.opaque_handoffs[producer])
            continue
        if producer in model.call_handoffs:  # a call's result, handed over with a timepoint (or fence)
            fence = is_fence(model.call_handoffs[producer])
            yield Obligation("MISSED_WAIT", "order", producer, use.site, op=use.site.op, value=use.value,
                             roles=("signal fence" if fence else "returned timepoint", "consumer"),
                             rule="coarse-fences" if fence else "call-handoff")
            continue
        if _wave_siblings(producer, use.site):
            if by_site is None:
                by_site = _accesses_by_site(model)
            yield from _wave_readiness(model, by_site, use.site, use.value, producer, use.value)
            continue
        yield _ordered(model, producer, use.site, use.value)


def _wave_siblings(a: Site, b: Site) -> bool:
    """Whether `a` and `b` are children of one wave (`async.concurrent`): the innermost container
    holding both runs its children unordered."""
    if a.unit != b.unit or a is b:
        return False
    k = 0
    for x, y in zip(a.path, b.path):
        if x != y:
            return a.parallel[k]
        k += 1
    return False  # one contains the other


def _accesses_by_site(model: FunctionModel) -> dict[tuple[int, int], list[Access]]:
    out: dict[tuple[int, int], list[Access]] = defaultdict(list)
    for a in model.accesses:
        out[(a.site.id, a.alloc.id)].append(a)
    return out


def _wave_readiness(
    model: FunctionModel, by_site: dict[tuple[int, int], list[Access]], user: Site, value: Value, producer: Site, via: Value,
) -> Iterator[Obligation]:
    """Readiness at byte granularity inside one wave (IREE's ResourceHazardAnalysis puts an
    in-place op on the result of another in the same `async.concurrent` when their ranges do not
    overlap: the dispatches of a concat). `user` uses `value`, which `producer` wrote in place
    into the storage of the operand it consumed: `user` needs `producer` done only if the bytes
    it touches of that storage meet the bytes `producer` touches (one of the two writing); the
    bytes `producer` left alone are those of the consumed operand, so the same holds, in turn,
    for that operand's producer while it is in the same wave. Anything else (a fresh result, a
    user without accesses of the storage, a producer outside the wave) needs the whole order."""
    view = model.storage.view(value)
    mine = by_site.get((user.id, view.alloc.id), []) if view is not None else []
    theirs = by_site.get((producer.id, view.alloc.id), []) if view is not None else []
    ties_in = [a for a in theirs if a.tie and a.writes]
    if not mine or not ties_in:
        yield _ordered(model, producer, user, via)
        return
    for y in mine:
        for x in theirs:
            if x.writes or y.writes:
                yield Obligation("RACE_READ_AFTER_WRITE" if x.writes else "RACE_WRITE_AFTER_READ", "order_if_overlap", producer, user,
                                 x, y, x.alloc, overlap_cond(x, y), ("producer", "consumer"), op=user.op, value=via,
                                 rule="wave bytes")
    for t in ties_in:
        earlier = model.ready.get(t.value)
        if earlier is None or earlier is producer or earlier is user:
            continue
        if _wave_siblings(earlier, user):
            yield from _wave_readiness(model, by_site, user, t.value, earlier, via)
        else:  # before the wave (reachability), or not ordered at all
            yield _ordered(model, earlier, user, via)


def _ordered(model: FunctionModel, producer: Site, user: Site, value: Value) -> Obligation:
    """`producer` must end before `user` starts (a MISSED_WAIT across device submissions)."""
    crosses = producer.unit != user.unit and model.graph.units[producer.unit].kind == "device"
    cls = "MISSED_WAIT" if crosses else "RACE_READ_AFTER_WRITE"
    return Obligation(cls, "order", producer, user, roles=("producer", "consumer"), op=user.op, value=value)


def ties(model: FunctionModel) -> Iterator[Obligation]:
    """Reference rule A2: an in-place write ends its operand's version, so every other access of
    that version (through any alias) must happen before it; two in-place writes of one version
    cannot both be right."""
    if model.level != "async":
        return
    versions: dict[tuple[int, int], list[Access]] = defaultdict(list)
    for a in model.accesses:
        versions[(a.alloc.id, a.view.version)].append(a)
    for group in versions.values():
        writers = [a for a in group if a.tie]
        for t in writers:
            for other in group:
                if other.site is t.site:
                    continue
                if other.tie:
                    if other.id < t.id:
                        yield Obligation(
                            "RACE_WRITE_AFTER_WRITE", "fact", other.site, t.site, other, t, t.alloc, roles=("write", "write"), rule="A2",
                            detail="two in-place writes consume the same value",
                        )
                    continue
                yield Obligation(
                    "RACE_WRITE_AFTER_READ", "order_if_overlap", other.site, t.site, other, t, t.alloc, overlap_cond(other, t),
                    ("read", "write"), rule="A2",
                )


# -- the rest ---------------------------------------------------------------------------------------
_MADE = (AllocKind.ALLOCA, AllocKind.ALLOC, AllocKind.VALUE, AllocKind.CONSTANTS)


def borrowed(model: FunctionModel) -> Iterator[Obligation]:
    if model.level == "tensor":
        return
    initializer = model.func.op.name == "util.initializer"
    seen: set[tuple[int, int]] = set()
    for a in model.accesses:
        if not a.writes or a.alloc.readonly is None or a.label == "upload" or (a.site.id, a.alloc.id) in seen:
            continue
        seen.add((a.site.id, a.alloc.id))
        if initializer and a.alloc.kind in _MADE and a.alloc.lifetime is Lifetime.CONSTANT:
            continue  # an initializer fills the constants it allocates (IREE's hoisted constants)
        yield Obligation(
            "BORROWED_INPUT_MUTATED", "range", a.site, None, a, None, a.alloc, ((a.length,),), ("write", ""),
            detail=f"writes {a.alloc.readonly}", rule="A2" if model.level == "async" else "",
        )


def bounds(model: FunctionModel) -> Iterator[Obligation]:
    for r in model.ranges:
        o, n, z = r.offset, r.length, r.size
        if not (o.terms or n.terms or z.terms):
            cond: Cond = ((Expr(o.const + n.const - z.const),), (Expr(-o.const),), (Expr(-n.const),))
        else:
            cond = ((o + n - z,), (-o,), (-n,))
        yield Obligation(
            "OUT_OF_BOUNDS", "range", r.site, None, r.access, None, r.access.alloc if r.access is not None else None, cond,
            ("access", ""), detail=r.what, op=r.op, range_check=r,
        )


def pack_members(model: FunctionModel) -> dict[Op, list[list[Access]]]:
    """The accesses made through each slice of each pack: their offset is the slice's plus a
    delta (the slice offset's atom with coefficient 1). One pass over the accesses for all packs."""
    out: dict[Op, list[list[Access]]] = {}
    by_atom: dict[int, list[list[Access]]] = {}
    for op in model.packs:
        offsets = [model.symbols.expr(r) for r in op.results[1:]]
        members: list[list[Access]] = [[] for _ in offsets]
        out[op] = members
        for i, off in enumerate(offsets):
            if off.terms:
                by_atom.setdefault(off.terms[0][0], []).append(members[i])
    if by_atom:
        for a in model.accesses:
            hit: list[list[Access]] = []
            for atom, k in a.lo.terms:
                if k == 1 and atom in by_atom:
                    for group in by_atom[atom]:
                        if not any(g is group for g in hit):
                            hit.append(group)
            for group in hit:
                group.append(a)
    for op, i, a in model.slice_uses:
        if op in out and i < len(out[op]):
            out[op][i].append(a)
    return out


def slice_membership(model: FunctionModel, members: dict[Op, list[list[Access]]] | None = None) -> dict[int, tuple[Op, int, list[bool]]]:
    """access id -> (pack, slice index, which slices' lifetimes intersect this one's)."""
    members = pack_members(model) if members is None else members
    out: dict[int, tuple[Op, int, list[bool]]] = {}
    for op in model.packs:
        intervals = pack_intervals(op)
        for i, group in enumerate(members[op]):
            live = [i < len(intervals) and j < len(intervals) and overlaps(intervals[i], intervals[j]) for j in range(len(intervals))]
            for a in group:
                out[a.id] = (op, i, live)
    return out


def packs(model: FunctionModel, all_members: dict[Op, list[list[Access]]] | None = None) -> Iterator[Obligation]:
    """Accesses through a slice of a `resource.pack` stay in the slice; slices the pack may lay
    out on the same bytes (disjoint lifetime intervals) are used one after the other."""
    s = model.symbols
    all_members = pack_members(model) if all_members is None else all_members
    for op in model.packs:
        offsets = [s.expr(r) for r in op.results[1:]]
        sizes = [s.expr(v) for v in op.operands[len(op.operands) - len(offsets):]]
        intervals = pack_intervals(op)
        members = all_members[op]
        ends = [o + z for o, z in zip(offsets, sizes)]
        for i, group in enumerate(members):
            for a in group:
                cond: Cond = ((offsets[i] - a.lo, a.length), (a.hi - ends[i], a.length))
                yield Obligation(
                    "PACK_OVERLAP", "range", a.site, None, a, None, a.alloc, cond, ("access", ""), op=op,
                    detail=f"the access leaves slice #{i} of the pack",
                )
        for i in range(len(members)):
            for j in range(i):
                if not members[i] or not members[j]:
                    continue
                if i < len(intervals) and j < len(intervals) and overlaps(intervals[i], intervals[j]):
                    continue
                # The pack may lay the two slices on the same bytes: fine only if every use of
                # one happens before every use of the other.
                x, y = members[j][0], members[i][0]
                cond = ((ends[j] - offsets[i], ends[i] - offsets[j], sizes[j], sizes[i]),)
                yield Obligation(
                    "PACK_OVERLAP", "pack", x.site, y.site, x, y, x.alloc, cond, (f"slice #{j}", f"slice #{i}"), op=op,
                    detail=f"slices #{j} and #{i} may share bytes (their lifetime intervals are disjoint) but their uses are not separated in time",
                    extra=(j, i), groups=(tuple(members[j]), tuple(members[i])),
                )


def affinity(model: FunctionModel) -> Iterator[Obligation]:
    units = model.graph.units
    seen: set[tuple[int, int]] = set()
    for a in model.accesses:
        if a.transfer or a.label in ("load", "store", "return", "unknown op", "upload"):
            continue
        d, p = a.site.device, a.alloc.placement
        if d is None or p is None or d & p or (a.site.id, a.alloc.id) in seen:
            continue
        seen.add((a.site.id, a.alloc.id))
        yield Obligation(
            "AFFINITY_MISMATCH", "fact", a.site, None, a, None, a.alloc, roles=("access", ""),
            detail=f"runs on {_devices(d)} but the resource lives on {_devices(p)}",
        )
    for site in model.graph.sites:
        if site.path and site.device is not None:
            region = units[site.unit].site
            if region is not None and region.device is not None and not site.device & region.device:
                yield Obligation(
                    "AFFINITY_MISMATCH", "fact", site, None, roles=("op", ""),
                    detail=f"is placed on {_devices(site.device)} inside a region on {_devices(region.device)}",
                )


def _devices(d: frozenset[str]) -> str:
    return "|".join("@" + x for x in sorted(d))


def completion(model: FunctionModel) -> Iterator[Obligation]:
    """What the caller can observe (its own storage, and what it gets back) must be finished
    when it may look: at the return (synchronous ABI) or at a signalled fence (async ABI)."""
    targets = model.completions or ([model.return_site] if model.return_site is not None else [])
    if not targets:
        return
    shape = "order" if len(targets) == 1 else "order_any"
    for site, value in model.handoffs:  # async ABI: a handed-out value must be ready at a fence
        producer = model.ready.get(value)
        if producer is not None:
            yield Obligation(
                "MISSED_WAIT", shape, producer, targets[-1], roles=("producer", "fence"), op=site.op, value=value,
                targets=tuple(targets),
            )
    seen: set[int] = set()
    every = [h for hs in model.deferred.values() for h in hs]
    stored = {h.site.id for hs in model.global_handoffs.values() for h, _ in hs}
    for a in sorted(model.accesses, key=lambda a: not a.writes):
        visible = a.alloc.caller_visible or a.alloc.id in model.escapes
        if not visible or a.site.id in seen or a.site.host or a.site in every or a.site.id in stored:
            continue
        if a.alloc.kind is AllocKind.GLOBAL and a.alloc.id in model.global_handoffs:
            continue  # a global stored back: the next loader observes it where `globals_` says
        seen.add(a.site.id)
        own = model.deferred.get(a.alloc.id)
        handed = own or (every if a.alloc.caller_visible else None)
        if handed and a.alloc.id not in model.ready_escapes and not model.completions:
            # Private function: storage returned unready with a timepoint is observed once the
            # caller has awaited that timepoint (each one it is returned with); the caller's other
            # buffers once it has awaited a timepoint the call returned (each, as it may pick any).
            for h in handed:
                if h is not a.site:
                    yield Obligation(
                        "MISSED_WAIT", "order", a.site, h, a, None, a.alloc, roles=("access", "handed over"),
                        detail="is not covered by the timepoint the function returns with it" if own else
                        "is not covered by a timepoint the function returns (the caller reuses its buffers once it has awaited one)",
                        targets=(h,),
                    )
            continue
        t = targets[-1]
        yield Obligation(
            "MISSED_WAIT", "order" if len(targets) == 1 else "order_any", a.site, t, a, None, a.alloc,
            roles=("access", "return" if t is model.return_site else "fence"),
            detail="is not finished when the caller may observe the memory",
            targets=tuple(targets),
        )


INPUTS = (AllocKind.IMPORT, AllocKind.IMPORT_CONSUMED, AllocKind.ARGUMENT)


def wait_fence(model: FunctionModel) -> Iterator[Obligation]:
    """Coarse-fences ABI (SPEC §3.1 rule 8): the caller may still be writing the inputs until the
    wait fence is signalled, so every access to an input (an import or a resource argument) must
    be ordered after it: after a wait (device or host) that transitively covers its import."""
    seen: set[tuple[int, int]] = set()
    for fence in model.wait_fences:
        signal = model.fence_sites.get(fence)
        if signal is None:
            continue
        for a in model.accesses:
            if a.alloc.kind not in INPUTS or (signal.id, a.site.id) in seen:
                continue
            seen.add((signal.id, a.site.id))
            yield Obligation(
                "MISSED_WAIT", "order", signal, a.site, None, a, a.alloc, roles=("wait fence", "access"), op=a.site.op,
                detail=f"{a.site.name} is not ordered after the wait fence that guards the inputs (the caller may still be writing them)",
            )
    if model.arg_guards:  # private functions: an argument handed in with a timepoint
        for a in model.accesses:
            guard = model.arg_guards.get(a.alloc.id)
            if guard is None or (guard.id, a.site.id) in seen:
                continue
            seen.add((guard.id, a.site.id))
            yield Obligation(
                "MISSED_WAIT", "order", guard, a.site, None, a, a.alloc, roles=("handed in", "access"), op=a.site.op,
                detail=f"{a.site.name} is not ordered after the timepoint the caller hands in with it (the value may not be ready)",
            )


def globals_(model: FunctionModel) -> Iterator[Obligation]:
    """Globals (verify.globals): an access to a loaded resource global follows the timepoint
    stored with it (its companion); what a function stores into a global is finished where a
    later loader observes it; an immutable global is stored only by initializers."""
    for a in model.accesses:
        guard = model.global_guards.get(a.alloc.id)
        if guard is not None and a.site is not guard[0]:
            yield Obligation(
                "MISSED_WAIT", "order", guard[0], a.site, None, a, a.alloc, roles=("global timepoint", "access"), op=a.site.op,
                detail=f"{a.site.name} uses @{a.alloc.symbol} before the timepoint stored with it (@{guard[1]}) is reached",
            )
    observed = {h.site.id for hs in model.global_handoffs.values() for h, _ in hs}
    for a in sorted(model.accesses, key=lambda a: not a.writes):
        if a.site.id in observed:  # another store's observation (subviews of one slab): not an access of this function's work
            continue
        for h, companion in model.global_handoffs.get(a.alloc.id, ()):
            yield Obligation(
                "MISSED_WAIT", "order_if_overlap", a.site, h.site, a, h, a.alloc, overlap_cond(a, h), roles=("access", "stored"),
                detail=f"is not covered by the timepoint stored in @{companion}" if companion else
                "is not finished when the value is stored into the global",
            )
    # A call without a summary may load or store any global (verify.storage: calls touching
    # globals are not summarised): an access of a mutable global here is never proved then.
    if model.storage.call_reasons:
        calls = sorted(model.storage.call_reasons, key=lambda o: (o.location.line, o.location.col))
        seen: set[int] = set()
        for a in model.accesses:
            if a.alloc.kind is not AllocKind.GLOBAL or not a.alloc.mutable or a.alloc.id in seen:
                continue
            seen.add(a.alloc.id)
            call = calls[0]
            yield Obligation(
                "RACE_WRITE_AFTER_WRITE" if a.writes else "RACE_READ_AFTER_WRITE", "opaque", a.site, None, a, None, a.alloc,
                roles=("access", ""), op=a.site.op,
                detail=f"{a.site.op.name} uses the mutable global @{a.alloc.symbol}, which the call at {call.location} may use too "
                       f"({model.storage.call_reasons[call]})",
            )
    for site, name in model.immutable_stores:
        yield Obligation(
            "BORROWED_INPUT_MUTATED", "fact", site, None, roles=("store", ""), op=site.op,
            detail=f"stores the immutable global @{name} outside an initializer (only initializers may set it)",
        )


def opaque(model: FunctionModel) -> Iterator[Obligation]:
    """Storage returned by an op without an effect rule may alias any other storage (its
    operands, a global, another such result): no race, lifetime or wait involving an access
    through it can be decided, so each such allocation that is accessed is one obligation the
    verifier leaves undecided (exit 3), never a proof."""
    seen: set[int] = set()
    for a in model.accesses:
        alloc = a.alloc
        if alloc.kind is not AllocKind.UNKNOWN or alloc.id in seen:
            continue
        seen.add(alloc.id)
        maker = f"'{alloc.op.name}' at {alloc.op.location}" if alloc.op is not None else "an unmodelled op"
        yield Obligation(
            "RACE_WRITE_AFTER_WRITE" if a.writes else "RACE_READ_AFTER_WRITE", "opaque", a.site, None, a, None, alloc,
            roles=("access", ""), op=a.site.op,
            detail=f"{a.site.op.name} uses storage returned by {maker}, which may alias any other storage",
        )


def generate(model: FunctionModel, full: bool = False, hb: HappensBefore | None = None) -> list[Obligation]:
    """Every obligation of the model; given `hb` (pruned mode), race pairs that reachability
    orders by transitivity are left out (`verify.frontier`)."""
    out: list[Obligation] = []
    members = pack_members(model)
    for gen in (races(model, full, members, hb), lifetimes(model), frees(model), readiness(model), ties(model), borrowed(model), bounds(model),
                packs(model, members), affinity(model), completion(model), wait_fence(model), globals_(model), opaque(model)):
        out.extend(gen)
    return out


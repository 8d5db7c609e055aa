"""Lifetime obligations: when storage and values may be used.

* Storage is used only between its allocation and its free (`USE_BEFORE_ALLOC`,
  `USE_AFTER_FREE`, a release dropping the last claim counting as a free), freed once and by its
  owner (`DOUBLE_FREE`), and a transient allocation is freed (`LEAK`): `lifetimes`, `frees`.
* At the async level, a value is used only once the op that produced it is done (`readiness`,
  at byte granularity inside one wave), and an in-place write comes after every other access of
  the version it ends (`ties`, reference rule A2).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from stream.dialect.abi import is_fence
from stream.ir.core import Value
from stream.ir.types import Lifetime
from verify.events import Site
from verify.model import Access, FunctionModel
from verify.obligation import Obligation, overlap_cond
from verify.storage import Allocation

__all__ = ["lifetimes", "frees", "readiness", "ties"]


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

"""Waves: grouping the independent ops of an execution region body into concurrent waves.

Inside a `stream.async.execute` body ops run in block order; ops gathered into one
`stream.async.concurrent` wave run unordered. Two ops may share a wave only when neither depends on
the other, directly or through ops in between: no use-def path, and no path of storage-hazard
edges from `ResourceHazards` (so a reader of `%x` and an in-place writer of `%x` never share a
wave, IREE #14889, even when the two are different SSA values of one storage).

The dependency graph of the body is the use-def edges plus the hazard edges, both pointing forward
in block order. Waves are assigned so that every edge goes from a lower wave to a higher one:

* `min-peak-memory` (default): walk the body in order and put each op into the most recent wave
  unless something it depends on is in that wave, else open a new wave. Ops stay close to where
  the program put them, so values do not stay live longer than the input order implies.
* `max-concurrency`: the latest possible wave for every op (as late as its consumers allow, all
  ops with no consumer inside the body in the last wave), which gathers the most ops per wave.

Metadata ops (`alloca`, `constant`, `barrier`) and existing waves never join a wave; they are
placed just before the first wave that needs them. Waves of one op are left as plain ops.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stream.analysis.resource_hazards import HazardAnalysis
from stream.analysis.streamability import used_values
from stream.ir.core import Block, Op
from stream.ir.spec import spec_of

__all__ = ["WavePlan", "plan_waves", "placeable", "FAVOR_CHOICES", "WaveError"]

FAVOR_CHOICES = ("min-peak-memory", "max-concurrency", "debug")


class WaveError(Exception):
    """The wave plan violates its invariant (an internal error)."""


@dataclass(slots=True)
class WavePlan:
    """Waves of a body: `waves[w]` lists op indices (program order); `order` lists the units to
    emit, `("wave", w)` or `("op", i)`, in an order that respects every dependency."""

    waves: list[list[int]] = field(default_factory=list)
    order: list[tuple[str, int]] = field(default_factory=list)


def placeable(op: Op) -> bool:
    """Ops that may join a wave: streamable work (not metadata, not a wave itself)."""
    spec = spec_of(op)
    if spec is None or "streamable" not in spec.traits or "metadata" in spec.traits:
        return False
    return op.name != "stream.async.concurrent" and op.name.startswith("stream.async.")


def plan_waves(body: Block, analysis: HazardAnalysis, favor: str = "min-peak-memory") -> WavePlan:
    ops = body.ops[:-1] if body.ops else ()
    n = len(ops)
    index = {r: i for i, op in enumerate(ops) for r in op.results}
    preds: list[set[int]] = [set() for _ in range(n)]
    succs: list[set[int]] = [set() for _ in range(n)]
    for i, op in enumerate(ops):
        for v in used_values(op):
            d = index.get(v)
            if d is not None:
                preds[i].add(d)
    for i, j in analysis.edges([(op,) for op in ops]):
        preds[j].add(i)
    for j in range(n):
        for i in preds[j]:
            succs[i].add(j)
    can_place = [placeable(op) for op in ops]
    if favor == "max-concurrency":
        wave_of = _latest_waves(n, succs, can_place)
    else:
        wave_of = _nearest_waves(n, preds, can_place)
    levels = sorted(set(wave_of.values()))
    renumber = {lvl: w for w, lvl in enumerate(levels)}
    plan = WavePlan(waves=[[] for _ in levels])
    for i in range(n):
        if i in wave_of:
            plan.waves[renumber[wave_of[i]]].append(i)
    # Unplaced ops go right before the first wave that (transitively) consumes them.
    big = len(levels)
    limit: dict[int, int] = {}
    for i in reversed(range(n)):
        if can_place[i]:
            continue
        bound = big
        for s in succs[i]:
            bound = min(bound, renumber[wave_of[s]] if s in wave_of else limit[s])
        limit[i] = bound
    keyed: list[tuple[tuple[int, int, int], tuple[str, int]]] = []
    for w, members in enumerate(plan.waves):
        keyed.append(((w, 1, members[0]), ("wave", w)))
    for i, bound in limit.items():
        keyed.append(((bound, 0, i), ("op", i)))
    keyed.sort(key=lambda item: item[0])
    plan.order = [unit for _, unit in keyed]
    _check(plan, preds, wave_of, renumber)
    return plan


def _nearest_waves(n: int, preds: list[set[int]], can_place: list[bool]) -> dict[int, int]:
    """min-peak-memory: the current wave unless a dependency is in it."""
    wave_of: dict[int, int] = {}
    after: dict[int, int] = {}  # unplaced op -> the latest wave it (transitively) depends on
    current = -1
    for i in range(n):
        need = max((wave_of[p] if p in wave_of else after[p] for p in preds[i]), default=-1)
        if can_place[i]:
            if current < 0 or need >= current:
                current += 1
            wave_of[i] = current
        else:
            after[i] = need
    return wave_of


def _latest_waves(n: int, succs: list[set[int]], can_place: list[bool]) -> dict[int, int]:
    """max-concurrency: every op as late as its consumers allow. An unplaced op stands for the
    wave of its first placed consumer; what it depends on must come before that wave."""
    big = n + 1
    wave: dict[int, int] = {}  # placed op -> its (unnormalized) wave
    first_consumer: dict[int, int] = {}  # unplaced op -> the wave of its first placed consumer
    for i in reversed(range(n)):
        bounds = [wave[s] if can_place[s] else first_consumer[s] for s in succs[i]]
        if can_place[i]:
            wave[i] = min(bounds, default=big + 1) - 1
        else:
            first_consumer[i] = min(bounds, default=big + 1)
    return wave


def _check(plan: WavePlan, preds: list[set[int]], wave_of: dict[int, int], renumber: dict[int, int]) -> None:
    """Every dependency goes from a lower wave to a higher one and from an earlier unit to a
    later one."""
    position: dict[int, int] = {}
    for at, unit in enumerate(plan.order):
        for m in plan.waves[unit[1]] if unit[0] == "wave" else [unit[1]]:
            position[m] = at
    for j, ps in enumerate(preds):
        for i in ps:
            if i in wave_of and j in wave_of and renumber[wave_of[i]] >= renumber[wave_of[j]]:
                raise WaveError(f"op #{j} depends on op #{i} but is not in a later wave")
            if position[i] >= position[j]:
                raise WaveError(f"op #{j} would be emitted before op #{i}, which it depends on")

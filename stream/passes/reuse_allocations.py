"""ReuseAllocations (`reuse-allocations`): hand freed memory straight to a later allocation.

A `stream.resource.alloca` A that (transitively) awaits the timepoint of a
`stream.resource.dealloca` D can take D's memory instead of getting new memory: D may happen as
late as just before its signal and A as early as just after its await, so the pair is one
atomic reallocation. A reuses D when:

* D frees the storage of another `resource.alloca` of this function that nothing touches after
  D (no later use through any alias, no escape, D its only free), and D provably waits for every
  device use of it (so a misplaced free is never made worse);
* both live on the same affinity and have the same resource type (lifetime);
* the sizes are the same value or equal constants, or D's is a larger constant, in which case A
  becomes a `resource.subview` of D's storage (the smallest larger one is chosen; among equal
  sizes, the latest free; only the `SCAN` latest available frees before A are considered, which
  keeps the pass linear on long programs);
* D's timepoint is covered by A's await, or the host awaited it before A is issued
  (`stream.analysis.timepoint_coverage`);
* **the reuse does not raise the peak of live bytes** (policy, below).

Policy: reuse saves an alloca, a dealloca and their timepoints, but the merged storage stays
allocated from the first alloca to the last dealloca, *including the gap* between D and A, and a
subview keeps all of the larger storage for A's whole lifetime. Handing memory over whenever the
await covers the free, however long the gap, made long chains of buffers that stayed allocated
across most of a program (bench/RESULTS.md, "Schedule quality of the bench DAGs": 80-152 KiB
simulated peak on the 1k-10k dispatch DAGs against 17 KiB without the pass). So a reuse is taken
only if, in a schedule estimate of the block (`_Profile`: every region as early as its awaits
and its affinity's previous region allow, commands costed as bench/bench_schedule.py costs them,
allocation and free instantaneous), the bytes it adds (D's size over the gap from D to A, and
for a subview the unused part of the larger storage over A's lifetime) keep the live bytes of
the block at or below their peak, and those of D's affinity at or below theirs; reuses are
decided in allocation order, each one counted before the next is checked. A reuse with no gap in the
estimate and equal sizes adds nothing and is always taken; in particular this is so when
everything A waits for (its await, and what the host awaited before issuing it) is provably
reached by the time D is: the memory is then handed over the instant it is freed, in every
execution. A reuse adds no wait (A's await already covered D; what waited for A's or D's
timepoint now waits for the op's await, reached no later), so it cannot delay anything.

The rewrite deletes A and D: A's resource becomes D's storage, D's timepoint becomes D's await
(what the old users finished by), and A's timepoint becomes A's own await (which now waits for
the old users, as the fresh memory did). Every user of the new resource therefore runs after
every user of the old one. A free of A's resource (from ARC) now frees the reused storage, so
chains of reuse are followed in one round (through a larger buffer's subview, on the next one);
the pass runs rounds until nothing changes.

Invariant established: every access to a reused allocation is ordered after every access made
before it was freed; the allocation is freed once, by the last of its users' deallocas; and in
the pass's schedule estimate, the peak of live bytes of each block (in total and per affinity)
is the same as before the pass: reuse never raises it (measured on the bench DAGs with
bench/bench_schedule.py's simulator: the peak of the schedule without reuse, 17 KiB at 1k-10k
dispatches, with a fifth of its allocas).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from stream.analysis.liveness import AllocationUses, allocation_uses
from stream.analysis.timepoint_coverage import TimepointCoverage, awaited_timepoints
from stream.ir.attributes import Attribute, IntegerAttr
from stream.ir.core import Block, Module, Op, Value
from stream.ir.rule_table import RuleTable
from stream.ir.spec import view
from stream.ir.types import INDEX, TIMEPOINT, TimepointType
from stream.ir.walk import Function, bodies, constant_int, defining_ops, map_scf_blocks, replace_op
from stream.passes.async_to_cmd import build
from stream.passes.block_builder import STRUCTURED, check_straight_line, remap_op
from stream.passes.pass_manager import register_pass

__all__ = ["reuse_allocations", "Reuse", "plan_reuses", "SCAN"]

# How many of the latest available frees an allocation considers (keeps the pass linear).
SCAN = 64


@register_pass("reuse-allocations")
def reuse_allocations(module: Module) -> Module:
    """Let allocations take the memory of frees they await (atomic reallocation) when that does
    not raise the peak of live bytes (module docstring)."""
    out = module
    for f in bodies(module):
        if any(op.name == "stream.resource.dealloca" for op in f.op.walk()):  # any block: refuse, never skip
            out = replace_op(out, f.op, _reuse_function(f).op)
    return out


@dataclass(frozen=True, slots=True)
class Reuse:
    alloca: Op  # the allocation that takes the memory
    dealloca: Op  # the free it replaces
    storage: Value  # the freed resource
    storage_size: Value
    exact: bool  # same size; otherwise a subview of the larger storage


@dataclass(frozen=True, slots=True)
class _Freed:
    alloca: Op
    position: int
    dealloca: Op
    resource: Value
    size: Value
    const_size: int | None
    type: object
    affinity: Attribute | None
    device: str  # `str(affinity)`: the key of its bucket and of its level in `_Profile.per`


def plan_reuses(block: Block) -> list[Reuse]:
    """The reuses one round performs on `block`, in allocation order."""
    coverage = TimepointCoverage.of(block)
    defs = defining_ops(block)
    uses_of = allocation_uses(block)
    freed: list[_Freed] = []
    for uses in uses_of:
        if len(uses.owned) != 1 or uses.escapes or uses.owned[0][1].name != "stream.resource.dealloca":
            continue
        position, dealloca = uses.owned[0]
        if uses.last_position > position:
            continue  # touched after its free: not ours to reason about
        freed_after = view(dealloca).await_timepoint
        if not all(freed_after is not None and coverage.covers(freed_after, t) for t in uses.device_timepoints()):
            continue  # the free does not provably wait for every use: handing it on would race
        alloca = view(uses.alloca)
        freed.append(_Freed(uses.alloca, position, dealloca, uses.resource, alloca.storage_size, constant_int(alloca.storage_size, defs),
                            uses.resource.type, alloca.affinity, str(alloca.affinity)))
    buckets: dict[tuple[str, str], _Bucket] = {}
    for f in freed:
        buckets.setdefault((str(f.type), f.device), _Bucket()).add(f)
    profile = _Profile.of(block, uses_of, defs)
    reuses: list[Reuse] = []
    via_subview: set[Op] = set()  # chains through a subview wait a round (the free is rewritten)
    for position, op in enumerate(block.ops):
        if op.name != "stream.resource.alloca" or op.properties.get("indeterminate_lifetime") is not None:
            continue
        alloca = view(op)
        bucket = buckets.get((str(op.results[0].type), str(alloca.affinity)))
        if bucket is None:
            continue
        size, const_size = alloca.storage_size, constant_int(alloca.storage_size, defs)
        w = alloca.await_timepoint
        best: tuple[tuple[int, int], _Freed, bool, int] | None = None
        crowded: list[tuple[int, int]] = []  # (gap start, bytes) of frees whose gap to `op` was too full
        # Latest free first: the first exact fit is the best one.
        for k, f in bucket.before(position):
            if f.alloca in via_subview:
                continue
            exact = f.size is size or (const_size is not None and f.const_size == const_size)
            larger = const_size is not None and f.const_size is not None and f.const_size > const_size
            if not (exact or larger):
                continue
            rank = (0, 0) if exact else (1, f.const_size or 0)
            if best is not None and rank >= best[0]:
                continue
            if f.const_size is not None and any(profile.at[f.dealloca] <= start and f.const_size >= n for start, n in crowded):
                continue
            td = f.dealloca.results[0]
            if not ((w is not None and coverage.covers(w, td)) or coverage.host_covered(position, td)):
                continue
            if not profile.gap_fits(f, op):
                # Holding the freed memory until `op` would raise the peak; so would holding any
                # free of at least as many bytes made no later (its gap contains this one).
                if f.const_size is not None:
                    crowded.append((profile.at[f.dealloca], f.const_size))
                continue
            if not exact and not profile.subview_fits(f, op, const_size):
                continue  # the unused part of the larger storage would raise the peak
            best = (rank, f, exact, k)
            if exact:
                break
        if best is not None:
            _, f, exact, k = best
            bucket.take(k)
            profile.hold(f, op, const_size)
            if not exact:
                via_subview.add(op)
            reuses.append(Reuse(op, f.dealloca, f.resource, f.size, exact))
    return reuses


# Cost of a command in the schedule estimate (`_Profile`), in quarter units: the cost model of
# bench/bench_schedule.py's simulator (a dispatch 1, a copy or fill 0.25), calls and collectives
# counted as dispatches; cache control and the terminator take no time, a serial body adds up, a
# concurrent wave takes its longest child. (With every command costing the same, the estimate
# put copies between dispatches too late, and reuses it accepted raised the simulated peak of the
# 10k-dispatch bench DAG from 17 to 19 KiB.)
_WORK: RuleTable[int] = RuleTable(
    "_WORK",
    """What one command costs in reuse-allocations' schedule estimate (in quarters of a dispatch);
    a command without an entry costs its region's commands (a serial body adds up, a concurrent
    wave takes its longest), or nothing (cache control, terminators).""",
    policy="identity", default=None,
    entries={"stream.cmd.dispatch": 4, "stream.cmd.call": 4, "stream.cmd.collective": 4, "stream.cmd.copy": 1, "stream.cmd.fill": 1},
)


def _cost(op: Op) -> int:
    work = _WORK.get(op.name)
    if work is not None:
        return work
    if not op.regions or not op.regions[0].blocks:
        return 0
    costs = [_cost(c) for c in op.regions[0].blocks[0].ops]
    return max(costs, default=0) if op.name == "stream.cmd.concurrent" else sum(costs)


@dataclass(slots=True)
class _Profile:
    """Live bytes over time in a schedule estimate of one block, to decide whether a reuse can
    raise their peak.

    Time: every timepoint is reached at the earliest moment its waits allow. An execute region
    (any op with a region) starts once what it awaits and what the host awaited before it are
    reached and the previous region on its affinity (in program order) has ended, and takes
    `_cost` units; a join is reached when its last input is, an alloca or dealloca when what it
    awaits is (allocating and freeing take no time); a host await blocks the host until its
    timepoint. Every schedule this describes respects the happens-before order, so a timepoint
    covered by another is never later. An allocation of constant size is live from its
    alloca's time to its dealloca's (to the end without a single dealloca in the block; dynamic
    sizes count as nothing, and a reuse holding one over a gap is refused); a free and an
    allocation at the same time do not overlap (the free goes first). Levels are kept for the
    whole block and per affinity (`str` of the attribute, as the reuse buckets), each with the
    peak it had when the round started."""

    times: list[int]  # the distinct event times, sorted
    level: np.ndarray  # live bytes during [times[i], times[i + 1])
    peak: int
    at: dict[Op, int]  # alloca / dealloca -> index of its time in `times`
    end: dict[Op, int]  # alloca -> index of the time of its only dealloca (len(times) without one)
    per: dict[str, np.ndarray]  # affinity -> its own level
    per_peak: dict[str, int]

    @staticmethod
    def of(block: Block, uses_of: list[AllocationUses], defs: dict[Value, Op]) -> _Profile:
        reach: dict[Value, int] = {}
        host = 0
        queue: dict[str, int] = {}
        when: dict[Op, int] = {}
        for op in block.ops:
            waits = op.operands if op.name == "stream.timepoint.join" else awaited_timepoints(op)
            ready = max([host, *(reach.get(t, 0) for t in waits)])
            if op.name == "stream.timepoint.await":
                host = ready
                continue
            if op.regions:  # an execute region (or a control-flow op running some): on its device's queue
                device = str(op.properties.get("affinity"))
                ready = max(ready, queue.get(device, 0)) + _cost(op)
                queue[device] = ready
            if op.name in ("stream.resource.alloca", "stream.resource.dealloca"):
                when[op] = ready
            for r in op.results:
                if isinstance(r.type, TimepointType):
                    reach[r] = ready
        times = sorted(set(when.values()))
        index = {t: i for i, t in enumerate(times)}
        at = {op: index[t] for op, t in when.items()}
        level = np.zeros(len(times), dtype=np.int64)
        per: dict[str, np.ndarray] = {}
        end: dict[Op, int] = {}
        for uses in uses_of:
            frees = [op for _, op in uses.owned if op.name == "stream.resource.dealloca"]
            end[uses.alloca] = at[frees[0]] if len(uses.owned) == 1 and frees and not uses.escapes else len(times)
            size = constant_int(view(uses.alloca).storage_size, defs)
            if size:
                level[at[uses.alloca] : end[uses.alloca]] += size
                key = str(view(uses.alloca).affinity)
                if key not in per:
                    per[key] = np.zeros(len(times), dtype=np.int64)
                per[key][at[uses.alloca] : end[uses.alloca]] += size
        return _Profile(times, level, int(level.max(initial=0)), at, end, per, {k: int(v.max(initial=0)) for k, v in per.items()})

    def _extra(self, f: _Freed, alloca: Op, size: int | None) -> list[tuple[int, int, int]]:
        """The bytes (start, stop, bytes) that handing `f` to `alloca` adds: the freed memory
        between the free and the allocation, and, through a subview, the part of the larger
        storage the allocation does not use during its lifetime. None of it when the gap is
        empty and the sizes are the same."""
        extra = [self._gap(f, alloca)]
        if size is not None and f.const_size is not None and f.const_size > size:
            extra.append((self.at[alloca], self.end.get(alloca, len(self.times)), f.const_size - size))
        return [e for e in extra if e[0] < e[1]]

    def _gap(self, f: _Freed, alloca: Op) -> tuple[int, int, int]:
        return self.at[f.dealloca], self.at[alloca], f.const_size or 0

    def _room(self, start: int, stop: int, n: int, device: str) -> bool:
        if start >= stop:
            return True
        if int(self.level[start:stop].max()) + n > self.peak:
            return False
        per = self.per.get(device)
        return per is None or int(per[start:stop].max()) + n <= self.per_peak[device]

    def gap_fits(self, f: _Freed, alloca: Op) -> bool:
        """Whether holding `f`'s memory from its free to `alloca` leaves the peaks where they
        are (an unknown size held over a non-empty gap: cannot tell, so no)."""
        start, stop, n = self._gap(f, alloca)
        return start >= stop or (f.const_size is not None and self._room(start, stop, n, f.device))

    def subview_fits(self, f: _Freed, alloca: Op, size: int | None) -> bool:
        """Whether keeping the part of `f`'s larger storage that `alloca` leaves unused, for
        `alloca`'s lifetime, leaves the peaks where they are."""
        assert size is not None and f.const_size is not None
        return self._room(self.at[alloca], self.end.get(alloca, len(self.times)), f.const_size - size, f.device)

    def hold(self, f: _Freed, alloca: Op, size: int | None) -> None:
        """Count a reuse that `fits` into the levels, before the next one is checked."""
        for start, stop, n in self._extra(f, alloca, size):
            self.level[start:stop] += n
            if f.device in self.per:
                self.per[f.device][start:stop] += n


@dataclass(slots=True)
class _Bucket:
    """The frees of one (type, affinity), in program order, with taken ones skipped in amortised
    constant time (`prev` is a union-find pointer to the nearest free at or before an index that
    is still available), so that asking for every allocation stays near-linear."""

    frees: list[_Freed] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    prev: list[int] = field(default_factory=list)

    def add(self, f: _Freed) -> None:
        self.prev.append(len(self.frees))
        self.frees.append(f)
        self.positions.append(f.position)

    def _find(self, k: int) -> int:
        root = k
        while root >= 0 and self.prev[root] != root:
            root = self.prev[root]
        while k >= 0 and self.prev[k] != k:  # path compression
            self.prev[k], k = root, self.prev[k]
        return root

    def take(self, k: int) -> None:
        self.prev[k] = k - 1

    def before(self, position: int) -> Iterator[tuple[int, _Freed]]:
        """Available frees issued before `position`, latest first (at most `SCAN` of them: an
        allocation looks for memory among the most recent frees, as IREE looks only through the
        joins it awaits)."""
        k = self._find(bisect_left(self.positions, position) - 1)
        for _ in range(SCAN):
            if k < 0:
                return
            yield k, self.frees[k]
            k = self._find(k - 1)


def _reuse_function(f: Function) -> Function:
    check_straight_line(f, "reuse-allocations", STRUCTURED)
    return f.with_body(_reuse_block(f.body).ops)


def _reuse_block(block: Block) -> Block:
    """`block` with its reuses applied, in the blocks of `scf` regions first, each on its own
    (memory is handed over only within one block: a free in one iteration is not reused by
    the next, and nothing an `scf` op uses is ever freed in its parent block)."""
    block = map_scf_blocks(block, _reuse_block)
    while True:
        reuses = plan_reuses(block)
        if not reuses:
            return block
        block = _apply(block, reuses)


def _apply(block: Block, reuses: list[Reuse]) -> Block:
    by_alloca = {r.alloca: r for r in reuses}
    by_dealloca = {r.dealloca: r for r in reuses}
    mapping: dict[Value, Value] = {}
    subviews: dict[Value, Reuse] = {}  # subview result -> reuse (its frees must free the base)
    ops: list[Op] = []

    def resolve(v: Value) -> Value:
        # Values are mapped before anything defined later refers to them, so one step is enough.
        return mapping.get(v, v)

    def immediate() -> Value:
        op = build("stream.timepoint.immediate", results={"result_timepoint": TIMEPOINT})
        ops.append(op)
        return op.results[0]

    for op in block.ops:
        reuse = by_dealloca.get(op)
        if reuse is not None:
            awaited = view(op).await_timepoint
            mapping[op.results[0]] = resolve(awaited) if awaited is not None else immediate()
            continue
        reuse = by_alloca.get(op)
        if reuse is not None:
            alloca = view(op)
            awaited = alloca.await_timepoint
            mapping[op.results[1]] = resolve(awaited) if awaited is not None else immediate()
            if reuse.exact:
                mapping[op.results[0]] = resolve(reuse.storage)  # chains: storage reused earlier
            else:
                # The freed storage may itself have been reused earlier in this round (an exact
                # link of a chain): its alloca is gone, so view the storage it stands for.
                base = resolve(reuse.storage)
                zero = build("arith.constant", results={"result": INDEX}, attrs={"value": IntegerAttr(0, INDEX)})
                subview = build(
                    "stream.resource.subview",
                    {"source": base, "source_size": reuse.storage_size, "source_offset": zero.results[0], "result_size": alloca.storage_size},
                    {"result": op.results[0].type},
                    location=op.location,
                )
                ops += [zero, subview]
                mapping[op.results[0]] = subview.results[0]
                subviews[subview.results[0]] = reuse
            continue
        new = remap_op(op, mapping)
        if new.name == "stream.timepoint.join":
            inputs = tuple(dict.fromkeys(new.operands))  # a free and its await may have merged
            if len(inputs) == 1:
                mapping[new.results[0]] = inputs[0]
                continue
            new = new.replace(operands=inputs) if len(inputs) != len(new.operands) else new
        if new.name == "stream.resource.dealloca" and view(new).operand in subviews:
            # Free the whole storage, not the subview the allocation now is.
            freed = subviews[view(new).operand]
            new = new.replace(operands=(resolve(freed.storage), freed.storage_size, *new.operands[2:]))
        ops.append(new)
    return Block(block.arguments, tuple(ops))

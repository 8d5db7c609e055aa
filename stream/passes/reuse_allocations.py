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
  (`stream.analysis.timepoint_coverage`).

The rewrite deletes A and D: A's resource becomes D's storage, D's timepoint becomes D's await
(what the old users finished by), and A's timepoint becomes A's own await (which now waits for
the old users, as the fresh memory did). Every user of the new resource therefore runs after
every user of the old one. A free of A's resource (from ARC) now frees the reused storage, so
chains of reuse are followed in one round (through a larger buffer's subview, on the next one);
the pass runs rounds until nothing changes.

Invariant established: every access to a reused allocation is ordered after every access made
before it was freed; the allocation is freed once, by the last of its users' deallocas.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field

from stream.analysis.liveness import allocation_uses
from stream.analysis.timepoint_coverage import TimepointCoverage
from stream.ir.attributes import Attribute, IntegerAttr
from stream.ir.core import Block, Module, Op, Value
from stream.ir.spec import view
from stream.ir.types import INDEX, TIMEPOINT
from stream.ir.walk import Function, bodies, constant_int, defining_ops, map_scf_blocks, replace_op
from stream.passes.async_to_cmd import build
from stream.passes.block_builder import STRUCTURED, check_straight_line, remap_op
from stream.passes.pass_manager import register_pass

__all__ = ["reuse_allocations", "Reuse", "plan_reuses", "SCAN"]

# How many of the latest available frees an allocation considers (keeps the pass linear).
SCAN = 64


@register_pass("reuse-allocations")
def reuse_allocations(module: Module) -> Module:
    """Let allocations take the memory of frees they await (atomic reallocation)."""
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


def plan_reuses(block: Block) -> list[Reuse]:
    """The reuses one round performs on `block`, in allocation order."""
    coverage = TimepointCoverage.of(block)
    defs = defining_ops(block)
    freed: list[_Freed] = []
    for uses in allocation_uses(block):
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
                            uses.resource.type, alloca.affinity))
    buckets: dict[tuple[str, str], _Bucket] = {}
    for f in freed:
        buckets.setdefault((str(f.type), str(f.affinity)), _Bucket()).add(f)
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
        # Latest free first: the first exact fit is the best one.
        for k, f in bucket.before(position):
            if f.alloca in via_subview:
                continue
            exact = f.size is size or (const_size is not None and f.const_size == const_size)
            larger = const_size is not None and f.const_size is not None and f.const_size > const_size
            if not (exact or larger):
                continue
            td = f.dealloca.results[0]
            if not ((w is not None and coverage.covers(w, td)) or coverage.host_covered(position, td)):
                continue
            rank = (0, 0) if exact else (1, f.const_size or 0)
            if best is None or rank < best[0]:
                best = (rank, f, exact, k)
            if exact:
                break
        if best is not None:
            _, f, exact, k = best
            bucket.take(k)
            if not exact:
                via_subview.add(op)
            reuses.append(Reuse(op, f.dealloca, f.resource, f.size, exact))
    return reuses


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

"""schedule-execution: partition the streamable ops of each function into `async.execute` regions.

Every streamable async op (dispatches, splats, clones, slices, fills, updates, copies, transfers,
allocas, constants) moves into a `stream.async.execute` region on one device, following the
`Partitioning` analysis (`stream.analysis.partitioning`): ops are grouped by device, by the number
of device changes on their longest dependency path into them and out of them, and by the
side-effecting host ops before them. Independent work of different devices therefore lands in
different regions that do not wait for each other, where IREE 3.13 makes one device's region wait
for the other's (see `tests/data/iree/i_multidevice_overlap`). Cheap ops (splats, allocas, clones, dispatches that read
nothing) are duplicated into each consuming region of their device; `async.barrier`s are dropped
after steering the partitioning.

Each region captures the resources it reads from outside, yields the values used after it (tied
to a capture when written in place there), and awaits the timepoints its ops awaited. Every use of
a region result outside the region goes through a host `stream.timepoint.await` placed right
before the first op that needs it, and so does a value whose storage a region touches before an
op that writes it (a storage hazard without data flow); `propagate-timepoints` later turns the
awaits that feed other regions into device-side waits. (IREE places these awaits right after the
region; placing them at the first use lets the host issue independent regions first.) Before the
function returns, the host also waits for any region nobody waited for (a `sync` await: nothing
uses its results, and a plain await is pure), so that no access to the caller's memory outlives
the call. Host ops keep their relative order where it matters
(side-effecting ones); regions are issued as early as their dependencies allow.

Invariant established: no streamable op remains outside an execute region; every region has one
affinity; regions and host ops appear in an order that respects every use-def edge and every
storage hazard of the input; every value produced in a region and used outside it is used through
an await on that region's timepoint (or a join covering it). The values computed are unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from stream.analysis.partitioning import Partition, PartitionPlan, partition_block
from stream.analysis.region_outlining import build_region_op, outline, remap_op
from stream.analysis.resource_sizes import resource_sizes
from stream.analysis.streamability import STRUCTURED, require_straight_line
from stream.ir.attributes import Attribute, UnitAttr
from stream.ir.core import UNKNOWN_LOC, Block, Location, Module, Op, Region, Value
from stream.ir.spec import spec_of
from stream.ir.types import TIMEPOINT, ResourceType
from stream.ir.walk import bodies, replace_op
from stream.passes.pass_manager import register_pass

__all__ = ["schedule_execution"]


@register_pass("schedule-execution")
def schedule_execution(module: Module) -> Module:
    """Partition streamable ops into `stream.async.execute` regions per device."""
    module_default = module.attributes.get("stream.affinity.default")
    out = module
    for f in bodies(module):
        require_straight_line(f.op, f.name, "schedule-execution", STRUCTURED)
        default = f.attr("stream.affinity") or module_default
        ops = schedule_block(f.body, default)
        if ops is not None:
            out = replace_op(out, f.op, f.with_body(ops).op)
    return out


def schedule_block(block: Block, default: Attribute | None, live: frozenset[int] | None = None) -> tuple[Op, ...] | None:
    """The ops of `block` scheduled (None when it has nothing to schedule), then the blocks of
    its `scf` regions, each on its own. An `scf` op is a side-effecting host op of its block: it
    gets the awaited form of every region result it uses, in its regions too, like any host
    op. A region's block (`live`: the indices of the values it yields that its parent uses) is
    scheduled like a function body: what it yields is awaited before `scf.yield`
    (propagate-timepoints then carries the timepoints out), and before the yield the host
    waits for every region of the block whose work does not reach a live yielded value through
    captures (nothing after the `scf` op would be ordered after that work)."""
    scheduled = _Scheduler(block, default, live).run()
    ops = block.ops if scheduled is None else scheduled
    changed = scheduled is not None
    out = []
    used_after: set[Value] = {v for op in ops for inner in op.walk() for v in inner.operands}
    for op in ops:
        if op.dialect == "scf" and op.regions:
            results_used = frozenset(i for i, r in enumerate(op.results) if r in used_after)
            regions = []
            for region in op.regions:
                blocks = []
                for inner in region.blocks:
                    nested = schedule_block(inner, default, results_used)
                    blocks.append(inner if nested is None else Block(inner.arguments, nested))
                    changed |= nested is not None
                regions.append(Region(tuple(blocks)))
            op = op.replace(regions=tuple(regions))
        out.append(op)
    return tuple(out) if changed else None


def strip_implied_affinities(op: Op, affinity: Attribute | None) -> Op:
    """Drop affinities a region now implies: the op's own `on(...)`, and a transfer's source or
    target when it is the region's device (as IREE's ScheduleExecution does)."""
    if affinity is None:
        return op
    props = dict(op.properties)
    names = ("execution_affinity", "source_affinity", "target_affinity") if op.name == "stream.async.transfer" else ("affinity",)
    changed = False
    for name in names:
        if props.get(name) == affinity:
            del props[name]
            changed = True
    return op.replace(properties=props) if changed else op


def _own_awaits(op: Op) -> tuple[Op, list[Value]]:
    """Strip an op's `await(...)` (the region waits instead) and return what it awaited."""
    spec = spec_of(op)
    if spec is None or "await_timepoint" not in {o.name for o in spec.operands}:
        return op, []
    awaited = list(spec.operand_group(op, "await_timepoint"))
    if not awaited:
        return op, []
    sizes = spec.operand_sizes(op)
    index = spec.operand_offset(op, "await_timepoint")
    operands = op.operands[:index] + op.operands[index + len(awaited) :]
    sizes[[o.name for o in spec.operands].index("await_timepoint")] = 0
    props = dict(op.properties)
    props.update(spec.segment_properties(sizes, spec.result_sizes(op) if spec.result_segmented else None))
    return op.replace(operands=operands, properties=props), awaited


class _Scheduler:
    """Rebuilds one function body from a partition plan."""

    def __init__(self, block: Block, default: Attribute | None, live: frozenset[int] | None = None) -> None:
        self.block = block
        self.live = live  # a region's block: which yielded values its parent uses
        self.default = default
        self.plan: PartitionPlan = partition_block(block, default)
        self.sizes = self.plan.analysis.sizes if self.plan.analysis is not None else resource_sizes(block)
        self.emitted: list[Op] = []
        self.raw: dict[Value, Value] = {}  # escaping value -> the region result carrying it
        self.origin: dict[Value, Value] = {}  # region result -> the escaping value it carries
        self.producer: dict[Value, int] = {}  # escaping value -> its partition
        self.timepoint: dict[int, Value] = {}  # partition -> its result timepoint
        self.awaited: dict[tuple[Value, frozenset[int]], Value] = {}
        self.host_awaited: set[int] = set()  # partitions the host has waited for
        self.host_used: dict[int, list[Value]] = {}  # partition -> its results host ops use
        self.handle: dict[int, tuple[Value, Value]] = {}  # partition -> a value (and size) to await it with

    def run(self) -> tuple[Op, ...] | None:
        plan = self.plan
        if not plan.partitions:
            return None
        for part in plan.partitions:
            for v in part.escapes:
                self.producer[v] = part.ordinal
        ops = self.block.ops
        # Results the host uses, per region: one await hands them all over (as IREE does).
        for kind, index in [*plan.order, ("op", len(ops) - 1)]:
            if kind == "op":
                for inner in ops[index].walk():
                    for v in inner.operands:
                        rv = plan.resolve(v)
                        if rv in self.producer:
                            self.host_used.setdefault(self.producer[rv], []).append(rv)
        for unit in plan.order:
            if unit[0] == "partition":
                self._emit_partition(plan.partitions[unit[1]])
            else:
                self._emit_host(ops[unit[1]], unit)
        if plan.terminator is not None:
            self._emit_host(plan.terminator, ("op", len(ops) - 1))
            self._await_leftovers()
        return tuple(self.emitted)

    def _await_leftovers(self) -> None:
        """Regions nobody waited for (their results are dropped, or only feed other such regions)
        still touch memory: the host waits for them before returning, so that no access to the
        caller's buffers outlives the call."""
        if self.live is None:
            left = [p for p in sorted(self.handle) if p not in self.host_awaited]
        else:
            reached = self._reaching_live_yields()
            left = [p for p in sorted(self.handle) if p not in reached]
        if not left:
            return
        terminator = self.emitted.pop()
        # Nothing uses these results, so only a `sync` await orders the return (a plain await is
        # pure and would order nothing: stream.dialect.awaits).
        self._emit_await(frozenset(left), [self.handle[p][0] for p in left], [self.handle[p][1] for p in left],
                         location=terminator.location, sync=True)
        self.emitted.append(terminator)

    def _reaching_live_yields(self) -> set[int]:
        """The partitions whose work a live yielded value depends on, through region captures
        (in the block of an `scf` region: the parent's uses of those values order it)."""
        plan = self.plan
        terminator = self.block.ops[-1]
        assert self.live is not None
        stack = [plan.resolve(v) for i, v in enumerate(terminator.operands) if i in self.live]
        reached: set[int] = set()
        while stack:
            p = self.producer.get(stack.pop())
            if p is None or p in reached:
                continue
            reached.add(p)
            stack.extend(plan.resolve(c) for c in plan.partitions[p].captures)
        return reached

    # -- values crossing units ------------------------------------------------------------------
    def _needs(self, values: Sequence[Value], hazards: dict[int, list[Value]]) -> dict[Value, frozenset[int]]:
        """For each value a unit uses: the partitions whose timepoint must be awaited first."""
        out: dict[Value, frozenset[int]] = {}
        for v in values:
            waits: set[int] = set()
            if v in self.producer:
                waits.add(self.producer[v])
            for p, hazard_values in hazards.items():
                if v in hazard_values:
                    waits.add(p)
            out[v] = frozenset(waits)
        return out

    def _replacements(self, needs: dict[Value, frozenset[int]], location: Location) -> dict[Value, Value]:
        """Outer values for a unit's operands: plain, or awaited (one await per set of
        partitions, emitted right here, before the unit, at the unit's location)."""
        groups: dict[frozenset[int], list[Value]] = {}
        for v, waits in needs.items():
            if waits and (self._raw(v), waits) not in self.awaited:
                group = groups.setdefault(waits, [])
                if self._raw(v) not in group:
                    group.append(self._raw(v))
        for waits, raws in groups.items():
            if len(waits) == 1:
                (p,) = waits
                for v in self.host_used.get(p, []):
                    if (self._raw(v), waits) not in self.awaited and self._raw(v) not in raws:
                        raws.append(self._raw(v))
            self._emit_await(waits, raws, location=location)
        return {v: (self.awaited[(self._raw(v), waits)] if waits else self._raw(v)) for v, waits in needs.items()}

    def _raw(self, v: Value) -> Value:
        return self.raw.get(v, v)

    def _emit_await(self, waits: frozenset[int], raws: list[Value], sizes: list[Value] | None = None, *,
                    location: Location = UNKNOWN_LOC, sync: bool = False) -> None:
        """A host await of the partitions `waits` for `raws`, placed (for diagnostics) where the
        op that needs them is."""
        timepoints = [self.timepoint[p] for p in sorted(waits)]
        if len(timepoints) == 1:
            timepoint = timepoints[0]
        else:
            join = _spec("stream.timepoint.join").build(
                operands={"await_timepoints": tuple(timepoints)}, results={"result_timepoint": TIMEPOINT}, location=location
            )
            self.emitted.append(join)
            timepoint = join.results[0]
        self.host_awaited |= waits
        op = _spec("stream.timepoint.await").build(
            operands={
                "resource_operands": tuple(raws),
                "resource_operand_sizes": tuple(sizes) if sizes is not None else tuple(self._size(r) for r in raws),
                "await_timepoint": timepoint,
            },
            results={"results": tuple(r.type for r in raws)},
            attrs={"sync": UnitAttr() if sync else None},
            location=location,
        )
        self.emitted.append(op)
        for raw, result in zip(raws, op.results):
            self.awaited[(raw, waits)] = result

    def _size(self, raw: Value) -> Value:
        return self.sizes[self.origin.get(raw, raw)]

    # -- units ----------------------------------------------------------------------------------
    def _emit_host(self, op: Op, unit: tuple[str, int]) -> None:
        waited = set(self.host_awaited)
        self._emit_host_op(op, unit)
        if op.dialect == "scf":
            # An await of region results for an `scf` op orders only their users in its regions,
            # which may not run (a branch not taken, a loop run no time): it is no host wait.
            self.host_awaited = waited

    def _emit_host_op(self, op: Op, unit: tuple[str, int]) -> None:
        resolve = self.plan.resolve
        resources = []
        for inner in op.walk():
            for v in inner.operands:
                rv = resolve(v)
                if isinstance(rv.type, ResourceType) and rv not in resources:
                    resources.append(rv)
        needs = self._needs(resources, self.plan.hazard_waits.get(unit, {}))
        replace = self._replacements(needs, op.location)
        mapping = {v: replace.get(resolve(v), v) for inner in op.walk() for v in inner.operands}
        self.emitted.append(remap_op(op, mapping))

    def _emit_partition(self, part: Partition) -> None:
        ops = self.block.ops
        members = [ops[i] for i in part.ops]
        needs = self._needs(part.captures, self.plan.hazard_waits.get(("partition", part.ordinal), {}))
        replace = self._replacements(needs, members[0].location)
        awaited: list[Value] = []

        def rewrite(op: Op) -> Op:
            op, waits = _own_awaits(op)
            awaited.extend(waits)
            return strip_implied_affinities(op, part.affinity)

        outlined = outline(
            members,
            part.captures,
            part.escapes,
            self.sizes,
            substitute=self.plan.elided,
            rewrite=rewrite,
            location=members[0].location,
        )
        outlined = dataclasses.replace(outlined, captures=tuple(replace[c] for c in part.captures))
        await_timepoint: Value | None = None
        unique = list(dict.fromkeys(awaited))
        if len(unique) == 1:
            await_timepoint = unique[0]
        elif unique:
            join = _spec("stream.timepoint.join").build(
                operands={"await_timepoints": tuple(unique)}, results={"result_timepoint": TIMEPOINT}
            )
            self.emitted.append(join)
            await_timepoint = join.results[0]
        execute = build_region_op(
            "stream.async.execute",
            outlined,
            affinity=part.affinity,
            await_timepoint=await_timepoint,
            location=members[0].location,
        )
        self.emitted.append(execute)
        for original, result in zip(part.escapes, execute.results):
            self.raw[original] = result
            self.origin[result] = original
        self.timepoint[part.ordinal] = execute.results[-1]
        if part.escapes:
            self.handle[part.ordinal] = (execute.results[0], self.sizes[part.escapes[0]])
        elif outlined.captures:
            self.handle[part.ordinal] = (outlined.captures[0], outlined.capture_sizes[0])


def _spec(name: str):  # type: ignore[no-untyped-def]
    spec = spec_of(name)
    assert spec is not None
    return spec

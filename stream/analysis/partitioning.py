"""Partitioning: which streamable ops of a block run in which execution region, and the order in
which regions and host ops are issued.

IREE's reference partitioner walks the block bottom-up and puts each op into a partition of one of
its consumers. That keeps regions few but lets an op join a region that waits for another device
although the op itself does not (IREE 3.13 makes `device_a` wait for all of `device_b` in
`i_multidevice_overlap`). This partitioner instead gives every op a *level*: the number of
device changes on the longest dependency path that reaches it.

    level(op) = max over dependencies d of level(d) + (1 if d runs elsewhere else 0)

where "elsewhere" means another device key (an affinity, or the host for non-streamable ops).
Dependencies are use-def edges plus the storage-hazard edges of `ResourceHazards` (an op that
writes bytes an earlier op reads or writes, in program order). Symmetrically, the *backward level*
counts the device changes on the longest path from an op to a host use. Streamable ops with the
same (device key, level, backward level, epoch) form one partition; the *epoch* of an op counts the
side-effecting host ops before it (`cf.assert`, calls, unknown ops), so that no op is hoisted
across one.

Invariants (checked by `tests/passes/test_partitioning.py`, also on random programs):

1. every streamable op is in exactly one partition, except that cheap ops (`splat`, `alloca`,
   `clone`, dispatches that read nothing) are copied into each partition of their device that
   consumes them, and also kept in a partition of their own only when something else uses them;
2. every partition has one device key, and the partitions and host ops form an acyclic graph:
   along every edge the epoch and the level never decrease and the backward level never
   increases, and an edge between two partitions of equal epoch and level joins two partitions
   of one device whose backward levels differ (a change of device adds one to the level);
3. a region waits, at its start, only for work of lower levels: ops that depend on no other
   device's work (level 0) never wait for another device, and no op waits for a longer chain of
   cross-device dependencies than its own; at its end, a region holds only ops at the same
   distance from the host, so work whose result another device needs next is not held back by
   work of its device that nothing needs as soon;
4. the issue order lists every host op and partition after everything it depends on, keeps the
   side-effecting host ops in program order, and issues device work as early as possible.

`async.barrier` ops only steer partitioning (they give a value a device); they are elided from the
plan (`PartitionPlan.elided`), as IREE's ScheduleExecution deletes them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from stream.analysis.resource_hazards import HazardAnalysis, Mode, op_accesses
from stream.analysis.streamability import (
    ELIDED,
    HOST,
    DeviceKey,
    HostKey,
    execution_affinity,
    is_cloneable,
    is_side_effecting,
    is_streamable,
    used_values,
)
from stream.ir.attributes import Attribute
from stream.ir.core import Block, Op, Value
from stream.ir.spec import spec_of
from stream.ir.types import ResourceType

__all__ = ["Partition", "PartitionPlan", "Unit", "partition_block", "PartitioningError"]


Unit = tuple[str, int]  # ("partition", ordinal) or ("op", index in the block)


class PartitioningError(Exception):
    """The plan violates one of its invariants (an internal error, never a user error)."""




@dataclass(slots=True)
class Partition:
    """One future `async.execute` region."""

    ordinal: int
    affinity: Attribute | None
    level: int
    epoch: int
    rlevel: int  # device changes on the longest path from the partition to a host use
    ops: list[int] = field(default_factory=list)  # member op indices, program order
    copies: set[int] = field(default_factory=set)  # members duplicated here from elsewhere
    captures: list[Value] = field(default_factory=list)  # resource values from outside
    escapes: list[Value] = field(default_factory=list)  # member results used outside


@dataclass(slots=True)
class PartitionPlan:
    block: Block
    partitions: list[Partition]
    # The partition each placed op's results escape from (copies stay inside their partition).
    home: dict[int, int]
    # Every op index -> the partitions holding it (empty for host ops and elided barriers).
    holders: dict[int, set[int]]
    # Elided barrier results -> the value they stand for.
    elided: dict[Value, Value]
    # The issue order of partitions and host ops (the terminator is not included).
    order: list[Unit]
    # unit -> partition ordinal -> values the unit uses (operands of a host op, captures of a
    # partition) that must be routed through that partition's timepoint because of a storage
    # hazard without data flow (e.g. the partition reads what the unit writes in place).
    hazard_waits: dict[Unit, dict[int, list[Value]]]
    # The block's terminator (not part of `order`; it stays last), if it has one.
    terminator: Op | None = None
    # The storage analysis the plan was built with (its `sizes` serve the passes too).
    analysis: HazardAnalysis | None = None

    def resolve(self, v: Value) -> Value:
        """The value an elided barrier result stands for (`v` itself otherwise)."""
        while v in self.elided:
            v = self.elided[v]
        return v


@dataclass(slots=True)
class _Builder:
    block: Block
    default: Attribute | None
    ops: tuple[Op, ...] = ()
    def_index: dict[Value, int] = field(default_factory=dict)
    preds: list[set[int]] = field(default_factory=list)
    users: list[set[int]] = field(default_factory=list)
    hazard: list[tuple[int, int]] = field(default_factory=list)
    key: list[DeviceKey] = field(default_factory=list)
    level: list[int | None] = field(default_factory=list)
    rlevel: list[int] = field(default_factory=list)
    epoch: list[int] = field(default_factory=list)
    copyable: list[bool] = field(default_factory=list)
    elided: dict[Value, Value] = field(default_factory=dict)
    analysis: HazardAnalysis | None = None

    def run(self) -> PartitionPlan:
        self.ops = self.block.ops[:-1] if self.block.ops and _is_terminator(self.block.ops[-1]) else self.block.ops
        self._graph()
        self._keys_and_epochs()
        self._levels()
        partitions, home, holders = self._group()
        terminator = self.block.ops[-1] if len(self.ops) < len(self.block.ops) else None
        plan = PartitionPlan(self.block, partitions, home, holders, dict(self.elided), [], {}, terminator, self.analysis)
        self._io(plan)
        plan.order = self._issue_order(plan)
        plan.hazard_waits = self._hazard_waits(plan)
        return plan

    # -- the dependency graph ------------------------------------------------------------------
    def _graph(self) -> None:
        ops = self.ops
        for i, op in enumerate(ops):
            for r in op.results:
                self.def_index[r] = i
        self.preds = [set() for _ in ops]
        self.users = [set() for _ in ops]
        for i, op in enumerate(ops):
            for v in used_values(op):
                d = self.def_index.get(v)
                if d is not None:
                    self.preds[i].add(d)
                    self.users[d].add(i)
            if op.name in ELIDED:
                self.elided[op.results[0]] = op.operands[0]
        # The terminator's uses only matter for escapes (handled in `_io`).
        self.analysis = analysis = HazardAnalysis.of(self.block)
        last_write = self._last_writes(analysis) if any(is_cloneable(op) for op in ops) else {}
        self.copyable = [is_cloneable(op) and not self._overwritten_later(analysis, i, last_write) for i, op in enumerate(ops)]
        # A cheap op that gets copied only writes its own fresh storage: whoever touches that
        # storage later reaches it through its result (a use-def path), so its hazard edges add
        # nothing, and they would not say which copy is meant.
        self.hazard = [(i, j) for i, j in analysis.edges([(op,) for op in ops]) if not self.copyable[i]]
        for i, j in self.hazard:
            self.preds[j].add(i)

    def _last_writes(self, analysis: HazardAnalysis) -> dict[Value, int]:
        """The position of the last op that writes each storage root (one walk, so that asking
        for every cheap op stays linear)."""
        last: dict[Value, int] = {}
        for j, op in enumerate(self.ops):
            for a in op_accesses(op):
                if a.mode & Mode.WRITE:
                    last[analysis.aliases.root(a.value)[0]] = j
        return last

    def _overwritten_later(self, analysis: HazardAnalysis, i: int, last_write: dict[Value, int]) -> bool:
        """Whether some later op writes storage op `i` reads: then copies of `i` in later
        partitions would read the new bytes, so `i` must not be duplicated."""
        read_roots = {analysis.aliases.root(a.value)[0] for a in op_accesses(self.ops[i]) if a.value not in self.ops[i].results}
        return any(last_write.get(root, -1) > i for root in read_roots)

    def _keys_and_epochs(self) -> None:
        epoch = 0
        for op in self.ops:
            self.epoch.append(epoch)
            if is_streamable(op):
                key: DeviceKey = execution_affinity(op, self.default)
                if op.name in ELIDED and op.properties.get("affinity") is None:
                    producer = self.def_index.get(op.operands[0])
                    if producer is not None and self.key[producer] is not HOST:
                        key = self.key[producer]
                self.key.append(key)
            else:
                self.key.append(HOST)
                if is_side_effecting(op):
                    epoch += 1

    def _compatible_copy(self, p: int, i: int) -> bool:
        """Whether cheap op `p` would be copied into the partition of its user `i`."""
        return self.copyable[p] and self.key[i] is not HOST and (self.key[p] is None or self.key[p] == self.key[i])

    def _effective_preds(self, i: int, p: int, seen: set[int]) -> Iterator[int]:
        """The dependencies `p` brings to `i`: `p` itself, or, when `p` is copied into `i`'s
        partition, what `p` depends on."""
        if p in seen:
            return
        seen.add(p)
        if self._compatible_copy(p, i):
            for q in self.preds[p]:
                yield from self._effective_preds(i, q, seen)
        else:
            yield p

    def _levels(self) -> None:
        """Forward levels (device changes on the longest path into an op) and backward levels
        (device changes on the longest path out of it, to a host use)."""
        for i in range(len(self.ops)):
            best: int | None = None
            seen: set[int] = set()
            for p in self.preds[i]:
                for q in self._effective_preds(i, p, seen):
                    lq = self.level[q]
                    if lq is None:
                        continue
                    candidate = lq + (self.key[q] != self.key[i])
                    best = candidate if best is None else max(best, candidate)
            if best is None and self.key[i] is not HOST:
                best = 0
            self.level.append(best)
        n = len(self.ops)
        succs: list[set[int]] = [set() for _ in range(n)]
        for j, ps in enumerate(self.preds):
            for p in ps:
                succs[p].add(j)
        returned = set(used_values(self.block.ops[-1])) if len(self.ops) < len(self.block.ops) else set()
        self.rlevel = [0] * n
        dead: list[int] = []
        for i in reversed(range(n)):
            best = 0
            used = any(r in returned for r in self.ops[i].results)
            if used:
                best = int(self.key[i] is not HOST)
            for s in self._effective_succs(i, succs, set()):
                used = True
                best = max(best, self.rlevel[s] + (self.key[i] != self.key[s]))
            self.rlevel[i] = best
            if not used and self.key[i] is not HOST:
                dead.append(i)
        # An op nobody consumes (a transfer or dispatch whose result is dropped) waits for
        # nothing after it: give it the largest backward level its producers allow, so it joins
        # its producer's region instead of forming one of its own.
        for i in reversed(dead):
            bounds = [self.rlevel[p] - (self.key[p] != self.key[i]) for p in self.preds[i]]
            self.rlevel[i] = max(0, min(bounds, default=0))

    def _needs_home(self, c: int) -> bool:
        """Whether cheap op `c` must also run in a partition of its own (something uses it that
        does not get a copy)."""
        users = [u for u in self._resolved_users(c) if self.ops[u].name not in ELIDED]
        return not users or any(not self._compatible_copy(c, u) for u in users)

    def _effective_succs(self, i: int, succs: list[set[int]], seen: set[int]) -> Iterator[int]:
        """The ops that consume `i`'s results where they run: through a cheap op copied into its
        consumers' partitions, those consumers (and the cheap op itself where it stays)."""
        for s in succs[i]:
            if s in seen:
                continue
            seen.add(s)
            if self.copyable[s]:
                yield from self._through_copy(s, succs, seen)
            else:
                yield s

    def _through_copy(self, c: int, succs: list[set[int]], seen: set[int]) -> Iterator[int]:
        if self._needs_home(c):
            yield c
        for u in succs[c]:
            if u in seen or not self._compatible_copy(c, u):
                continue
            seen.add(u)
            if self.copyable[u]:
                yield from self._through_copy(u, succs, seen)
            else:
                yield u

    # -- partitions ----------------------------------------------------------------------------
    def _resolved_users(self, i: int) -> set[int]:
        """Users of op `i`'s results, looking through elided barriers."""
        out: set[int] = set()
        for u in self.users[i]:
            if self.ops[u].name in ELIDED and self.def_index.get(self.ops[u].operands[0]) == i:
                out |= self._resolved_users(u)
            out.add(u)
        return out

    def _group(self) -> tuple[list[Partition], dict[int, int], dict[int, set[int]]]:
        partitions: list[Partition] = []
        by_key: dict[tuple[DeviceKey, int, int, int], int] = {}
        home: dict[int, int] = {}
        holders: dict[int, set[int]] = {i: set() for i in range(len(self.ops))}

        def partition_for(i: int) -> int:
            level = self.level[i]
            assert level is not None
            k = (self.key[i], level, self.rlevel[i], self.epoch[i])
            found = by_key.get(k)
            if found is None:
                key = self.key[i]
                affinity = None if key is HOST else key
                assert not isinstance(affinity, HostKey)
                found = len(partitions)
                partitions.append(Partition(found, affinity, level, self.epoch[i], self.rlevel[i]))
                by_key[k] = found
            return found

        cloneable: list[int] = []
        for i, op in enumerate(self.ops):
            if self.key[i] is HOST or op.name in ELIDED:
                continue
            if self.copyable[i]:
                cloneable.append(i)
                continue
            home[i] = partition_for(i)
            holders[i].add(home[i])
        # Cheap ops, consumers first so that chains of them are copied along.
        for i in reversed(cloneable):
            needs_home = not self._resolved_users(i)
            for u in self._resolved_users(i):
                if self.ops[u].name in ELIDED:
                    continue
                if self._compatible_copy(i, u) and holders[u]:
                    holders[i] |= holders[u]
                else:
                    needs_home = True
            if needs_home:
                home[i] = partition_for(i)
                holders[i].add(home[i])
        for i, parts in holders.items():
            for p in parts:
                partitions[p].ops.append(i)
                if home.get(i) != p:
                    partitions[p].copies.add(i)
        for part in partitions:
            part.ops.sort()
        return partitions, home, holders

    def _io(self, plan: PartitionPlan) -> None:
        """Captures and escapes of every partition."""
        terminator_uses = set(used_values(self.block.ops[-1])) if len(self.ops) < len(self.block.ops) else set()
        for part in plan.partitions:
            members = set(part.ops)
            for m in part.ops:
                for v in used_values(self.ops[m]):
                    rv = plan.resolve(v)
                    d = self.def_index.get(rv)
                    if d is not None and d in members:
                        continue
                    if isinstance(rv.type, ResourceType) and rv not in part.captures:
                        part.captures.append(rv)
        for i, p in plan.home.items():
            part = plan.partitions[p]
            for r in self.ops[i].results:
                if self._escapes(plan, i, p, r, terminator_uses):
                    part.escapes.append(r)

    def _escapes(self, plan: PartitionPlan, i: int, p: int, r: Value, terminator_uses: set[Value]) -> bool:
        if r in terminator_uses or any(plan.resolve(v) is r for v in terminator_uses):
            return True
        for u in self._resolved_users(i):
            if self.ops[u].name in ELIDED:
                continue
            if not any(plan.resolve(v) is r for v in used_values(self.ops[u])):
                continue
            if not plan.holders[u]:
                return True  # a host op
            for q in plan.holders[u]:
                if q != p and q not in plan.holders[i]:
                    return True
        return False

    # -- issue order ---------------------------------------------------------------------------
    def _issue_order(self, plan: PartitionPlan) -> list[Unit]:
        """Sort units by the potential (epoch, level, device-before-host, -backward level,
        position).

        Every dependency edge strictly increases this potential, so the sort is a topological
        order: along a use-def or hazard edge the epoch and the level never decrease and the
        backward level never increases; if epoch and level stay equal the two ends have the same
        device key (a change of key adds one to the level), so they are two partitions of one
        device whose backward levels differ, or two host ops, which keep program order. A
        side-effecting host op is keyed as the first unit of the next epoch, so everything issued
        before it in the input stays before it. Within one (epoch, level) partitions come first:
        device work is issued before the host blocks on anything. The order is checked against
        the edges anyway; a violation is an internal error."""
        keyed: list[tuple[tuple[int, int, int, int, int], Unit]] = []
        for part in plan.partitions:
            keyed.append(((part.epoch, part.level, 0, -part.rlevel, part.ops[0]), ("partition", part.ordinal)))
        for i, op in enumerate(self.ops):
            if self.key[i] is not HOST:
                continue
            if is_side_effecting(op):
                keyed.append(((self.epoch[i] + 1, -2, 1, 0, i), ("op", i)))
            else:
                level = self.level[i]
                keyed.append(((self.epoch[i], -1 if level is None else level, 1, 0, i), ("op", i)))
        keyed.sort(key=lambda item: item[0])
        order = [unit for _, unit in keyed]
        self._check_order(plan, order)
        return order

    def _units_of(self, plan: PartitionPlan, i: int) -> list[Unit]:
        """The units op `i` runs in (a host op, or the partitions holding a streamable op)."""
        if self.key[i] is HOST:
            return [("op", i)]
        return [("partition", p) for p in sorted(plan.holders[i])]

    def _providers(self, plan: PartitionPlan, p: int, unit: Unit) -> list[Unit]:
        """The units that must be issued before `unit` because one of its ops depends on op `p`."""
        if self.key[p] is HOST:
            return [("op", p)]
        if self.ops[p].name in ELIDED:
            out: list[Unit] = []
            for q in self.preds[p]:
                out.extend(self._providers(plan, q, unit))
            return out
        if unit[0] == "partition" and unit[1] in plan.holders[p]:
            return []
        if p not in plan.home:
            raise PartitioningError(f"op #{p} ('{self.ops[p].name}') is needed by {unit} but escapes from no partition")
        return [("partition", plan.home[p])]

    def _check_order(self, plan: PartitionPlan, order: list[Unit]) -> None:
        position = {unit: n for n, unit in enumerate(order)}
        for unit in order:
            members = plan.partitions[unit[1]].ops if unit[0] == "partition" else [unit[1]]
            for m in members:
                for p in self.preds[m]:
                    for source in self._providers(plan, p, unit):
                        if source != unit and position[source] >= position[unit]:
                            raise PartitioningError(f"{unit} would be issued before {source}, which it depends on")

    # -- hazard waits --------------------------------------------------------------------------
    def _hazard_waits(self, plan: PartitionPlan) -> dict[Unit, dict[int, list[Value]]]:
        analysis = self.analysis
        assert analysis is not None
        waits: dict[Unit, dict[int, list[Value]]] = {}
        for i, j in self.hazard:
            if self.key[i] is HOST:
                continue  # a host op completes before anything issued after it
            roots = analysis.conflicting_roots(self.ops[i], self.ops[j])
            for unit in self._units_of(plan, j):
                if unit[0] == "partition" and unit[1] in plan.holders[i]:
                    continue  # `i` runs in the unit itself (a copy of a cheap op, or a member)
                if i not in plan.home:
                    raise PartitioningError(f"op #{i} ('{self.ops[i].name}') is needed by {unit} but escapes from no partition")
                p = plan.home[i]
                shared = {r for r in roots if self._same_instance(plan, r, ("partition", p), unit)}
                if not shared:
                    continue  # the two ops touch different copies of a cheap op's result
                values = self._unit_values(plan, unit)
                if any(v in plan.partitions[p].escapes for v in values):
                    continue  # the data it takes from `p` already waits for all of `p`
                chosen = [v for v in values if analysis.aliases.root(v)[0] in shared]
                if not chosen:
                    raise PartitioningError(f"no value of {unit} carries the hazard on partition {p}")
                bucket = waits.setdefault(unit, {}).setdefault(p, [])
                bucket.extend(v for v in chosen if v not in bucket)
        return waits

    def _same_instance(self, plan: PartitionPlan, root: Value, a: Unit, b: Unit) -> bool:
        """Whether units `a` and `b` see the same storage for `root`: a cheap op's result has
        one instance per partition holding a copy, and its home instance everywhere else."""
        c = self.def_index.get(root)
        if c is None or not self.copyable[c]:
            return True

        def instance(unit: Unit) -> int | None:
            if unit[0] == "partition" and unit[1] in plan.holders[c]:
                return unit[1]
            return plan.home.get(c)

        return instance(a) == instance(b)

    def _unit_values(self, plan: PartitionPlan, unit: Unit) -> list[Value]:
        if unit[0] == "partition":
            return list(plan.partitions[unit[1]].captures)
        return [plan.resolve(v) for v in used_values(self.ops[unit[1]]) if isinstance(v.type, ResourceType)]


def _is_terminator(op: Op) -> bool:
    spec = spec_of(op)
    return spec is not None and "terminator" in spec.traits


def partition_block(block: Block, default_affinity: Attribute | None = None) -> PartitionPlan:
    """Partition the streamable ops of a straight-line block (see the module docstring)."""
    return _Builder(block, default_affinity).run()

"""propagate-timepoints' host waits: where the host blocks, and on what.

The host waits only where it consumes a value itself (exports, loads, stores, returns, calls,
unknown ops: `_host`), right before the first such op, once per set of timepoints (every
host-used value pending on the same set is awaited with it, `_await_for_host`), and before a host
op that writes storage an earlier region still reads or writes. A value awaited before with
enough coverage is reused. What the await covers counts as covered for later regions only when
the op it is made for is a host op with effects (not a pass-through op, nor a pure host op: those
order only what uses their results). Before the block ends, the host waits (`sync`) for every
region it has not waited for yet (`_await_leftovers`).
"""

from __future__ import annotations

from stream.analysis.region_outlining import remap_op
from stream.dialect.awaits import PASS_THROUGH, PURE_HOST_USERS, is_pure_value
from stream.ir.attributes import UnitAttr
from stream.ir.core import Op, Value
from stream.ir.types import ResourceType
from stream.passes.propagate_timepoints_timeline import Sources, Timeline, op_spec

__all__ = ["HostWaits"]


class HostWaits(Timeline):
    """The rewrite of host ops, and the host awaits the timeline needs."""

    def _host(self, j: int, op: Op, final: bool = False) -> None:
        """A host op: every resource it takes must be awaited on the host first."""
        hazard_roots: dict[Value, set[Value]] = {}
        for i, timepoint in self._hazard_sources(j):
            roots = self.analysis.conflicting_roots(self.ops[i], op)
            for root in roots:
                hazard_roots.setdefault(root, set()).add(timepoint)
        # A `sync` await waits itself: what its own timepoint covers needs no extra await.
        covered_here = 0
        if op.name == "stream.timepoint.await":
            covered_here = self._closure(self._sources_of(op_spec(op.name).operand_group(op, "await_timepoint")[0]))
        needs: dict[Value, set[Value]] = {}
        for inner in op.walk():
            for v in inner.operands:
                if not isinstance(v.type, ResourceType):
                    continue
                need = set(self._pending(v))
                need |= hazard_roots.get(self.analysis.aliases.root(v)[0], set())
                if need and self._closure(need) & ~covered_here:
                    needs.setdefault(v, set()).update(need)
        replacements, covered = self._await_for_host(needs)
        mapping: dict[Value, Value] = {}
        for inner in op.walk():
            for v in inner.operands:
                if v in replacements:
                    mapping[v] = replacements[v]
                else:
                    mapping[v] = self._raw(v) if isinstance(v.type, ResourceType) else self._mapped(v)
        new = remap_op(op, mapping)
        covered |= self._used_cover(op)
        if op.name in PURE_HOST_USERS or is_pure_value(op):  # ordered itself; only its users after it
            if covered:
                for r in op.results:
                    self.value_cover[r] = covered
        elif op.name not in PASS_THROUGH:  # a host op with effects: the host waits here
            self.host_covered |= covered
        if final:
            self._await_leftovers()
        self.emitted.append(new)
        if op.name == "stream.timepoint.await":  # a `sync` await: the host has waited
            self.host_covered |= self._closure(self._sources_of(op_spec(op.name).operand_group(op, "await_timepoint")[0]))

    def _sync_await(self, timepoints: list[Value]) -> None:
        """A host `sync` await of region timepoints (with a value of each to await it with)."""
        needed = [tp for tp in self._prune_for_host(frozenset(timepoints)) if tp in self.handle]
        if not needed:
            return
        values = [self.handle[tp] for tp in needed]
        op = op_spec("stream.timepoint.await").build(
            operands={
                "resource_operands": tuple(v for v, _ in values),
                "resource_operand_sizes": tuple(size for _, size in values),
                "await_timepoint": self._timepoint(needed),
            },
            results={"results": tuple(v.type for v, _ in values)},
            attrs={"sync": UnitAttr()},
            location=self.here,
        )
        self.emitted.append(op)
        self.host_covered |= self._closure(needed)

    def _block_timepoints(self) -> list[Value]:
        """The timepoints work issued in this block ends at: its regions' and its `scf` ops'."""
        return [*self.region_timepoint.values(), *self.scf_timepoints]

    def _await_leftovers(self) -> None:
        """Before returning, wait for every region the host has not waited for (its results are
        dropped, or only feed other such regions): no access to the caller's buffers, or to any
        other memory, may outlive the call."""
        left = [tp for tp in self._block_timepoints() if not self._bit(tp) & self.host_covered and tp in self.handle]
        needed = self._prune_for_host(frozenset(left))
        if not needed:
            return
        timepoint = self._timepoint(needed)
        values = [self.handle[tp] for tp in needed]
        op = op_spec("stream.timepoint.await").build(
            operands={
                "resource_operands": tuple(v for v, _ in values),
                "resource_operand_sizes": tuple(size for _, size in values),
                "await_timepoint": timepoint,
            },
            results={"results": tuple(v.type for v, _ in values)},
            attrs={"sync": UnitAttr()},
            location=self.here,
        )
        self.emitted.append(op)
        self.host_covered |= self._closure(needed)

    def _await_for_host(self, needs: dict[Value, set[Value]]) -> tuple[dict[Value, Value], int]:
        """Host awaits for the values a host op uses, grouped by the timepoints they need; a value
        awaited before with enough coverage is reused. Also: what the new awaits cover (the
        host once the op uses their results)."""
        out: dict[Value, Value] = {}
        covered = 0
        groups: dict[Sources, list[Value]] = {}
        for v, need in needs.items():
            raw = self._raw(v)
            mask = self._closure(need)
            cached = self.awaited.get(raw)
            if cached is not None and mask & ~cached[1] == 0:
                out[v] = cached[0]
                continue
            groups.setdefault(frozenset(need), []).append(v)
        for group, values in groups.items():
            for other in self.by_pending.get(group, []):
                if other not in values and self._raw(other) not in self.awaited:
                    values.append(other)
            timepoint = self._timepoint(self._prune_for_host(group))
            if timepoint is None:  # everything is covered already: route through an immediate
                timepoint = self._immediate()
            first: dict[Value, Value] = {}
            for v in values:
                first.setdefault(self._raw(v), v)
            raws = list(first)
            op = op_spec("stream.timepoint.await").build(
                operands={
                    "resource_operands": tuple(raws),
                    "resource_operand_sizes": tuple(self._mapped(self.sizes[first[r]]) for r in raws),
                    "await_timepoint": timepoint,
                },
                results={"results": tuple(r.type for r in raws)},
                location=self.here,
            )
            self.emitted.append(op)
            mask = self._closure(group)
            covered |= mask
            by_raw = dict(zip(raws, op.results))
            for v in values:
                out[v] = by_raw[self._raw(v)]
            for raw, result in by_raw.items():
                self.awaited[raw] = (result, mask)
        return out, covered

    def _prune_for_host(self, need: Sources) -> list[Value]:
        ordered = sorted(need, key=self._bit)
        implied = 0
        for s in ordered:
            implied |= self.cover[s]
        return [s for s in ordered if not (self._bit(s) & implied)]

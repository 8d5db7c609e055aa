"""propagate-timepoints' structured control flow: `scf.for` and `scf.if` carrying resources.

Each resource an `scf` op carries is carried with a timepoint covering it (appended after the
op's own values, in the same order), as IREE's PropagateTimepoints expands them: the host does
not wait for a loop-carried or branch-yielded value, the consumers do. Each region's block is
rebuilt by a child of the pass's propagator, starting from what the parent knew right before the
`scf` op. A loop's carried timepoint also covers the iteration's incoming one and the work of
every region of the body that used storage from outside the iteration (the loop's inductive
argument asks one carried timepoint to cover it all); the body's last `sync` awaits are carried
instead of blocking the host in every iteration.
"""

from __future__ import annotations

from typing import Self

from stream.ir.core import Block, Op, Region, Value
from stream.ir.types import TIMEPOINT, ResourceType
from stream.ir.walk import defined_inside, used_values
from stream.passes.propagate_timepoints_host import HostWaits

__all__ = ["StructuredControlFlow"]


class StructuredControlFlow(HostWaits):
    """The rewrite of `scf.for`, `scf.if` and the `scf.yield` ending their regions' blocks."""

    def _structured(self, op: Op) -> None:
        # Its regions run once the values it takes are there (a branch condition loaded from
        # a device: what the load was ordered after is done).
        control = 0
        for v in op.operands:
            control |= self.value_cover.get(v, 0)
        if op.name == "scf.for":
            new, carried, children, covers = self._for(op, control)
        else:
            new, carried, children, covers = self._if(op, control)
        self.emitted.append(new)
        self._bind_carried(op, new, carried, children, covers)

    def _for(self, op: Op, control: int) -> tuple[Op, list[int], list[Self], list[int]]:
        """An `scf.for` carrying a timepoint per resource: the new op, the indices of the
        carried resources, the body's propagator, and what each result timepoint covers."""
        body = op.regions[0].blocks[0]
        inits_in = op.operands[3:]
        carried = [i for i, v in enumerate(inits_in) if isinstance(v.type, ResourceType)]
        inits = [self._raw(v) if isinstance(v.type, ResourceType) else self._mapped(v) for v in inits_in]
        # Regions before the loop that use storage the loop uses: what covers the loop's
        # accesses to it must cover theirs too (the loop's inductive argument asks one carrier
        # for all of them), so the first carried timepoint starts after them, or, when the loop
        # carries none, the host waits for them first.
        touched = [v for v in used_values(op) if isinstance(v.type, ResourceType)]
        before = set().union(*(self.readers.get(self._raw(v), set()) for v in touched))
        before = {tp for tp in before if not self._bit(tp) & self.host_covered}
        if before and not carried:
            self._sync_await(sorted(before, key=self._bit))
        # A slot the body passes an outer value on to starts after what that value waits for,
        # and slots may pass values on to one another (a permutation, a value carried into
        # another slot): so every slot starts after what any initial value or passed-on outer
        # value waits for. Then each slot's timepoint covers, in every iteration, what the
        # value it carries was ordered after when the loop began.
        inside = defined_inside(op)
        terminator = body.ops[-1]
        start = set(before)
        for i in carried:
            start |= self._pending(inits_in[i])
            if i < len(terminator.operands) and terminator.operands[i] not in inside:
                start |= self._pending(terminator.operands[i])
        init_timepoints = [self._timepoint(self._prune(start)) or self._immediate() for _ in carried]
        iv, *args = body.arguments
        arg_timepoints = [Value(TIMEPOINT) for _ in carried]
        child = type(self)(body, self)
        child.host_covered |= control
        for i, tp in zip(carried, arg_timepoints):
            child.raw[args[i]] = args[i]
            child._set_pending(args[i], frozenset({tp}))
            child._bit(tp)
        child.carried = dict(zip(carried, arg_timepoints))
        region = Region((Block((iv, *args, *arg_timepoints), child.run()),))
        new = op.replace(
            operands=(*(self._mapped(v) for v in op.operands[:3]), *inits, *init_timepoints),
            results=(*op.results, *(Value(TIMEPOINT) for _ in carried)),
            regions=(region,),
        )
        # Every iteration's timepoint covers the one before (see `_yield`), so what covers
        # the initial value is covered once the loop's timepoint is reached.
        covers = [self._closure(self._pending(inits_in[i])) for i in carried]
        return new, carried, [child], covers

    def _if(self, op: Op, control: int) -> tuple[Op, list[int], list[Self], list[int]]:
        """An `scf.if` yielding a timepoint per resource (as `_for`; nothing is known of what
        its result timepoints cover)."""
        carried = [i for i, r in enumerate(op.results) if isinstance(r.type, ResourceType)]
        regions = []
        children = []
        for region in op.regions:
            blocks = []
            for block in region.blocks:
                child = type(self)(block, self)
                child.host_covered |= control
                blocks.append(Block(block.arguments, child.run()))
                children.append(child)
            regions.append(Region(tuple(blocks)))
        new = op.replace(
            operands=tuple(self._mapped(v) for v in op.operands),
            results=(*op.results, *(Value(TIMEPOINT) for _ in carried)),
            regions=tuple(regions),
        )
        return new, carried, children, [0 for _ in carried]

    def _bind_carried(self, op: Op, new: Op, carried: list[int], children: list[Self], covers: list[int]) -> None:
        """The `scf` op's resources are un-awaited, pending on their timepoints; the work the op
        issued ends there, so like a region's they are waited for at the end of this block when
        nothing else covers them (with a value of each, sized as its yielded values are used:
        a size defined outside the op)."""
        inside = defined_inside(op)
        timepoints = new.results[len(op.results):]
        for i, tp, cover in zip(carried, timepoints, covers):
            self.cover[tp] = cover
            self._bit(tp)
            self.raw[op.results[i]] = op.results[i]
            self._set_pending(op.results[i], frozenset({tp}))
            self.scf_timepoints.append(tp)
            size = self.sizes.get(op.results[i])
            for child in children:
                size = size or child.sizes.get(child.block.ops[-1].operands[i])
            if size is not None and size not in inside:
                self.sizes.setdefault(op.results[i], size)
                self.handle[tp] = (op.results[i], self._mapped(size))

    def _yield(self, op: Op) -> None:
        """The end of an `scf` region's block: each carried resource goes out un-awaited, with a
        timepoint covering it. A loop's also covers the iteration's incoming timepoint, so the
        chain of iterations is never lost (a body that drops its carried value still orders
        the next iterations after it). Regions of the block that nothing flowing out covers
        are waited for on the host here (their work must end before anyone else's view)."""
        operands: list[Value] = []
        timepoints: list[Value] = []
        flowing_sources: set[Value] = set()
        extra: set[Value] = set()
        if self.carried:
            # In a loop body, work nothing yielded covers joins the first carried timepoint.
            sources_so_far = 0
            for i, v in enumerate(op.operands):
                if isinstance(v.type, ResourceType):
                    sources_so_far |= self._closure(self._pending(v) | ({self.carried[i]} if i in self.carried else set()))
            # So does the work of every region that used storage from outside the iteration
            # (a carried value, a value from before the loop): the loop's inductive argument
            # asks one carried timepoint to cover all of an iteration's accesses to it.
            extra = set(self.deferred) | set(self.touching_outer) | {
                tp for tp in self._block_timepoints() if not self._bit(tp) & (sources_so_far | self.host_covered)}
        for i, v in enumerate(op.operands):
            if not isinstance(v.type, ResourceType):
                operands.append(self._mapped(v))
                continue
            operands.append(self._raw(v))
            sources = set(self._pending(v))
            incoming = self.carried.get(i)
            if incoming is not None:
                sources.add(incoming)
            if extra:
                sources |= extra
                extra = set()
            flowing_sources |= sources
            # Only what another source implies is left out, not what the host awaited here:
            # the timepoint stands for the value where it arrives (after a loop that ran no
            # time, or at the next iteration), and one carried timepoint must cover the work.
            timepoints.append(self._timepoint(self._prune_for_host(frozenset(sources))) or self._immediate())
        flowing = self._closure(flowing_sources) | self.host_covered
        left = [tp for tp in self._block_timepoints() if not self._bit(tp) & flowing and tp in self.handle]
        if left:
            saved = self.host_covered
            self.host_covered = flowing
            self._await_leftovers()
            self.host_covered = saved | self.host_covered
        self.emitted.append(op.replace(operands=(*operands, *timepoints)))

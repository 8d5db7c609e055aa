"""propagate-timepoints: chain execution regions with timepoints instead of host waits.

After `schedule-execution` every value that leaves a region is used through a host
`stream.timepoint.await`, so a region that consumes another's result is issued only after the host
has blocked on it. This pass rebuilds each function's timeline so that:

* every `stream.async.execute` captures the un-awaited values it reads and waits, on the device,
  for the join of the timepoints that cover them: the regions that produced them, the timepoints
  the input awaited for them, and every earlier region whose accesses to the same storage conflict
  with its own (a storage hazard without data flow, from `ResourceHazards`);
* the host waits only where it consumes a value itself (exports, loads, stores, returns, calls,
  unknown ops), right before the first such op, once per set of timepoints, and also before a
  host op that writes storage an earlier region still reads or writes;
* waits that are already covered are left out: a timepoint the host has awaited before a region is
  issued, or one that another awaited timepoint already implies (regions awaiting regions), is not
  awaited again;
* `stream.timepoint.barrier` becomes the timepoint its resource is covered by, and joins or
  immediates nobody uses any more are dropped;
* before the function returns, the host waits for every region it has not waited for yet (one
  whose results are dropped still touches memory the caller owns once the call returns): a
  `sync` await, since nothing uses its results.

An await is a pure op (`stream.dialect.awaits`): it orders the op that uses its results (placed
right after it) and, through host program order, what follows that op. So what a host await
covers counts as covered for later regions only when the op it is made for is a host op with
effects (a call, a `resource.load`, a return), not a pass-through op such as `resource.subview`
nor a pure host op such as an export or an `async.load`: those order only what uses their
results (a region capturing a loaded value, a return of an exported view).

Mutable resource globals get IREE's companion timepoint global: `@g__timepoint`
(`util.global private mutable @g__timepoint = #stream.timepoint<immediate>`, declared right
before `@g`) holds the timepoint at which what `@g` holds is ready and no longer used by the
call that stored it. A `util.global.load` of `@g` is preceded by a load of `@g__timepoint`, and
the loaded resource is pending on it like a region result: every region capturing it awaits
that timepoint on the device (the host only if it uses the value itself). A `util.global.store`
of `@g` stores the un-awaited value and, into `@g__timepoint`, the join of what covers it and
every region of the block that captured it so far: the host does not wait for the store.
Initializers are rewritten the same way (they run once, before any call, on the same timeline).
Values crossing calls keep their awaits (calls are host ops here).

Invariant established: every device consumer of a resource awaits a timepoint that covers the
region producing it and every earlier conflicting access to its storage (for a loaded global,
the timepoint its companion holds); every host use of a region result comes after a host await
covering it; what a call stores into a mutable resource global is covered by the timepoint it
stores into the companion; the values computed are unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable

from stream.analysis.resource_hazards import HazardAnalysis
from stream.analysis.streamability import STRUCTURED, require_straight_line
from stream.dialect.awaits import PASS_THROUGH, PURE_HOST_USERS, is_pure_value
from stream.ir.attributes import ImmediateTimepointAttr, StringAttr, SymbolRefAttr, TypeAttr, UnitAttr
from stream.ir.core import UNKNOWN_LOC, Block, Location, Module, Op, Region, Value, freeze
from stream.ir.interfaces import awaited
from stream.ir.spec import OpSpec, spec_of
from stream.ir.types import TIMEPOINT, ResourceType, TimepointType
from stream.ir.walk import bodies, defined_inside, replace_op, used_values
from stream.passes.pass_manager import register_pass

__all__ = ["propagate_timepoints"]

Sources = frozenset[Value]


COMPANION_SUFFIX = "__timepoint"  # IREE's name for a resource global's timepoint global


@register_pass("propagate-timepoints")
def propagate_timepoints(module: Module) -> Module:
    """Chain execution regions with device-side timepoint waits; host waits only for host uses."""
    out, companions = _with_companions(module)
    for f in bodies(out):
        require_straight_line(f.op, f.name, "propagate-timepoints", STRUCTURED)
        if not any(op.name == "stream.async.execute" for op in f.op.walk()):
            continue
        out = replace_op(out, f.op, f.with_body(_Propagator(f.body, companions=companions).run()).op)
    return out


def _with_companions(module: Module) -> tuple[Module, dict[str, str]]:
    """The module with a companion timepoint global for every mutable resource global that has
    none yet (declared right before it, as IREE does), and the companions by global name."""
    declared = {op.properties["sym_name"].value: op for op in module.ops  # type: ignore[attr-defined]
                if op.name == "util.global" and isinstance(op.properties.get("sym_name"), StringAttr)}
    companions: dict[str, str] = {}
    ops: list[Op] = []
    for op in module.ops:
        t = op.properties.get("type") if op.name == "util.global" else None
        if isinstance(t, TypeAttr) and isinstance(t.type, ResourceType) and "is_mutable" in op.properties:
            name = op.properties["sym_name"].value  # type: ignore[attr-defined]
            companion = name + COMPANION_SUFFIX
            existing = declared.get(companion)
            if existing is None:
                props = {"sym_visibility": StringAttr("private"), "is_mutable": UnitAttr(), "sym_name": StringAttr(companion),
                         "type": TypeAttr(TIMEPOINT), "initial_value": ImmediateTimepointAttr()}
                ops.append(Op("util.global", properties=freeze(props), location=op.location))
                companions[name] = companion
            elif isinstance(existing.properties.get("type"), TypeAttr) and isinstance(existing.properties["type"].type, TimepointType):  # type: ignore[attr-defined]
                companions[name] = companion  # a module this pass already ran on (or IREE's)
        ops.append(op)
    return module.replace(ops=tuple(ops)), companions


def _global_of(op: Op) -> str | None:
    ref = op.properties.get("global")
    return ref.root if isinstance(ref, SymbolRefAttr) else None


def _spec(name: str) -> OpSpec:
    spec = spec_of(name)
    assert spec is not None
    return spec


class _Propagator:
    def __init__(self, block: Block, parent: _Propagator | None = None, companions: dict[str, str] | None = None) -> None:
        self.block = block
        self.ops = block.ops
        # Mutable resource global -> its companion timepoint global.
        self.companions: dict[str, str] = companions if companions is not None else parent.companions if parent is not None else {}
        self.analysis = HazardAnalysis.of(block)
        self.sizes = dict(self.analysis.sizes)
        if parent is not None:
            self.sizes = {**parent.sizes, **self.sizes}
        self.emitted: list[Op] = []
        # Where the op being rewritten came from: the awaits and joins made for it get it too,
        # so that diagnostics on them (a deadlock, a missed wait) point into the source.
        self.here: Location = UNKNOWN_LOC
        self.values: dict[Value, Value] = {}  # input value -> output value (non-resource too)
        self.raw: dict[Value, Value] = {}  # input resource -> the un-awaited output value
        self.pending: dict[Value, Sources] = {}  # input resource -> timepoints covering it
        self.sources: dict[Value, Sources] = {}  # input timepoint -> what reaching it means
        self.bit: dict[Value, int] = {}  # output timepoint source -> bit index
        self.cover: dict[Value, int] = {}  # source -> bitset of sources reached when it is
        self.host_covered = 0
        # Results of pure host ops (and scalar arithmetic on them) -> what they are ordered after:
        # a consumer is ordered after that too, through SSA (stream.dialect.awaits).
        self.value_cover: dict[Value, int] = {}
        self.materialized: dict[Sources, Value] = {}
        self.awaited: dict[Value, tuple[Value, int]] = {}  # raw -> (host value, covered bitset)
        self.region_timepoint: dict[int, Value] = {}  # input op index -> output timepoint
        self.handle: dict[Value, tuple[Value, Value]] = {}  # region timepoint -> a value to await it with
        self.hazards: dict[int, list[int]] = {}
        for i, j in self.analysis.edges([(op,) for op in self.ops]):
            self.hazards.setdefault(j, []).append(i)
        # Values some host op uses, by the timepoints covering them: one await serves them all
        # (IREE awaits every host-used result of a region at once).
        self.host_used = self._host_used()
        self.by_pending: dict[Sources, list[Value]] = {}
        # In the block of an `scf.for` body: iter_arg index -> the timepoint carried with it.
        self.carried: dict[int, Value] = {}
        # Values this block defines, and the regions of it that use a value from outside it.
        self.local: set[Value] = {r for op in block.ops for r in op.results}
        self.touching_outer: list[Value] = []
        # Un-awaited value -> the timepoints of the regions that captured it so far.
        self.readers: dict[Value, set[Value]] = {}
        # Timepoints of `scf` ops of this block (what their regions issued ends there).
        self.scf_timepoints: list[Value] = []
        # In a loop body: what the `sync` awaits before the yield waited for, carried instead.
        self.deferred: set[Value] = set()
        if parent is not None:
            self._inherit(parent)

    def _inherit(self, parent: _Propagator) -> None:
        """The block of an `scf` region starts from what its parent knew right before the `scf`
        op (values from outside keep their raw values and covering timepoints; what the host
        had waited for is waited for). What it makes itself is not seen by the parent."""
        self.values = dict(parent.values)
        self.raw = dict(parent.raw)
        self.pending = dict(parent.pending)
        self.sources = dict(parent.sources)
        self.bit = dict(parent.bit)
        self.cover = dict(parent.cover)
        self.host_covered = parent.host_covered
        self.value_cover = dict(parent.value_cover)
        self.materialized = dict(parent.materialized)
        self.awaited = dict(parent.awaited)
        self.readers = {k: set(v) for k, v in parent.readers.items()}

    def _host_used(self) -> set[Value]:
        """Values some host op uses, looking through the awaits and barriers this pass drops (so
        a region result counts when any awaited copy of it reaches the host)."""
        source: dict[Value, Value] = {}
        for op in self.ops:
            if op.name == "stream.timepoint.await" and "sync" not in op.properties:
                spec = _spec(op.name)
                for operand, result in zip(spec.operand_group(op, "resource_operands"), op.results):
                    source[result] = operand
            elif op.name == "stream.timepoint.barrier":
                source[op.results[0]] = op.operands[0]
        used: set[Value] = set()
        for op in self.ops:
            if _is_host_consumer(op) and self._companion(op) is None:
                for inner in op.walk():
                    for v in inner.operands:
                        while True:
                            used.add(v)
                            if v not in source:
                                break
                            v = source[v]
        return used

    # -- timepoint bookkeeping -------------------------------------------------------------------
    def _bit(self, source: Value) -> int:
        if source not in self.bit:
            self.bit[source] = 1 << len(self.bit)
            self.cover.setdefault(source, 0)
        return self.bit[source]

    def _closure(self, sources: Iterable[Value]) -> int:
        mask = 0
        for s in sources:
            mask |= self._bit(s) | self.cover[s]
        return mask

    def _sources_of(self, timepoint: Value) -> Sources:
        """What an input timepoint stands for: its output value, or for joins and immediates the
        union of their inputs."""
        if timepoint in self.sources:
            return self.sources[timepoint]
        return frozenset({self.values.get(timepoint, timepoint)})

    def _prune(self, sources: Iterable[Value]) -> list[Value]:
        """Drop sources the host already waited for, or that another source implies."""
        ordered = sorted(set(sources), key=self._bit)
        implied = 0
        for s in ordered:
            implied |= self.cover[s]
        return [s for s in ordered if not (self._bit(s) & (implied | self.host_covered))]

    def _used_cover(self, op: Op) -> int:
        """What the values `op` uses are ordered after (results of pure host ops)."""
        mask = 0
        for inner in op.walk():
            for v in inner.operands:
                mask |= self.value_cover.get(v, 0)
        return mask

    def _timepoint(self, sources: list[Value]) -> Value | None:
        """One timepoint reached once all `sources` are (a join when there are several)."""
        if not sources:
            return None
        if len(sources) == 1:
            return sources[0]
        key = frozenset(sources)
        if key not in self.materialized:
            join = _spec("stream.timepoint.join").build(
                operands={"await_timepoints": tuple(sources)}, results={"result_timepoint": TIMEPOINT}, location=self.here
            )
            self.emitted.append(join)
            self.materialized[key] = join.results[0]
        return self.materialized[key]

    def _immediate(self) -> Value:
        key: Sources = frozenset()
        if key not in self.materialized:
            op = _spec("stream.timepoint.immediate").build(results={"result_timepoint": TIMEPOINT}, location=self.here)
            self.emitted.append(op)
            self.materialized[key] = op.results[0]
        return self.materialized[key]

    # -- values ----------------------------------------------------------------------------------
    def _raw(self, v: Value) -> Value:
        return self.raw.get(v, self.values.get(v, v))

    def _pending(self, v: Value) -> Sources:
        return self.pending.get(v, frozenset())

    def _hazard_sources(self, j: int) -> list[tuple[int, Value]]:
        """(input op index, output timepoint) of earlier regions op `j` conflicts with."""
        return [(i, self.region_timepoint[i]) for i in self.hazards.get(j, []) if i in self.region_timepoint]

    # -- the walk --------------------------------------------------------------------------------
    def run(self) -> tuple[Op, ...]:
        for j, op in enumerate(self.ops):
            self.here = op.location
            if op.name == "scf.yield":
                self._yield(op)
            elif self.carried and _is_sync_await(op) and all(_is_sync_await(o) or o.name == "scf.yield" for o in self.ops[j:]):
                # A loop body's last waits (schedule-execution's, for work no yielded value
                # depends on): the next iteration's carried timepoint covers that work instead
                # of the host blocking in every iteration (`_yield`).
                self.deferred |= self._sources_of(_spec(op.name).operand_group(op, "await_timepoint")[0])
            elif op.name in ("scf.for", "scf.if"):
                self._structured(op)
            elif op.name == "stream.timepoint.await" and "sync" not in op.properties:
                self._drop_await(op)
            elif op.name in ("stream.timepoint.join", "stream.timepoint.immediate"):
                self._timepoint_op(op)
            elif op.name == "stream.timepoint.barrier":
                self._drop_barrier(op)
            elif op.name == "stream.async.execute":
                self._execute(j, op)
            elif self._companion(op) is not None:
                self._global(op)
            else:
                self._host(j, op, final=j == len(self.ops) - 1 and _is_terminator(op))
        return tuple(_drop_dead_timepoints(self.emitted))

    # -- structured control flow -------------------------------------------------------------------
    # Each resource an `scf` op carries is carried with a timepoint covering it (appended after
    # the op's own values, in the same order), as IREE's PropagateTimepoints expands them: the
    # host does not wait for a loop-carried or branch-yielded value, the consumers do.
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

    def _for(self, op: Op, control: int) -> tuple[Op, list[int], list[_Propagator], list[int]]:
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
        child = _Propagator(body, self)
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

    def _if(self, op: Op, control: int) -> tuple[Op, list[int], list[_Propagator], list[int]]:
        """An `scf.if` yielding a timepoint per resource (as `_for`; nothing is known of what
        its result timepoints cover)."""
        carried = [i for i, r in enumerate(op.results) if isinstance(r.type, ResourceType)]
        regions = []
        children = []
        for region in op.regions:
            blocks = []
            for block in region.blocks:
                child = _Propagator(block, self)
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

    def _bind_carried(self, op: Op, new: Op, carried: list[int], children: list[_Propagator], covers: list[int]) -> None:
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

    def _drop_await(self, op: Op) -> None:
        spec = _spec(op.name)
        waited = self._sources_of(awaited(spec, op)[0])
        for operand, result in zip(spec.operand_group(op, "resource_operands"), op.results):
            self.raw[result] = self._raw(operand)
            self._set_pending(result, self._pending(operand) | waited)
            self.sizes.setdefault(result, self.sizes.get(operand))  # type: ignore[arg-type]

    def _set_pending(self, v: Value, sources: Sources) -> None:
        self.pending[v] = sources
        if sources and v in self.host_used:
            self.by_pending.setdefault(sources, []).append(v)

    def _timepoint_op(self, op: Op) -> None:
        # Kept (remapped) for any other user; dropped at the end when unused.
        new = self._remap(op)
        self.emitted.append(new)
        for old, result in zip(op.results, new.results):
            self.values[old] = result
        if op.name == "stream.timepoint.immediate":
            self.sources[op.results[0]] = frozenset()
        else:
            self.sources[op.results[0]] = frozenset().union(*(self._sources_of(t) for t in op.operands))

    def _drop_barrier(self, op: Op) -> None:
        spec = _spec(op.name)
        resource = spec.operand_group(op, "resource")[0]
        result = spec.result_group(op, "result")[0]
        self.raw[result] = self._raw(resource)
        self._set_pending(result, self._pending(resource))
        self.sizes.setdefault(result, self.sizes.get(resource))  # type: ignore[arg-type]
        # The barrier's timepoint is whatever covers the resource.
        self.sources[op.results[-1]] = self._pending(resource)

    def _execute(self, j: int, op: Op) -> None:
        spec = _spec(op.name)
        captures = spec.operand_group(op, "resource_operands")
        required: set[Value] = set()
        for c in captures:
            required |= self._pending(c)
        own = spec.operand_group(op, "await_timepoint")
        for t in own:
            required |= self._sources_of(t)
        required |= {tp for _, tp in self._hazard_sources(j)}
        covered_before = self.host_covered | self._used_cover(op)  # a loaded value it uses, too
        await_timepoint = self._timepoint([s for s in self._prune(required) if not self._bit(s) & covered_before])
        new = spec.build(
            operands={
                "resource_operands": tuple(self._raw(c) for c in captures),
                "resource_operand_sizes": tuple(self._mapped(s) for s in spec.operand_group(op, "resource_operand_sizes")),
                "result_sizes": tuple(self._mapped(s) for s in spec.operand_group(op, "result_sizes")),
                "await_timepoint": await_timepoint,
            },
            results={"results": tuple(r.type for r in spec.result_group(op, "results")), "result_timepoint": TIMEPOINT},
            attrs={k: v for k, v in op.properties.items() if k != "operandSegmentSizes"},
            regions=op.regions,
            discardable=op.attributes,
            location=op.location,
        )
        new = new.replace(properties={**new.properties, "tied_operands": op.properties.get("tied_operands", new.properties.get("tied_operands"))})
        self.emitted.append(new)
        timepoint = new.results[-1]
        self.cover[timepoint] = self._closure(required) | covered_before
        self._bit(timepoint)
        self.region_timepoint[j] = timepoint
        if len(new.results) > 1:
            self.handle[timepoint] = (new.results[0], self._mapped(spec.operand_group(op, "result_sizes")[0]))
        elif captures:
            self.handle[timepoint] = (self._raw(captures[0]), self._mapped(spec.operand_group(op, "resource_operand_sizes")[0]))
        for c in captures:
            self.readers.setdefault(self._raw(c), set()).add(timepoint)
        if any(c not in self.local for c in captures):
            self.touching_outer.append(timepoint)
        for old, result in zip(op.results[:-1], new.results[:-1]):
            self.raw[old] = result
            self._set_pending(old, frozenset({timepoint}))
        self.values[op.results[-1]] = timepoint
        self.sources[op.results[-1]] = frozenset({timepoint})

    # -- globals -----------------------------------------------------------------------------------
    def _companion(self, op: Op) -> str | None:
        """The companion timepoint global of the resource global a load or store names."""
        if op.name not in ("util.global.load", "util.global.store"):
            return None
        value = op.results[0] if op.name == "util.global.load" else op.operands[0]
        if not isinstance(value.type, ResourceType):
            return None
        return self.companions.get(_global_of(op) or "")

    def _global(self, op: Op) -> None:
        """A load of `@g`: load `@g__timepoint` first, and the resource is pending on it. A store
        of `@g`: the un-awaited value, and into `@g__timepoint` what covers it and every region
        of this block that captured it so far (no host wait)."""
        companion = self._companion(op)
        assert companion is not None
        ref = SymbolRefAttr(companion)
        if op.name == "util.global.load":
            tp = _spec("util.global.load").build(results={"result": TIMEPOINT}, attrs={"global": ref}, location=op.location)
            tp.results[0].name_hint = companion
            self.emitted.append(tp)
            self.emitted.append(op)
            timepoint = tp.results[0]
            self.cover[timepoint] = 0  # reached when whoever stored it is done: nothing known here
            self._bit(timepoint)
            self.raw[op.results[0]] = op.results[0]
            self._set_pending(op.results[0], frozenset({timepoint}))
            return
        value = op.operands[0]
        raw = self._raw(value)
        sources = set(self._pending(value)) | self.readers.get(raw, set())
        covering = self._timepoint(self._prune(sources)) or self._immediate()
        self.emitted.append(op.replace(operands=(raw,)))
        self.emitted.append(_spec("util.global.store").build(operands={"value": covering}, attrs={"global": ref}, location=op.location))

    def _mapped(self, v: Value) -> Value:
        """The output value for an input value; a timepoint of a dropped barrier becomes the
        timepoint (or join, or immediate) that covers its resource."""
        if v in self.values:
            return self.values[v]
        if isinstance(v.type, TimepointType) and v in self.sources:
            return self._timepoint(sorted(self.sources[v], key=self._bit)) or self._immediate()
        return v

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
            covered_here = self._closure(self._sources_of(_spec(op.name).operand_group(op, "await_timepoint")[0]))
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
        new = _remap(op, mapping)
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
            self.host_covered |= self._closure(self._sources_of(_spec(op.name).operand_group(op, "await_timepoint")[0]))

    def _sync_await(self, timepoints: list[Value]) -> None:
        """A host `sync` await of region timepoints (with a value of each to await it with)."""
        needed = [tp for tp in self._prune_for_host(frozenset(timepoints)) if tp in self.handle]
        if not needed:
            return
        values = [self.handle[tp] for tp in needed]
        op = _spec("stream.timepoint.await").build(
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
        op = _spec("stream.timepoint.await").build(
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
            op = _spec("stream.timepoint.await").build(
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

    def _remap(self, op: Op) -> Op:
        return _remap(op, {v: self._mapped(v) for inner in op.walk() for v in inner.operands})


def _remap(op: Op, mapping: dict[Value, Value]) -> Op:
    from stream.analysis.region_outlining import remap_op

    return remap_op(op, mapping)


def _is_sync_await(op: Op) -> bool:
    return op.name == "stream.timepoint.await" and "sync" in op.properties


def _is_terminator(op: Op) -> bool:
    spec = spec_of(op)
    return spec is not None and "terminator" in spec.traits


def _is_host_consumer(op: Op) -> bool:
    """Ops whose resource operands the rebuilt timeline hands over on the host."""
    return op.name not in ("stream.async.execute", "stream.timepoint.barrier") and not (
        op.name == "stream.timepoint.await" and "sync" not in op.properties
    )


def _drop_dead_timepoints(ops: list[Op]) -> list[Op]:
    """Remove joins and immediates whose results nobody uses (in reverse, so chains go too)."""
    used: set[Value] = set()
    kept: list[Op] = []
    for op in reversed(ops):
        if op.name in ("stream.timepoint.join", "stream.timepoint.immediate") and not any(r in used for r in op.results):
            continue
        kept.append(op)
        for inner in op.walk():
            used.update(inner.operands)
    kept.reverse()
    return kept

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

from stream.analysis.streamability import STRUCTURED, require_straight_line
from stream.ir.core import Module, Op, Value
from stream.ir.interfaces import awaited
from stream.ir.spec import spec_of
from stream.ir.types import TIMEPOINT
from stream.ir.walk import bodies, replace_op
from stream.passes.pass_manager import register_pass
from stream.passes.propagate_timepoints_control_flow import StructuredControlFlow
from stream.passes.propagate_timepoints_globals import CompanionGlobals, with_companions
from stream.passes.propagate_timepoints_timeline import op_spec

__all__ = ["propagate_timepoints"]


@register_pass("propagate-timepoints")
def propagate_timepoints(module: Module) -> Module:
    """Chain execution regions with device-side timepoint waits; host waits only for host uses."""
    out, companions = with_companions(module)
    for f in bodies(out):
        require_straight_line(f.op, f.name, "propagate-timepoints", STRUCTURED)
        if not any(op.name == "stream.async.execute" for op in f.op.walk()):
            continue
        out = replace_op(out, f.op, f.with_body(_Propagator(f.body, companions=companions).run()).op)
    return out


class _Propagator(StructuredControlFlow, CompanionGlobals):
    """Rebuilds one block's timeline: the walk over its ops, and the execution regions chained
    on the device (each waits for what covers the values it captures and the earlier regions
    it conflicts with); host ops, `scf` ops and globals as the bases rewrite them."""

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
                self.deferred |= self._sources_of(op_spec(op.name).operand_group(op, "await_timepoint")[0])
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

    # -- execution regions, and the awaits, barriers and joins the timeline replaces -------------
    def _drop_await(self, op: Op) -> None:
        spec = op_spec(op.name)
        waited = self._sources_of(awaited(spec, op)[0])
        for operand, result in zip(spec.operand_group(op, "resource_operands"), op.results):
            self.raw[result] = self._raw(operand)
            self._set_pending(result, self._pending(operand) | waited)
            self.sizes.setdefault(result, self.sizes.get(operand))  # type: ignore[arg-type]

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
        spec = op_spec(op.name)
        resource = spec.operand_group(op, "resource")[0]
        result = spec.result_group(op, "result")[0]
        self.raw[result] = self._raw(resource)
        self._set_pending(result, self._pending(resource))
        self.sizes.setdefault(result, self.sizes.get(resource))  # type: ignore[arg-type]
        # The barrier's timepoint is whatever covers the resource.
        self.sources[op.results[-1]] = self._pending(resource)

    def _execute(self, j: int, op: Op) -> None:
        spec = op_spec(op.name)
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


def _is_sync_await(op: Op) -> bool:
    return op.name == "stream.timepoint.await" and "sync" in op.properties


def _is_terminator(op: Op) -> bool:
    spec = spec_of(op)
    return spec is not None and "terminator" in spec.traits


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

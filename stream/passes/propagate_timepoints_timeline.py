"""propagate-timepoints' timeline: the state a block is rebuilt on, and its bookkeeping.

`Timeline` holds, for one block being rebuilt (a function body, or an `scf` region's block
starting from its parent's state), what the pass knows at the current op:

* for each input resource, its un-awaited output value (`raw`) and the timepoints that cover it
  (`pending`); for each input timepoint, the output timepoints it stands for (`sources`);
* which output timepoints imply which: each gets a bit, and `cover[t]` is the bitset of those
  reached once `t` is (`_closure`), so that a wait another wait already implies, or that the
  host has already made (`host_covered`), is left out (`_prune`);
* the joins and immediates made for sets of timepoints (one per set, `_timepoint`), the regions'
  timepoints by op index, and the storage hazards between the block's ops (`HazardAnalysis`);
* which values a host op uses (`_host_used`), and which resource global accesses have a
  companion timepoint global (`_companion`; the globals' rewrite is `propagate_timepoints_globals`).

The rewrite of each kind of op is in the modules named after it (`propagate_timepoints_host`,
`_control_flow`, `_globals`); the walk and the execution regions are in `propagate_timepoints`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable

from stream.analysis.region_outlining import remap_op
from stream.analysis.resource_hazards import HazardAnalysis
from stream.ir.attributes import SymbolRefAttr
from stream.ir.core import UNKNOWN_LOC, Block, Location, Op, Value
from stream.ir.spec import OpSpec, spec_of
from stream.ir.types import TIMEPOINT, ResourceType, TimepointType

__all__ = ["Sources", "Timeline", "op_spec"]

Sources = frozenset[Value]


def op_spec(name: str) -> OpSpec:
    """The spec of an op this pass reads or builds (registered, so never None)."""
    spec = spec_of(name)
    assert spec is not None
    return spec


def _global_of(op: Op) -> str | None:
    ref = op.properties.get("global")
    return ref.root if isinstance(ref, SymbolRefAttr) else None


class Timeline(ABC):
    """One block's timeline being rebuilt (see the module docstring)."""

    def __init__(self, block: Block, parent: Timeline | None = None, companions: dict[str, str] | None = None) -> None:
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

    def _inherit(self, parent: Timeline) -> None:
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
                spec = op_spec(op.name)
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
            join = op_spec("stream.timepoint.join").build(
                operands={"await_timepoints": tuple(sources)}, results={"result_timepoint": TIMEPOINT}, location=self.here
            )
            self.emitted.append(join)
            self.materialized[key] = join.results[0]
        return self.materialized[key]

    def _immediate(self) -> Value:
        key: Sources = frozenset()
        if key not in self.materialized:
            op = op_spec("stream.timepoint.immediate").build(results={"result_timepoint": TIMEPOINT}, location=self.here)
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

    def _set_pending(self, v: Value, sources: Sources) -> None:
        self.pending[v] = sources
        if sources and v in self.host_used:
            self.by_pending.setdefault(sources, []).append(v)

    def _mapped(self, v: Value) -> Value:
        """The output value for an input value; a timepoint of a dropped barrier becomes the
        timepoint (or join, or immediate) that covers its resource."""
        if v in self.values:
            return self.values[v]
        if isinstance(v.type, TimepointType) and v in self.sources:
            return self._timepoint(sorted(self.sources[v], key=self._bit)) or self._immediate()
        return v

    def _remap(self, op: Op) -> Op:
        return remap_op(op, {v: self._mapped(v) for inner in op.walk() for v in inner.operands})

    # -- resource globals (their loads and stores: propagate_timepoints_globals) ------------------
    def _companion(self, op: Op) -> str | None:
        """The companion timepoint global of the resource global a load or store names."""
        if op.name not in ("util.global.load", "util.global.store"):
            return None
        value = op.results[0] if op.name == "util.global.load" else op.operands[0]
        if not isinstance(value.type, ResourceType):
            return None
        return self.companions.get(_global_of(op) or "")

    @abstractmethod
    def run(self) -> tuple[Op, ...]:
        """The block's ops rewritten (the walk: `propagate_timepoints._Propagator.run`); an `scf`
        region's block is rewritten by a child of the same class."""


def _is_host_consumer(op: Op) -> bool:
    """Ops whose resource operands the rebuilt timeline hands over on the host."""
    return op.name not in ("stream.async.execute", "stream.timepoint.barrier") and not (
        op.name == "stream.timepoint.await" and "sync" not in op.properties
    )

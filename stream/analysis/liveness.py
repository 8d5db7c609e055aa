"""Liveness: when resource storage is in use.

Two views, one per pass that needs them:

* `region_intervals(body, forest)`: inside one `stream.async.execute` body, the inclusive
  interval `[first, last]` of top-level op positions during which each storage tree (see
  `stream.analysis.storage_aliases`) holds a live value. An op nested in a wave counts at the
  wave's position, so every value a wave defines or reads is live for the whole wave, and two
  trees whose intervals intersect must not share bytes. A value that is written but never read
  still gets `[def, def]`: the op writes it, so it needs bytes (the fix of IREE #19355 is then
  automatic: tied results belong to their operand's tree and never get storage of their own).

* `allocation_uses(block)`: at the host level of a cmd-level function, for every
  `stream.resource.alloca`, every use of its storage through any alias (`resource.subview`,
  `timepoint.await` results, `timepoint.barrier` results, any tied result), classified by what
  the use means for freeing it: a device use (an op whose result timepoint is reached only after
  it finished using the resource), a host use (a synchronous host access), an escape (the
  storage leaves the function or goes to an op whose effects are unknown), or an existing
  ownership op (`dealloca`, `retain`, `release`). Unknown ops are escapes: fail closed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from stream.analysis.storage_aliases import StorageForest, walk_body
from stream.ir.core import Block, Op, Value
from stream.ir.rule_table import Requirement, RuleTable, traits_of
from stream.ir.spec import spec_of
from stream.ir.types import ResourceType, TimepointType

__all__ = [
    "region_intervals",
    "UseKind",
    "AllocationUses",
    "allocation_uses",
    "USE_RULES",
]


# -- region intervals ----------------------------------------------------------------------------
def region_intervals(body: Block, forest: StorageForest) -> dict[Value, tuple[int, int]]:
    """Inclusive `[first, last]` top-level positions of every storage tree, keyed by root.

    Captures (block arguments of `body`) start at -1 (live on entry). The terminator is the
    last position, so a yielded value is live until the end of the region.
    """
    spans: dict[Value, list[int]] = {}

    def touch(v: Value, position: int) -> None:
        if not isinstance(v.type, ResourceType):
            return
        root = forest.root(v)[0]
        span = spans.get(root)
        if span is None:
            spans[root] = [position, position]
        else:
            span[0] = min(span[0], position)
            span[1] = max(span[1], position)

    for arg in body.arguments:
        touch(arg, -1)
    for position, op in walk_body(body):
        for block in (b for r in op.regions for b in r.blocks):
            for arg in block.arguments:
                touch(arg, position)
        for v in op.operands:
            touch(v, position)
        for r in op.results:
            touch(r, position)
    return {root: (span[0], span[1]) for root, span in spans.items()}


# -- uses of allocations at the host level ----------------------------------------------------------
class UseKind(Enum):
    DEVICE = "device"  # finished by the time the op's result timepoint is reached
    HOST = "host"  # a synchronous host access at the op's position
    ALIAS = "alias"  # defines another name for the storage (handled through its results)
    NEUTRAL = "neutral"  # touches no bytes and keeps no reference (resource.size)
    ESCAPE = "escape"  # leaves the function or goes somewhere unknown: never free
    OWNED = "owned"  # an existing dealloca/retain/release: ownership is already explicit




def host_resource_user(spec: Any) -> bool:
    """host ops of the stream.resource / stream.timepoint / stream.cmd families taking a resource
    operand"""
    return (spec.name.startswith(("stream.resource.", "stream.timepoint.", "stream.cmd.")) and "streamable" not in traits_of(spec)
            and any(o.kind == "resource" for o in spec.operands))


USE_RULES: RuleTable[UseKind] = RuleTable(
    "USE_RULES",
    """How the host-level op uses the allocations it takes (`UseKind`: a device use finished at
    its result timepoint, a synchronous host access, an alias, a neutral query, an escape, an
    explicit ownership op). An op without an entry is an escape (conservative: the allocation
    is never freed after it).""",
    policy="conservative",
    default=UseKind.ESCAPE,
    requires=Requirement(where=host_resource_user),
    entries={
        "stream.cmd.execute": UseKind.DEVICE,
        # The parameter ops touch the resource on the device until their result timepoint.
        **{f"stream.cmd.parameter.{n}": UseKind.DEVICE for n in ("read", "write", "gather", "scatter")},
        "stream.resource.load": UseKind.HOST,
        "stream.resource.store": UseKind.HOST,
        "stream.resource.subview": UseKind.ALIAS,
        "stream.timepoint.await": UseKind.ALIAS,
        "stream.timepoint.barrier": UseKind.ALIAS,
        "stream.resource.size": UseKind.NEUTRAL,
        "stream.resource.dealloca": UseKind.OWNED,
        "stream.resource.retain": UseKind.OWNED,
        "stream.resource.release": UseKind.OWNED,
        "stream.resource.is_terminal": UseKind.NEUTRAL,
    },
)


@dataclass(slots=True, eq=False)
class AllocationUses:
    """Everything a block does with the storage of one `resource.alloca`."""

    alloca: Op
    position: int
    aliases: list[Value] = field(default_factory=list)
    # (position, op) of each use, by kind.
    device: list[tuple[int, Op]] = field(default_factory=list)
    host: list[tuple[int, Op]] = field(default_factory=list)
    escapes: list[tuple[int, Op]] = field(default_factory=list)
    owned: list[tuple[int, Op]] = field(default_factory=list)

    @property
    def resource(self) -> Value:
        return self.alloca.results[0]

    @property
    def last_position(self) -> int:
        """Position of the last op that touches the storage (the alloca if nothing does)."""
        return max([self.position] + [p for p, _ in self.device + self.host])

    def device_timepoints(self) -> list[Value]:
        """The result timepoints of the device uses, in program order."""
        out: list[Value] = []
        for _, op in self.device:
            out.extend(r for r in op.results if isinstance(r.type, TimepointType))
        return out


def _use_kind(op: Op) -> UseKind:
    return USE_RULES.resolve(op.name)  # an escape without an entry


def allocation_uses(block: Block) -> list[AllocationUses]:
    """The uses of every `stream.resource.alloca` result in `block`, in program order."""
    owner: dict[Value, AllocationUses] = {}
    out: list[AllocationUses] = []
    for position, op in enumerate(block.ops):
        # A use nested in a region (an implicit capture) is a use by the top-level op.
        touched: dict[int, AllocationUses] = {}
        for inner in op.walk():
            for v in inner.operands:
                uses = owner.get(v)
                if uses is not None:
                    touched.setdefault(id(uses), uses)
        if touched and _use_kind(op) is UseKind.ALIAS:
            _alias_results(op, owner)
        else:
            for uses in touched.values():
                _record(uses, position, op)
        if op.name == "stream.resource.alloca":
            uses = AllocationUses(op, position, [op.results[0]])
            owner[op.results[0]] = uses
            out.append(uses)
    return out


def _record(uses: AllocationUses, position: int, op: Op) -> None:
    kind = _use_kind(op)
    if kind is UseKind.ESCAPE and op.dialect == "scf" and scf_covers_captures(op, set(uses.aliases)):
        kind = UseKind.DEVICE
    bucket: dict[UseKind, Callable[[], list[tuple[int, Op]]]] = {
        UseKind.DEVICE: lambda: uses.device,
        UseKind.HOST: lambda: uses.host,
        UseKind.ESCAPE: lambda: uses.escapes,
        UseKind.OWNED: lambda: uses.owned,
    }
    if kind in bucket:
        bucket[kind]().append((position, op))


def scf_covers_captures(op: Op, names: set[Value]) -> bool:
    """Whether an `scf.for`/`scf.if` that reads the storage `names` only from its regions is a
    device use finished at its timepoint results (then the storage may be freed after it,
    awaiting them). It is when the storage does not flow through it (no operand of the op
    or of a yield) and, in every block of its regions, only execution regions and synchronous
    host accesses touch it, each execution region's timepoint is covered by a timepoint the
    block yields, and (for a loop) so is every timepoint the iteration receives: by induction
    on the iterations, the timepoints the op returns then cover every use in every iteration
    (none when a loop runs no iteration)."""
    from stream.analysis.timepoint_coverage import TimepointCoverage

    if op.name not in ("scf.for", "scf.if") or any(v in names for v in op.operands):
        return False
    for region in op.regions:
        for block in region.blocks:
            terminator = block.ops[-1] if block.ops else None
            if terminator is None or terminator.name != "scf.yield" or any(v in names for v in terminator.operands):
                return False
            yielded = [v for v in terminator.operands if isinstance(v.type, TimepointType)]
            coverage: TimepointCoverage | None = None
            needed = [a for a in block.arguments if isinstance(a.type, TimepointType)] if op.name == "scf.for" else []
            for inner in block.ops[:-1]:
                if not any(v in names for nested in inner.walk() for v in nested.operands):
                    continue
                kind = _use_kind(inner)
                if kind is UseKind.ESCAPE and inner.dialect == "scf" and scf_covers_captures(inner, names):
                    kind = UseKind.DEVICE  # a nested loop or branch, finished at its timepoints
                if kind is UseKind.DEVICE:
                    needed += [r for r in inner.results if isinstance(r.type, TimepointType)]
                elif kind is not UseKind.HOST:
                    return False
            if needed:
                coverage = TimepointCoverage.of(block)
                if not all(any(coverage.covers(y, t) for y in yielded) for t in needed):
                    return False
    return True


def _alias_results(op: Op, owner: dict[Value, AllocationUses]) -> None:
    """Results of `op` tied to a name of an allocation become names of it too. One pass over the
    results for all the allocations the op touches (a host await of many resources is one op)."""
    spec = spec_of(op)
    assert spec is not None
    for i, r in enumerate(op.results):
        index = spec.tied_operand(op, i)
        uses = owner.get(op.operands[index]) if index is not None else None
        if uses is not None:
            owner[r] = uses
            uses.aliases.append(r)

"""The op rules of schedule-allocation: one async op inside an execute region -> cmd ops.

Every resource value of the region already has storage (`Storage`: a block argument of the new
`stream.cmd.execute`, its size, and the byte offset of the value in it); a rule turns the op's
value-semantic ranges into explicit byte ranges of that storage:

| async op | cmd ops |
|---|---|
| `splat` | `fill` over the result |
| `fill` | `fill` over the target range |
| `clone`, `slice`, `update`, `copy` | `copy` between the two ranges |
| `transfer` | `copy`, preceded by `invalidate from(src)` when the data comes from another device or from staging memory and followed by `flush to(dst)` when it goes to another device or to staging memory; inside a wave the three run as one `cmd.serial`, so that the invalidate is ordered before the copy |
| `dispatch` | `dispatch` with one binding per resource operand (`ro`, or `rw` when a result is tied to it) then one `wo` binding per untied result (docs/CONVENTIONS.md), uniform operands in order, discardable attributes (`streamproof.binding_types`) kept |
| `alloca`, `constant`, `barrier`, `resource.subview` | nothing: they only name storage (a tied `barrier` result *is* its source) |

Index arithmetic the ranges need is emitted on the host, before the execute region, through the
`BlockBuilder` (constants fold).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from stream.dialect.directives import ACCESS_BITS
from stream.ir.attributes import Attribute, IntegerAttr
from stream.ir.core import Location, Op, Region, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import Requirement, RuleTable, execution_op
from stream.ir.spec import OpView, spec_of, view
from stream.ir.types import I32, Lifetime, ResourceType, Type

__all__ = ["Storage", "LoweringContext", "CONVERSIONS", "build", "convert_op"]


@dataclass(frozen=True, slots=True)
class Storage:
    """Where a value lives: `resource[offset ...]` of a region block argument of `size` bytes."""

    resource: Value
    size: Value
    offset: Value


class LoweringContext(Protocol):
    """What a conversion rule needs from the pass."""

    in_wave: bool
    affinity: Attribute | None

    def storage(self, value: Value) -> Storage: ...

    def lookup(self, value: Value) -> Value: ...

    def add(self, a: Value, b: Value) -> Value: ...

    def constant_storage(self, value: Value) -> Storage | None:
        """For an `async.constant` result that needs a private, writable copy: where the
        uploaded constant lives (the copy's source)."""
        ...


def build(
    name: str,
    operands: Mapping[str, Value | tuple[Value, ...] | list[Value] | None] | None = None,
    results: Mapping[str, Type | tuple[Type, ...] | list[Type]] | None = None,
    attrs: Mapping[str, Attribute | None] | None = None,
    regions: tuple[Region, ...] = (),
    discardable: Mapping[str, Attribute] | None = None,
    location: Location | None = None,
) -> Op:
    spec = spec_of(name)
    assert spec is not None, name
    return spec.build(operands, results, attrs, regions, discardable, location)


def _fill(ctx: LoweringContext, target: Storage, offset: Value, length: Value, value: Value, loc: Location) -> Op:
    return build(
        "stream.cmd.fill",
        {"target": target.resource, "target_size": target.size, "target_offset": offset, "target_length": length, "value": ctx.lookup(value)},
        location=loc,
    )


def _copy(source: Storage, source_offset: Value, target: Storage, target_offset: Value, length: Value, loc: Location) -> Op:
    return build(
        "stream.cmd.copy",
        {
            "source": source.resource,
            "source_size": source.size,
            "source_offset": source_offset,
            "target": target.resource,
            "target_size": target.size,
            "target_offset": target_offset,
            "length": length,
        },
        location=loc,
    )


# -- rules -----------------------------------------------------------------------------------------
def _splat(ctx: LoweringContext, op: Op, v: OpView) -> list[Op]:
    target = ctx.storage(v.result)
    return [_fill(ctx, target, target.offset, ctx.lookup(v.result_size), v.value, op.location)]


def _async_fill(ctx: LoweringContext, op: Op, v: OpView) -> list[Op]:
    target = ctx.storage(v.result)
    offset = ctx.add(target.offset, ctx.lookup(v.target_offset))
    return [_fill(ctx, target, offset, ctx.lookup(v.target_length), v.value, op.location)]


def _clone(ctx: LoweringContext, op: Op, v: OpView) -> list[Op]:
    source, target = ctx.storage(v.source), ctx.storage(v.result)
    return [_copy(source, source.offset, target, target.offset, ctx.lookup(v.result_size), op.location)]


def _slice(ctx: LoweringContext, op: Op, v: OpView) -> list[Op]:
    source, target = ctx.storage(v.source), ctx.storage(v.result)
    offset = ctx.add(source.offset, ctx.lookup(v.source_offset))
    return [_copy(source, offset, target, target.offset, ctx.lookup(v.result_size), op.location)]


def _update(ctx: LoweringContext, op: Op, v: OpView) -> list[Op]:
    source, target = ctx.storage(v.update), ctx.storage(v.result)
    offset = ctx.add(target.offset, ctx.lookup(v.target_offset))
    return [_copy(source, source.offset, target, offset, ctx.lookup(v.update_size), op.location)]


def _async_copy(ctx: LoweringContext, op: Op, v: OpView) -> list[Op]:
    source, target = ctx.storage(v.source), ctx.storage(v.result)
    source_offset = ctx.add(source.offset, ctx.lookup(v.source_offset))
    target_offset = ctx.add(target.offset, ctx.lookup(v.target_offset))
    return [_copy(source, source_offset, target, target_offset, ctx.lookup(v.length), op.location)]


def _is_staging(value: Value) -> bool:
    return isinstance(value.type, ResourceType) and value.type.lifetime is Lifetime.STAGING


def _transfer(ctx: LoweringContext, op: Op, v: OpView) -> list[Op]:
    source, target = ctx.storage(v.source), ctx.storage(v.result)
    here = v.affinity if v.affinity is not None else ctx.affinity
    incoming = (v.source_affinity is not None and v.source_affinity != here) or _is_staging(v.source)
    outgoing = (v.target_affinity is not None and v.target_affinity != here) or _is_staging(v.result)
    source_size, result_size = ctx.lookup(v.source_size), ctx.lookup(v.result_size)
    ops: list[Op] = []
    if incoming:
        ops.append(build(
            "stream.cmd.invalidate",
            {"target": source.resource, "target_size": source.size, "target_offset": source.offset, "target_length": source_size},
            attrs={"source_affinity": v.source_affinity},
            location=op.location,
        ))
    ops.append(_copy(source, source.offset, target, target.offset, source_size, op.location))
    if outgoing:
        ops.append(build(
            "stream.cmd.flush",
            {"target": target.resource, "target_size": target.size, "target_offset": target.offset, "target_length": result_size},
            attrs={"source_affinity": v.target_affinity},
            location=op.location,
        ))
    if ctx.in_wave and len(ops) > 1:
        # Commands in a wave are unordered: keep invalidate -> copy -> flush in order.
        return [build("stream.cmd.serial", regions=(Region.of((), (*ops, build("stream.yield"))),), location=op.location)]
    return ops


def _dispatch(ctx: LoweringContext, op: Op, v: OpView) -> list[Op]:
    spec = v.spec
    group_start = spec.operand_offset(op, "resource_operands")
    tied_operands = {spec.tied_operand(op, i) for i in range(len(op.results))}
    offsets, ends, lengths = v.resource_operand_offsets, v.resource_operand_ends, v.resource_operand_lengths
    del ends  # the cmd form takes offset and length
    uniforms: list[Value] = []
    resources: list[Value] = []
    sizes: list[Value] = []
    range_offsets: list[Value] = []
    range_lengths: list[Value] = []
    accesses: list[Attribute] = []
    k = 0
    for i, operand in enumerate(v.resource_operands):
        if not isinstance(operand.type, ResourceType):
            uniforms.append(ctx.lookup(operand))
            continue
        storage = ctx.storage(operand)
        resources.append(storage.resource)
        sizes.append(storage.size)
        range_offsets.append(ctx.add(storage.offset, ctx.lookup(offsets[k])))
        range_lengths.append(ctx.lookup(lengths[k]))
        accesses.append(IntegerAttr(ACCESS_BITS["rw" if group_start + i in tied_operands else "ro"], I32))
        k += 1
    result_sizes = v.result_sizes
    for i, result in enumerate(op.results):
        if spec.tied_operand(op, i) is not None:
            continue
        storage = ctx.storage(result)
        resources.append(storage.resource)
        sizes.append(storage.size)
        range_offsets.append(storage.offset)
        range_lengths.append(ctx.lookup(result_sizes[i]))
        accesses.append(IntegerAttr(ACCESS_BITS["wo"], I32))
    return [build(
        "stream.cmd.dispatch",
        {
            "workload": tuple(ctx.lookup(w) for w in v.workload),
            "uniform_operands": tuple(uniforms),
            "resources": tuple(resources),
            "resource_sizes": tuple(sizes),
            "resource_offsets": tuple(range_offsets),
            "resource_lengths": tuple(range_lengths),
        },
        attrs={"entry_points": v.entry_points, "resource_accesses": _array(accesses)},
        discardable=op.attributes,
        location=op.location,
    )]


def _array(elements: list[Attribute]) -> Attribute:
    from stream.ir.attributes import ArrayAttr

    return ArrayAttr(tuple(elements))


def _constant(ctx: LoweringContext, op: Op, v: OpView) -> list[Op]:
    source = ctx.constant_storage(v.result)
    if source is None:
        return []  # read-only: the region reads the uploaded constant in place
    target = ctx.storage(v.result)
    return [_copy(source, source.offset, target, target.offset, ctx.lookup(v.result_size), op.location)]


def _nothing(ctx: LoweringContext, op: Op, v: OpView) -> list[Op]:
    return []


Rule = Callable[[LoweringContext, Op, OpView], list[Op]]




CONVERSIONS: RuleTable[Rule] = RuleTable(
    "CONVERSIONS",
    """Lower the async op inside a `stream.async.execute` region to `stream.cmd.*` commands on
    the region's storage (`fn(ctx, op, view) -> [cmd ops]`; `_nothing` for ops that only name
    storage). An op without one is refused (exit 2, "cannot be lowered inside a
    stream.async.execute region"); `stream.async.concurrent` is handled by the caller.""",
    policy="refuse",
    requires=Requirement(where=execution_op, ops=frozenset({"stream.resource.subview"})),
    entries={
        "stream.async.splat": _splat,
        "stream.async.fill": _async_fill,
        "stream.async.clone": _clone,
        "stream.async.slice": _slice,
        "stream.async.update": _update,
        "stream.async.copy": _async_copy,
        "stream.async.transfer": _transfer,
        "stream.async.dispatch": _dispatch,
        "stream.async.constant": _constant,
        "stream.async.alloca": _nothing,
        "stream.async.barrier": _nothing,
        "stream.resource.subview": _nothing,
    },
)


def convert_op(ctx: LoweringContext, op: Op) -> list[Op]:
    rule = CONVERSIONS.get(op.name)
    if rule is None:
        raise DiagnosticError.at(
            op.location,
            f"schedule-allocation: '{op.name}' cannot be lowered inside a stream.async.execute region "
            f"(supported: {', '.join(sorted(n.rsplit('.', 1)[-1] for n in CONVERSIONS))}, stream.async.concurrent)",
        )
    return rule(ctx, op, view(op))

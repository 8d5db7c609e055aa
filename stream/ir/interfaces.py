"""Op interfaces: the facts about an op's resources, declared once in its `OpSpec`.

In the spirit of IREE's op interfaces (`Util_SizeAwareOp`, `Stream_AsyncAccessOp` /
`Stream_SubviewEffectOp`, `Util_TiedOpInterface`, `Stream_TimelineOp`, `Stream_AffinityOp`) and
MLIR's memory effects, an op spec may declare:

* `sized`: which operand groups are resources and the operand group holding each one's byte size,
  and the group holding the sizes of its resource results (`Sized`);
* `accesses`: the bytes each access touches (offset / end / length operand groups) and how
  (`Access`); `()` declares that the op touches no bytes, `None` that nothing is declared (the
  consumers then assume the worst: every resource operand read and written);
* `aliases`: results that are an operand's storage unchanged, the same version under another name
  (`Alias`; a subview names a window of it);
* `timeline`: the timepoints the op awaits and the timepoint it produces (`Timeline`);
* `pure`: IREE's `Pure` (`Stream_PureOp`, `Util_PureOp`; MLIR's `Pure` on arith/func ops): no
  memory effect and free to move past any op it does not depend on through SSA;
* `effects`: MLIR's memory effects (`Effect`: read, write, allocate, free, on an operand or
  result group, or on host state when it names none); `()` is `NoMemoryEffect` (a pure op has
  none unless it declares some, as IREE's `Pure` ops with `MemAlloc` do), `None` that nothing is
  declared (the consumers then assume any effect);
* ties stay `OpSpec.ties`, the level `OpSpec.levels`, affinity the op's `affinity` attribute.

The consumers (`stream.analysis.storage`, `stream.analysis.resource_hazards`, the structural
verifier's range checks, `verify.storage`, ...) derive their per-op tables from these with the
helpers below; only what is truly specific to an op (its kernel, its value semantics, its lowering)
stays in a table of its own.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from stream.ir.attributes import ArrayAttr, IntegerAttr
from stream.ir.types import ResourceType

if TYPE_CHECKING:
    from stream.ir.core import Op, Value
    from stream.ir.spec import OpSpec

__all__ = ["AccessMode", "Access", "Sized", "Alias", "Timeline", "Effect", "EffectKind", "BoundAccess", "bound_accesses", "awaited", "awaits_group", "sized_operands", "sized_results", "alias_pairs"]

# read, write (the op overwrites the range), read_write, discard (the range's contents become
# undefined), touch (uses the memory without reading or writing it: cache flush/invalidate),
# tied (read_write when the operand is tied to a result, else read: dispatches, regions),
# declared (from the op's `resource_accesses` attribute: cmd.dispatch).
AccessMode = Literal["read", "write", "read_write", "discard", "touch", "tied", "declared"]


@dataclass(frozen=True, slots=True)
class Access:
    """`mode` access to the bytes `[offset, end)` (or `[offset, offset + length)`) of the
    resource operand group `resource`, whose byte size is the group `size`. Without `offset` the
    access covers the whole resource. A variadic `resource` group pairs its k-th resource-typed
    value with the k-th value of each of the other (parallel) groups; `label` then names one
    element in messages ("resource operand", "binding"). A single `resource` with variadic range
    groups is accessed once per range (a parameter gather or scatter)."""

    resource: str
    size: str | None = None
    offset: str | None = None
    end: str | None = None
    length: str | None = None
    mode: AccessMode = "read"
    label: str | None = None

    @property
    def whole(self) -> bool:
        return self.offset is None

    @property
    def writes(self) -> bool:
        return self.mode in ("write", "read_write", "discard")


@dataclass(frozen=True, slots=True)
class Sized:
    """Util_SizeAwareOp: (resource operand group, its size group) pairs in ODS order, and the
    group holding the size of each resource result (one value per result, or one for all)."""

    operands: tuple[tuple[str, str], ...] = ()
    results: str | None = None


@dataclass(frozen=True, slots=True)
class Alias:
    """Result group `result` is operand group `operand`'s storage, unchanged (same version).
    With `offset` it is the window `[offset, offset + length)` of it (a subview)."""

    result: str
    operand: str
    offset: str | None = None
    length: str | None = None


@dataclass(frozen=True, slots=True)
class Timeline:
    """Stream_TimelineOp: the operand group of awaited timepoints and the result timepoint."""

    awaits: str | None = None
    result: str | None = None


EffectKind = Literal["read", "write", "allocate", "free"]


@dataclass(frozen=True, slots=True)
class Effect:
    """MLIR's `MemoryEffects<[MemRead|MemWrite|MemAlloc|MemFree]>`: `kind` on the operand or
    result group `on` (a resource), or on host state the op's operands do not name (a global,
    a list) when `on` is None."""

    kind: EffectKind
    on: str | None = None


@dataclass(frozen=True, slots=True)
class BoundAccess:
    """An `Access` of one op, resolved to values. `mode` is never `tied` or `declared`."""

    access: Access
    index: int  # operand index of the resource
    value: Value
    size: Value | None
    offset: Value | None
    end: Value | None
    length: Value | None
    mode: AccessMode
    element: int | None  # position in a variadic group (counting resource-typed values only)


def _tied_indices(spec: OpSpec, op: Op) -> set[int]:
    out: set[int] = set()
    for i in range(len(op.results)):
        t = spec.tied_operand(op, i)
        if t is not None:
            out.add(t)
    return out


_DECLARED = {1: "read", 2: "write", 3: "read_write"}


@dataclass(frozen=True, slots=True)
class _Plan:
    """What `bound_accesses` needs of one declared access that depends only on the spec."""

    access: Access
    variadic: bool  # the resource group is variadic
    ranged: tuple[str, ...]  # the offset/end/length groups that are variadic (one access per range)


@functools.cache  # specs are registered once and live as long as the process
def _plans(spec: OpSpec) -> tuple[_Plan, ...]:
    arity = {o.name: o.arity for o in spec.operands}
    plans = tuple(_Plan(a, arity[a.resource] == "variadic",
                        tuple(n for n in (a.offset, a.end, a.length) if n is not None and arity[n] == "variadic"))
                  for a in spec.accesses or ())
    return plans


def _layout(spec: OpSpec, op: Op) -> tuple[dict[str, tuple[Value, ...]], dict[str, int]]:
    """Every operand group of `op` by name, and where each starts (the segment sizes once)."""
    groups: dict[str, tuple[Value, ...]] = {}
    starts: dict[str, int] = {}
    b = spec.operand_bounds(op)
    operands = op.operands
    for i, group in enumerate(spec.operands):
        groups[group.name] = operands[b[i] : b[i + 1]]
        starts[group.name] = b[i]
    return groups, starts


def bound_accesses(spec: OpSpec, op: Op) -> tuple[BoundAccess, ...] | None:
    """The op's declared accesses with their values, in declaration order (None when the spec
    declares none). Computed once per op (cached on it: the op is immutable)."""
    if spec.accesses is None:
        return None
    cached = op._bound_accesses
    if cached is None:
        cached = tuple(_bind_accesses(spec, op))
        object.__setattr__(op, "_bound_accesses", cached)
    return cached


def _bind_accesses(spec: OpSpec, op: Op) -> list[BoundAccess]:
    out: list[BoundAccess] = []
    groups, starts = _layout(spec, op)
    tied: set[int] | None = None
    for plan in _plans(spec):
        a = plan.access
        values = groups[a.resource]
        base = starts[a.resource]
        size, offset, end, length = (groups[n] if n is not None else () for n in (a.size, a.offset, a.end, a.length))
        variadic = plan.variadic
        # One resource with variadic ranges (a parameter gather/scatter): one access per range.
        ranges = max((len(groups[n]) for n in plan.ranged), default=None)
        repeat = not variadic and ranges is not None
        if repeat:
            values = values[:1] * ranges  # type: ignore[operator]
        modes: list[str] = []
        if a.mode == "declared":
            attr = op.properties.get("resource_accesses")
            if isinstance(attr, ArrayAttr):
                modes = [_DECLARED.get(e.value, "read_write") if isinstance(e, IntegerAttr) else "read_write" for e in attr.elements]
        k = 0
        for j, v in enumerate(values):
            if variadic and not isinstance(v.type, ResourceType):
                continue
            mode: str = a.mode
            if mode == "tied":
                if tied is None:
                    tied = _tied_indices(spec, op)
                mode = "read_write" if base + j in tied else "read"
            elif mode == "declared":
                mode = modes[k] if k < len(modes) else "read_write"
            out.append(BoundAccess(a, base + (0 if repeat else j), v, _at(size, 0 if repeat else k), _at(offset, k),
                                   _at(end, k), _at(length, k), mode, k if variadic or repeat else None))  # type: ignore[arg-type]
            k += 1
    return out


def _at(group: tuple[Value, ...], k: int) -> Value | None:
    return group[k] if k < len(group) else None


def sized_operands(spec: OpSpec, op: Op) -> list[tuple[int, Value, Value]]:
    """(operand index, resource, its size) for every sized resource operand of `op` (a variadic
    group pairs its resource-typed values with its size group in order)."""
    if spec.sized is None:
        return []
    out: list[tuple[int, Value, Value]] = []
    groups, starts = _layout(spec, op)
    for group, size_group in spec.sized.operands:
        values = groups[group]
        sizes = iter(groups[size_group])
        base = starts[group]
        variadic = spec.operands[spec._operand_index[group]].arity == "variadic"
        for j, v in enumerate(values):
            if variadic and not isinstance(v.type, ResourceType):
                continue
            size = next(sizes, None)
            if size is None:
                break
            out.append((base + j, v, size))
    return out


def sized_results(spec: OpSpec, op: Op) -> list[tuple[int, Value | None]]:
    """(result index, its size or None) for every resource-typed result of `op`, when the spec
    declares a result-size group: the k-th resource result has the group's k-th value."""
    if spec.sized is None or spec.sized.results is None:
        return []
    sizes = spec.operand_group(op, spec.sized.results)
    out: list[tuple[int, Value | None]] = []
    k = 0
    for i, r in enumerate(op.results):
        if isinstance(r.type, ResourceType):
            out.append((i, sizes[k] if k < len(sizes) else None))
            k += 1
    return out


def alias_pairs(spec: OpSpec, op: Op) -> list[tuple[int, int, Alias]]:
    """(operand index, result index, alias) for every result that is an operand's storage
    unchanged (`Alias`; the groups pair value by value)."""
    out: list[tuple[int, int, Alias]] = []
    for al in spec.aliases:
        operand_base = spec.operand_offset(op, al.operand)
        result_base = spec.result_offset(op, al.result)
        n = min(len(spec.operand_group(op, al.operand)), len(spec.result_group(op, al.result)))
        out.extend((operand_base + j, result_base + j, al) for j in range(n))
    return out


def awaits_group(spec: OpSpec | None) -> str | None:
    """The operand group of the timepoints the op awaits (its `Timeline`), or None."""
    timeline = spec.timeline if spec is not None else None
    return timeline.awaits if timeline is not None else None


def awaited(spec: OpSpec | None, op: Op) -> tuple[Value, ...]:
    """The timepoints `op` awaits by its `Timeline` interface (empty when it declares none)."""
    group = awaits_group(spec)
    return spec.operand_group(op, group) if spec is not None and group is not None else ()

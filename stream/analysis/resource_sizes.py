"""ResourceSizes: the index value holding the byte size of each resource value.

Every `!stream.resource` operand and result carries its byte size as an index value beside it
(`%r : !stream.resource<transient>{%n}`); a resource function argument does not, so its size is
whatever its users say. `resource_sizes(block)` reads these pairs off every op of a block, nested
regions included, so that a pass that moves a value into a region capture or a yield can attach the
size the rest of the program already uses.

The pairing is a rule per op spec, by IREE's naming: the group `resource_operands` pairs with
`resource_operand_sizes` (resource-typed values only, in order), `results` with `result_sizes`, a
single group `X` with `X_size` (or the op's lone `size` / `storage_size` group), and a tied result
without a size of its own takes its operand's.
"""

from __future__ import annotations

from collections.abc import Iterator

from stream.ir.core import Block, Op, Value
from stream.ir.spec import OpSpec, spec_of
from stream.ir.types import ResourceType

__all__ = ["resource_sizes", "size_pairs"]

# Variadic groups whose sizes live in a parallel variadic group.
_PARALLEL = {
    "resource_operands": "resource_operand_sizes",
    "results": "result_sizes",
    "resources": "resource_sizes",
}


def _group_names(spec: OpSpec) -> set[str]:
    return {o.name for o in spec.operands}


def _single_size_group(spec: OpSpec, name: str) -> str | None:
    names = _group_names(spec)
    for candidate in (f"{name}_size", "size", "storage_size"):
        if candidate in names:
            return candidate
    return None


def size_pairs(op: Op) -> Iterator[tuple[Value, Value]]:
    """(resource value, its size value) for every resource operand and result of `op` whose size
    the op names."""
    spec = spec_of(op)
    if spec is None:
        return
    known: dict[Value, Value] = {}
    for group in spec.operands:
        values = spec.operand_group(op, group.name)
        if group.name in _PARALLEL and _PARALLEL[group.name] in _group_names(spec):
            sizes = spec.operand_group(op, _PARALLEL[group.name])
            resources = [v for v in values if isinstance(v.type, ResourceType)]
            for v, s in zip(resources, sizes):
                known.setdefault(v, s)
        elif group.arity == "single" and values and isinstance(values[0].type, ResourceType):
            size_group = _single_size_group(spec, group.name)
            if size_group is not None:
                known.setdefault(values[0], spec.operand_group(op, size_group)[0])
    for result_group in spec.results:
        values = spec.result_group(op, result_group.name)
        if result_group.name in _PARALLEL and _PARALLEL[result_group.name] in _group_names(spec):
            sizes = spec.operand_group(op, _PARALLEL[result_group.name])
            resources = [v for v in values if isinstance(v.type, ResourceType)]
            for v, s in zip(resources, sizes):
                known.setdefault(v, s)
            continue
        for v in values:
            if not isinstance(v.type, ResourceType):
                continue
            size_group = _single_size_group(spec, result_group.name) if result_group.arity == "single" else None
            if size_group is not None:
                known.setdefault(v, spec.operand_group(op, size_group)[0])
                continue
            tied = spec.tied_operand(op, op.results.index(v))
            if tied is not None and op.operands[tied] in known:
                known.setdefault(v, known[op.operands[tied]])
    yield from known.items()


def resource_sizes(block: Block) -> dict[Value, Value]:
    """The size value of every resource value that some op of `block` (nested ops included)
    pairs with a size. The first pairing found wins; well-formed IR pairs a value with one size."""
    out: dict[Value, Value] = {}
    for top in block.ops:
        for op in top.walk():
            for value, size in size_pairs(op):
                out.setdefault(value, size)
    return out

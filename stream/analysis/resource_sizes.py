"""ResourceSizes: the index value holding the byte size of each resource value.

Every `!stream.resource` operand and result carries its byte size as an index value beside it
(`%r : !stream.resource<transient>{%n}`); a resource function argument does not, so its size is
whatever its users say. `resource_sizes(block)` reads these pairs off every op of a block, nested
regions included, so that a pass that moves a value into a region capture or a yield can attach the
size the rest of the program already uses.

The pairing is the op's `Sized` interface (`OpSpec.sized`, `stream.ir.interfaces`): each
resource operand group with its size group (resource-typed values only, in order), the resource
results with the result-size group, and a tied result without a size of its own takes its
operand's.
"""

from __future__ import annotations

from collections.abc import Iterator

from stream.ir.core import Block, Op, Value
from stream.ir.interfaces import sized_operands, sized_results
from stream.ir.spec import spec_of
from stream.ir.types import ResourceType

__all__ = ["resource_sizes", "size_pairs"]


def size_pairs(op: Op) -> Iterator[tuple[Value, Value]]:
    """(resource value, its size value) for every resource operand and result of `op` whose size
    the op names."""
    spec = spec_of(op)
    if spec is None:
        return
    known: dict[Value, Value] = {}
    if spec.sized is not None:
        for _index, v, size in sized_operands(spec, op):
            known.setdefault(v, size)
    declared = dict(sized_results(spec, op))
    for i, r in enumerate(op.results):
        if not isinstance(r.type, ResourceType):
            continue
        own = declared.get(i)
        if own is not None:
            known.setdefault(r, own)
            continue
        tied = spec.tied_operand(op, i)
        if tied is not None and op.operands[tied] in known:
            known.setdefault(r, known[op.operands[tied]])
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

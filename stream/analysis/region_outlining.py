"""Outlining a group of ops into the body of a `stream.async.execute` or `stream.async.concurrent`.

Both scheduling passes move ops into regions with explicit captures: `with(%outer as %arg: ...)`
makes a block argument per captured resource, the ops are cloned with fresh SSA values (an op may
be cloned into several regions), and the values used after the region are yielded and become the
region's results.

A region result is *tied* to a capture (`-> %outer{%n}`) when the yielded value is that capture's
storage written in place: following ties inside the body (`dispatch ... -> %arg`, `fill`,
`update`, `copy`) from the yielded value reaches the capture's block argument. Each capture is tied
to at most one result (a second one would mean two live names for one storage, which copy-on-write
rules out); such a result stays untied.

Non-resource values (sizes, offsets, scalars) are used from the enclosing scope directly, as IREE
does: execution regions are not isolated from above.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from stream.ir.attributes import ArrayAttr, Attribute, IntegerAttr
from stream.ir.core import Block, Location, Op, Region, Value
from stream.ir.spec import spec_of
from stream.ir.types import INDEX, TIMEPOINT

__all__ = ["OutlinedBody", "outline", "clone_op", "remap_op", "build_region_op"]


def remap_op(op: Op, mapping: Mapping[Value, Value]) -> Op:
    """`op` with its operands, and those of its nested ops, looked up in `mapping` (results and
    block arguments stay the same values); the very same op when nothing changes."""
    operands = tuple(mapping.get(v, v) for v in op.operands)
    regions = tuple(_remap_region(r, mapping) for r in op.regions)
    if all(a is b for a, b in zip(operands, op.operands)) and all(a is b for a, b in zip(regions, op.regions)):
        return op
    return op.replace(operands=operands, regions=regions)


def _remap_region(region: Region, mapping: Mapping[Value, Value]) -> Region:
    blocks = tuple(Block(b.arguments, tuple(remap_op(o, mapping) for o in b.ops)) for b in region.blocks)
    if all(all(x is y for x, y in zip(nb.ops, ob.ops)) for nb, ob in zip(blocks, region.blocks)):
        return region
    return Region(blocks)


def clone_op(op: Op, mapping: dict[Value, Value]) -> Op:
    """A deep copy of `op` with operands looked up in `mapping` and fresh values for its results
    and for everything defined in its regions; the new results are added to `mapping`."""
    operands = tuple(mapping.get(v, v) for v in op.operands)
    regions = tuple(_clone_region(r, mapping) for r in op.regions)
    results = tuple(Value(r.type) for r in op.results)
    for old, new in zip(op.results, results):
        mapping[old] = new
    return op.replace(operands=operands, results=results, regions=regions)


def _clone_region(region: Region, mapping: dict[Value, Value]) -> Region:
    blocks = []
    for block in region.blocks:
        args = tuple(Value(a.type, a.name_hint) for a in block.arguments)
        for old, new in zip(block.arguments, args):
            mapping[old] = new
        blocks.append(Block(args, tuple(clone_op(o, mapping) for o in block.ops)))
    return Region(tuple(blocks))


@dataclass(frozen=True, slots=True)
class OutlinedBody:
    """A region body and what the region op around it needs."""

    body: Block
    captures: tuple[Value, ...]  # outer values, one per block argument
    capture_sizes: tuple[Value, ...]
    results: tuple[Value, ...]  # the outer values the region's results replace, in order
    result_sizes: tuple[Value, ...]
    ties: tuple[int, ...]  # per result: the capture index it is tied to, or -1
    mapping: dict[Value, Value]  # original values -> their clones inside the body


def outline(
    ops: Sequence[Op],
    captures: Sequence[Value],
    escapes: Sequence[Value],
    sizes: Mapping[Value, Value],
    *,
    substitute: Mapping[Value, Value] | None = None,
    rewrite: Callable[[Op], Op] | None = None,
    location: Location | None = None,
) -> OutlinedBody:
    """Clone `ops` (in order) into a new body capturing `captures` and yielding `escapes`.

    `substitute` replaces values before anything else (elided barrier results by their operands);
    `rewrite` post-processes each cloned op (e.g. strips affinities the region now implies).
    Sizes of captures and escapes come from `sizes` (keyed by the original values)."""
    substitute = substitute or {}
    mapping: dict[Value, Value] = {}
    args = tuple(Value(c.type) for c in captures)
    for outer, arg in zip(captures, args):
        mapping[outer] = arg

    def lookup(v: Value) -> Value:
        while v in substitute:
            v = substitute[v]
        return mapping.get(v, v)

    body_ops: list[Op] = []
    for op in ops:
        for inner in op.walk():
            for v in inner.operands:
                if v in substitute:
                    mapping[v] = lookup(v)
        clone = clone_op(op, mapping)
        body_ops.append(rewrite(clone) if rewrite is not None else clone)
    yielded = tuple(lookup(e) for e in escapes)
    try:
        capture_sizes = tuple(sizes[c] for c in captures)
        result_sizes = tuple(sizes[e] for e in escapes)
    except KeyError as e:  # pragma: no cover - every resource value in valid IR has a size
        raise ValueError(f"no size is known for {e.args[0]!r}") from None
    spec = spec_of("stream.yield")
    assert spec is not None
    body_ops.append(
        spec.build(
            operands={"resource_operands": yielded, "resource_operand_sizes": result_sizes},
            location=location,
        )
    )
    body = Block(args, tuple(body_ops))
    return OutlinedBody(body, tuple(captures), capture_sizes, tuple(escapes), result_sizes, _ties(body, yielded), mapping)


def _ties(body: Block, yielded: tuple[Value, ...]) -> tuple[int, ...]:
    """For each yielded value, the block argument it is written in place into (or -1)."""
    producer: dict[Value, Op] = {}
    for op in body.ops:
        for r in op.results:
            producer[r] = op
    arg_index = {a: i for i, a in enumerate(body.arguments)}
    ties: list[int] = []
    taken: set[int] = set()
    for y in yielded:
        v = y
        while v not in arg_index:
            found = producer.get(v)
            spec = spec_of(found) if found is not None else None
            if found is None or spec is None:
                break
            index = spec.tied_operand(found, found.results.index(v))
            if index is None:
                break
            v = found.operands[index]
        tie = arg_index.get(v, -1)
        if tie in taken:
            tie = -1
        if tie >= 0:
            taken.add(tie)
        ties.append(tie)
    return tuple(ties)


def build_region_op(
    name: str,
    outlined: OutlinedBody,
    *,
    affinity: Attribute | None = None,
    await_timepoint: Value | None = None,
    location: Location | None = None,
) -> Op:
    """`stream.async.execute` (with its timepoint) or `stream.async.concurrent` around a body."""
    spec = spec_of(name)
    assert spec is not None
    operands: dict[str, Value | None | tuple[Value, ...]] = {
        "resource_operands": outlined.captures,
        "resource_operand_sizes": outlined.capture_sizes,
        "result_sizes": outlined.result_sizes,
    }
    results: dict[str, tuple[object, ...] | object] = {"results": tuple(e.type for e in outlined.results)}
    if name == "stream.async.execute":
        operands["await_timepoint"] = await_timepoint
        results["result_timepoint"] = TIMEPOINT
    # IREE's form: one entry per resource result, or `[]` when nothing is tied. Set after
    # building so that no generic canonicalization of ties can count the timepoint result.
    tied = ArrayAttr(tuple(IntegerAttr(t, INDEX) for t in outlined.ties)) if any(t >= 0 for t in outlined.ties) else ArrayAttr(())
    op = spec.build(
        operands=operands,
        results=results,  # type: ignore[arg-type]
        attrs={"affinity": affinity},
        regions=(Region((outlined.body,)),),
        location=location,
    )
    return op.replace(properties={**op.properties, "tied_operands": tied})

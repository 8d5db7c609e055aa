"""Async- and tensor-level ops on value-semantic resources.

Inside an execute region each op is a nested site; outside any region (the async level before
scheduling, and the tensor level) it runs synchronously on the host lane. Ops with standard
behaviour (copy, fill, slice, update, clone, the creating ops, casts and barriers) have no rule
here: their effect is derived from their spec's interfaces (`verify.rules.derived`). Every resource operand
is a *use* (it must be ready first) and an *access* of the bytes the op names; an operand a
result is tied to is written in place (`tie`: the write ends the operand's version). Untied
results are fresh values, ready when the op ends.
"""

from __future__ import annotations

from collections.abc import Sequence

from stream.ir.attributes import ArrayAttr, TypeAttr
from stream.ir.core import Op, Value
from stream.ir.spec import OpSpec
from stream.ir.types import ResourceType, TensorType, element_byte_width
from verify.events import Site
from verify.model import READ, RW, WRITE, Builder, RangeCheck
from verify.rules.table import effect
from verify.storage import spec_for
from verify.symbolic import Expr, const


def _spec(op: Op) -> OpSpec:
    spec = spec_for(op)
    assert spec is not None, op.name
    return spec


def _one(spec: OpSpec, op: Op, name: str) -> Value:
    return spec.operand_group(op, name)[0]


def _tied_operands(spec: OpSpec, op: Op) -> set[int]:
    out: set[int] = set()
    for i in range(len(op.results)):
        t = spec.tied_operand(op, i)
        if t is not None:
            out.add(t)
    return out


def _entry(op: Op) -> str:
    eps = op.properties.get("entry_points")
    text = str(eps.elements[0]) if isinstance(eps, ArrayAttr) and eps.elements else "?"
    return text.split("::")[-1]


@effect("stream.async.dispatch")
def dispatch(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.op_site(op, f"dispatch {_entry(op)}")
    base = spec.operand_offset(op, "resource_operands")
    tied = _tied_operands(spec, op)
    offsets = iter(spec.operand_group(op, "resource_operand_offsets"))
    lengths = iter(spec.operand_group(op, "resource_operand_lengths"))
    for j, v in enumerate(spec.operand_group(op, "resource_operands")):
        if not isinstance(v.type, ResourceType):
            continue
        off, length = b.symbols.expr(next(offsets)), b.symbols.expr(next(lengths))
        b.use(site, v)
        if base + j in tied:
            b.access(site, v, off, length, RW, "rw", tie=True)
        else:
            b.access(site, v, off, length, READ, "ro")
    b.produce(site, op.results)


@effect("stream.async.transfer")
def transfer(b: Builder, op: Op) -> None:
    site = b.op_site(op, "transfer")
    source = op.operands[0]
    b.use(site, source)
    b.whole(site, source, READ, "source", transfer=True)
    b.produce(site, op.results)


def _scalar_bytes(v: Value) -> Expr:
    w = element_byte_width(v.type)
    return const(w if w is not None else 1)


@effect("stream.async.load")
def load(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.host(op, "load")
    source = _one(spec, op, "source")
    b.use(site, source)
    b.access(site, source, b.symbols.expr(_one(spec, op, "source_offset")), _scalar_bytes(op.results[0]), READ, "load")


@effect("stream.async.store")
def store(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.host(op, "store")
    target = _one(spec, op, "target")
    b.use(site, target)
    off = b.symbols.expr(_one(spec, op, "target_offset"))
    b.access(site, target, off, _scalar_bytes(_one(spec, op, "value")), WRITE, "store", tie=True)
    b.produce(site, op.results)


# -- tensor level: byte ranges are not explicit yet, so accesses cover whole resources ----------
@effect("stream.tensor.dispatch")
def tensor_dispatch(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.op_site(op, f"dispatch {_entry(op)}")
    base = spec.operand_offset(op, "mixed_operands")
    tied = _tied_operands(spec, op)
    for j, v in enumerate(spec.operand_group(op, "mixed_operands")):
        if isinstance(v.type, ResourceType):
            b.use(site, v)
            if base + j in tied:
                b.whole(site, v, RW, "rw", tie=True)
            else:
                b.whole(site, v, READ, "ro")
    b.produce(site, op.results)


def _tensor_dims(b: Builder, op: Op, spec: OpSpec, name: str) -> list[Expr] | None:
    """The dims of the tensor operand `name` (from its `<name>_encoding` type and dynamic dims)."""
    enc = op.properties.get(f"{name}_encoding")
    t = enc.type if isinstance(enc, TypeAttr) else None
    if not isinstance(t, TensorType) or t.shape is None:
        return None
    dynamic = iter(spec.operand_group(op, f"{name}_encoding_dims"))
    try:
        return [const(d) if d is not None else b.symbols.expr(next(dynamic)) for d in t.shape]
    except StopIteration:
        return None


def element_ranges(b: Builder, site: Site, op: Op, what: str, source: Value, dims: list[Expr] | None,
                    starts: Sequence[Expr], lengths: Sequence[Expr]) -> None:
    """Index ranges of a tensor-level slice, update or load stay inside the tensor's dims:
    `start + length <= dim` in every dim (the input program's own indices, checked where they
    first appear, before byte offsets hide which dim is wrong)."""
    if dims is None or len(starts) != len(dims) or len(lengths) != len(dims):
        return
    for i, (start, length, dim) in enumerate(zip(starts, lengths, dims)):
        b.model.ranges.append(RangeCheck(site, op, f"the {what} range", start, length, dim, value=source, unit=f"elements of dim {i}"))


@effect("stream.tensor.update")
def tensor_update(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.op_site(op, "update")
    target, upd = _one(spec, op, "target"), _one(spec, op, "update")
    b.use(site, upd)
    b.use(site, target)
    b.whole(site, upd, READ, "update")
    b.whole(site, target, WRITE, "target", tie=True)
    starts = [b.symbols.expr(v) for v in spec.operand_group(op, "start_indices")]
    element_ranges(b, site, op, "update", target, _tensor_dims(b, op, spec, "target"), starts, _tensor_dims(b, op, spec, "update") or [])
    b.produce(site, op.results)


# The operand groups giving the element window an op touches: (starts, lengths); a window
# without a lengths group is one element per dim (load, store).
_WINDOW_GROUPS: dict[str, tuple[str, str | None]] = {
    "fill": ("start_indices", "lengths"),
    "slice": ("start_indices", "lengths"),
    "store": ("indices", None),
    "load": ("indices", None),
}


def _element_window(b: Builder, op: Op, spec: OpSpec, kind: str) -> tuple[list[Expr], list[Expr]]:
    start_group, length_group = _WINDOW_GROUPS[kind]
    starts = [b.symbols.expr(v) for v in spec.operand_group(op, start_group)]
    if length_group is None:
        return starts, [const(1)] * len(starts)
    return starts, [b.symbols.expr(v) for v in spec.operand_group(op, length_group)]


@effect("stream.tensor.fill", "stream.tensor.store")
def tensor_write(b: Builder, op: Op) -> None:
    spec = _spec(op)
    kind = op.name.rsplit(".", 1)[-1]
    site = b.op_site(op, kind)
    target = op.operands[0]
    b.use(site, target)
    b.whole(site, target, WRITE, "target", tie=True)
    dims = _tensor_dims(b, op, spec, "target")
    starts, lengths = _element_window(b, op, spec, kind)
    if starts:  # a fill without indices fills the whole tensor
        element_ranges(b, site, op, kind, target, dims, starts, lengths)
    b.produce(site, op.results)


@effect("stream.tensor.slice", "stream.tensor.load")
def tensor_read(b: Builder, op: Op) -> None:
    spec = _spec(op)
    kind = op.name.rsplit(".", 1)[-1]
    site = b.op_site(op, kind)
    source = op.operands[0]
    b.use(site, source)
    b.whole(site, source, READ, "source")
    dims = _tensor_dims(b, op, spec, "source")
    starts, lengths = _element_window(b, op, spec, kind)
    element_ranges(b, site, op, kind, source, dims, starts, lengths)
    b.produce(site, op.results)

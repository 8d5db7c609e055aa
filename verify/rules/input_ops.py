"""Input-level ops (`flow.tensor.*`): the index ranges the program itself writes.

At the input level tensors are values: nothing can race, be freed early or be waited for, so
the only obligations are the program's own indices. `flow.tensor.slice`, `update`, `load` and
`store` must stay inside the tensor in every dim (`0 <= start`, `start + length <= dim`), as
IREE's runtime assumes; a violation is OUT_OF_BOUNDS with a witness (the values of the symbolic
sizes and indices that break it). The same ranges are checked again at the tensor level after
convert-to-stream (`verify.rules.async_ops`); checking them here lets `streamproof verify`
check an input-level program as given.
"""

from __future__ import annotations

from collections.abc import Sequence

from stream.ir.core import Op, Value
from stream.ir.spec import OpSpec
from stream.ir.types import TensorType
from verify.model import Builder
from verify.rules.async_ops import element_ranges
from verify.rules.table import effect
from verify.storage import spec_for
from verify.symbolic import Expr, const


def _spec(op: Op) -> OpSpec:
    spec = spec_for(op)
    assert spec is not None, op.name
    return spec


def _dims(b: Builder, tensor: Value, dynamic: Sequence[Value]) -> list[Expr] | None:
    """The dims of an input-level tensor: static ones from its type, `?` ones from the op's
    dims operands in order (None when they do not line up: the structural verifier says so)."""
    t = tensor.type
    if not isinstance(t, TensorType) or t.shape is None:
        return None
    values = iter(dynamic)
    try:
        out = [const(d) if d is not None else b.symbols.expr(next(values)) for d in t.shape]
    except StopIteration:
        return None
    return out


def _indices(b: Builder, values: Sequence[Value]) -> list[Expr]:
    return [b.symbols.expr(v) for v in values]


@effect("flow.tensor.slice")
def flow_slice(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.host(op, "slice")
    source = spec.operand_group(op, "source")[0]
    dims = _dims(b, source, spec.operand_group(op, "source_dims"))
    starts = _indices(b, spec.operand_group(op, "start_indices"))
    lengths = _indices(b, spec.operand_group(op, "lengths"))
    element_ranges(b, site, op, "slice", source, dims, starts, lengths)


@effect("flow.tensor.update")
def flow_update(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.host(op, "update")
    target = spec.operand_group(op, "target")[0]
    update = spec.operand_group(op, "update")[0]
    dims = _dims(b, target, spec.operand_group(op, "target_dims"))
    starts = _indices(b, spec.operand_group(op, "start_indices"))
    lengths = _dims(b, update, spec.operand_group(op, "update_dims")) or []
    element_ranges(b, site, op, "update", target, dims, starts, lengths)


@effect("flow.tensor.load")
def flow_load(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.host(op, "load")
    source = spec.operand_group(op, "source")[0]
    dims = _dims(b, source, spec.operand_group(op, "source_dims"))
    starts = _indices(b, spec.operand_group(op, "indices"))
    element_ranges(b, site, op, "load", source, dims, starts, [const(1)] * len(starts))


@effect("flow.tensor.store")
def flow_store(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.host(op, "store")
    target = spec.operand_group(op, "target")[0]
    dims = _dims(b, target, spec.operand_group(op, "target_dims"))
    starts = _indices(b, spec.operand_group(op, "indices"))
    element_ranges(b, site, op, "store", target, dims, starts, [const(1)] * len(starts))

"""Recipes for the value-semantic ops: flow, `stream.tensor.*`, `stream.async.*` and
`stream.timepoint.*`, one per op, registered in `ir_gen.RECIPES`.
"""

from __future__ import annotations

from ir_gen import (
    OPAQUE_TYPES,
    Gen,
    affinities,
    async_body,
    dense_attrs,
    draw_ties,
    entry_points,
    recipe,
    resource_types,
)

from stream.dialect.directives import UNUSED_ENCODING
from stream.ir.attributes import (
    ArrayAttr,
    Attribute,
    TypeAttr,
    UnitAttr,
)
from stream.ir.core import Value
from stream.ir.types import (
    F32,
    I8,
    I16,
    I32,
    I64,
    INDEX,
    TIMEPOINT,
    Lifetime,
    ResourceType,
    TensorType,
    Type,
)


# -- input level (flow) -------------------------------------------------------------------------
@recipe("flow.dispatch")
def _flow_dispatch(g: Gen) -> None:
    args: list[Value] = []
    dims: list[Value] = []
    for _ in range(g.count(0, 3)):
        if g.flag(0.7):
            t, d = g.tensor()
            args.append(t)
            dims.extend(d)
        else:
            args.append(g.value(g.pick((INDEX, I32, F32))))
    n = g.count(0, 2)
    ties = draw_ties(g, args, n, lambda v: isinstance(v.type, TensorType))
    result_types: list[Type] = []
    result_dims: list[Value] = []
    for tie in ties:
        t = args[tie].type if tie >= 0 else g.tensor_type()
        result_types.append(t)
        result_dims.extend(g.index() for _ in range(t.dynamic_dims))  # type: ignore[attr-defined]
    g.build(
        "flow.dispatch",
        {"workload": g.indices(0, 2), "arguments": args, "argument_dims": dims, "result_dims": result_dims},
        {"results": result_types},
        {"entry_points": entry_points(g), "tied_operands": ties},
    )


@recipe("flow.tensor.transfer")
def _flow_transfer(g: Gen) -> None:
    t, d = g.tensor()
    g.build("flow.tensor.transfer", {"operand": t, "operand_dims": d}, {"result": t.type}, {"target": g.draw(affinities())})


@recipe("flow.tensor.clone")
def _flow_clone(g: Gen) -> None:
    t, d = g.tensor()
    g.build("flow.tensor.clone", {"operand": t, "operand_dims": d}, {"result": t.type})


@recipe("flow.tensor.splat")
def _flow_splat(g: Gen) -> None:
    t = g.tensor_type()
    g.build("flow.tensor.splat", {"value": g.value(t.element), "result_dims": [g.index() for _ in range(t.dynamic_dims)]}, {"result": t})


@recipe("flow.tensor.empty")
def _flow_empty(g: Gen) -> None:
    t = g.tensor_type()
    g.build("flow.tensor.empty", {"result_dims": [g.index() for _ in range(t.dynamic_dims)]}, {"result": t})


@recipe("flow.tensor.slice")
def _flow_slice(g: Gen) -> None:
    src, sd = g.tensor()
    rank = src.type.rank  # type: ignore[attr-defined]
    out = TensorType(tuple(None if g.flag(0.3) else g.count(0, 4) for _ in range(rank)), src.type.element)  # type: ignore[attr-defined]
    g.build(
        "flow.tensor.slice",
        {"source": src, "source_dims": sd, "start_indices": [g.index() for _ in range(rank)], "lengths": [g.index() for _ in range(rank)],
         "result_dims": [g.index() for _ in range(out.dynamic_dims)]},
        {"result": out},
    )


@recipe("flow.tensor.update")
def _flow_update(g: Gen) -> None:
    target, td = g.tensor()
    update, ud = g.tensor()
    g.build(
        "flow.tensor.update",
        {"target": target, "target_dims": td, "start_indices": [g.index() for _ in range(target.type.rank)], "update": update, "update_dims": ud},  # type: ignore[attr-defined]
        {"result": target.type},
    )


@recipe("flow.tensor.load")
def _flow_load(g: Gen) -> None:
    src, sd = g.tensor()
    g.build("flow.tensor.load", {"source": src, "source_dims": sd, "indices": [g.index() for _ in range(src.type.rank)]}, {"result": src.type.element})  # type: ignore[attr-defined]


@recipe("flow.tensor.store")
def _flow_store(g: Gen) -> None:
    target, td = g.tensor()
    g.build(
        "flow.tensor.store",
        {"value": g.value(target.type.element), "target": target, "target_dims": td, "indices": [g.index() for _ in range(target.type.rank)]},  # type: ignore[attr-defined]
        {"result": target.type},
    )


# -- tensor level ------------------------------------------------------------------------------------
def _encoded(g: Gen) -> tuple[TensorType, list[Value]]:
    t = g.tensor_type()
    return t, [g.index() for _ in range(t.dynamic_dims)]


@recipe("stream.tensor.import")
def _tensor_import(g: Gen) -> None:
    enc, dims = _encoded(g)
    g.build(
        "stream.tensor.import",
        {"source": g.value(g.pick(OPAQUE_TYPES)), "result_encoding_dims": dims, "result_size": g.index()},
        {"result": g.draw(resource_types)},
        {"result_encoding": TypeAttr(enc), "consume": UnitAttr() if g.flag() else None, "affinity": g.affinity()},
    )


@recipe("stream.tensor.export")
def _tensor_export(g: Gen) -> None:
    enc, dims = _encoded(g)
    g.build(
        "stream.tensor.export",
        {"source": g.resource(), "source_encoding_dims": dims, "source_size": g.index()},
        {"result": g.pick(OPAQUE_TYPES)},
        {"source_encoding": TypeAttr(enc), "affinity": g.affinity()},
    )


@recipe("stream.tensor.sizeof")
def _tensor_sizeof(g: Gen) -> None:
    enc, dims = _encoded(g)
    g.build("stream.tensor.sizeof", {"encoding_dims": dims}, {}, {"encoding": TypeAttr(enc), "affinity": g.affinity()})


@recipe("stream.tensor.empty")
def _tensor_empty(g: Gen) -> None:
    enc, dims = _encoded(g)
    g.build(
        "stream.tensor.empty", {"result_encoding_dims": dims, "result_size": g.index()}, {"result": g.draw(resource_types)},
        {"result_encoding": TypeAttr(enc), "affinity": g.affinity()},
    )


@recipe("stream.tensor.constant")
def _tensor_constant(g: Gen) -> None:
    enc, dims = _encoded(g)
    g.build(
        "stream.tensor.constant", {"result_encoding_dims": dims}, {"result": g.draw(resource_types)},
        {"value": g.draw(dense_attrs()), "result_encoding": TypeAttr(enc), "affinity": g.affinity()},
    )


@recipe("stream.tensor.splat")
def _tensor_splat(g: Gen) -> None:
    enc, dims = _encoded(g)
    g.build(
        "stream.tensor.splat", {"value": g.value(g.scalar_type()), "result_encoding_dims": dims, "result_size": g.index()},
        {"result": g.draw(resource_types)}, {"result_encoding": TypeAttr(enc), "affinity": g.affinity()},
    )


@recipe("stream.tensor.clone")
def _tensor_clone(g: Gen) -> None:
    senc, sdims = _encoded(g)
    renc, rdims = _encoded(g)
    g.build(
        "stream.tensor.clone",
        {"source": g.resource(), "source_encoding_dims": sdims, "source_size": g.index(), "result_encoding_dims": rdims, "result_size": g.index()},
        {"result": g.draw(resource_types)},
        {"source_encoding": TypeAttr(senc), "result_encoding": TypeAttr(renc), "affinity": g.affinity()},
    )


@recipe("stream.tensor.slice")
def _tensor_slice(g: Gen) -> None:
    senc, sdims = _encoded(g)
    renc, rdims = _encoded(g)
    rank = senc.rank
    g.build(
        "stream.tensor.slice",
        {"source": g.resource(), "source_encoding_dims": sdims, "source_size": g.index(), "start_indices": [g.index() for _ in range(rank)],
         "lengths": [g.index() for _ in range(rank)], "result_encoding_dims": rdims, "result_size": g.index()},
        {"result": g.draw(resource_types)},
        {"source_encoding": TypeAttr(senc), "result_encoding": TypeAttr(renc), "affinity": g.affinity()},
    )


@recipe("stream.tensor.fill")
def _tensor_fill(g: Gen) -> None:
    enc, dims = _encoded(g)
    target = g.resource()
    n = enc.rank if g.flag() else 0
    g.build(
        "stream.tensor.fill",
        {"target": target, "target_encoding_dims": dims, "target_size": g.index(), "start_indices": [g.index() for _ in range(n)],
         "lengths": [g.index() for _ in range(n)], "value": g.value(g.scalar_type())},
        {"result": target.type}, {"target_encoding": TypeAttr(enc), "affinity": g.affinity()},
    )


@recipe("stream.tensor.update")
def _tensor_update(g: Gen) -> None:
    tenc, tdims = _encoded(g)
    uenc, udims = _encoded(g)
    target = g.resource()
    g.build(
        "stream.tensor.update",
        {"target": target, "target_encoding_dims": tdims, "target_size": g.index(), "start_indices": [g.index() for _ in range(tenc.rank)],
         "update": g.resource(), "update_encoding_dims": udims, "update_size": g.index()},
        {"result": target.type}, {"target_encoding": TypeAttr(tenc), "update_encoding": TypeAttr(uenc), "affinity": g.affinity()},
    )


@recipe("stream.tensor.load")
def _tensor_load(g: Gen) -> None:
    enc, dims = _encoded(g)
    g.build(
        "stream.tensor.load",
        {"source": g.resource(Lifetime.STAGING), "source_encoding_dims": dims, "source_size": g.index(), "indices": g.indices(0, enc.rank)},
        {"result": g.scalar_type()}, {"source_encoding": TypeAttr(enc)},
    )


@recipe("stream.tensor.store")
def _tensor_store(g: Gen) -> None:
    enc, dims = _encoded(g)
    target = g.resource(Lifetime.STAGING)
    g.build(
        "stream.tensor.store",
        {"target": target, "target_encoding_dims": dims, "target_size": g.index(), "indices": g.indices(0, enc.rank), "value": g.value(g.scalar_type())},
        {"result": target.type}, {"target_encoding": TypeAttr(enc)},
    )


@recipe("stream.tensor.dispatch")
def _tensor_dispatch(g: Gen) -> None:
    operands: list[Value] = []
    sizes: list[Value] = []
    encodings: list[Attribute] = []
    dims: list[Value] = []
    for _ in range(g.count(0, 3)):
        if g.flag(0.7):
            enc, d = _encoded(g)
            operands.append(g.resource())
            sizes.append(g.index())
            encodings.append(TypeAttr(enc))
            dims.extend(d)
        else:
            operands.append(g.value(g.pick((INDEX, I32))))
            encodings.append(TypeAttr(UNUSED_ENCODING))  # IREE's layout: one per operand
    n = g.count(0, 2)
    ties = draw_ties(g, operands, n, lambda v: isinstance(v.type, ResourceType))
    rtypes: list[Type] = []
    rsizes: list[Value] = []
    rencs: list[Attribute] = []
    rdims: list[Value] = []
    for tie in ties:
        enc, d = _encoded(g)
        rtypes.append(operands[tie].type if tie >= 0 and g.flag(0.7) else g.draw(resource_types))  # type: ignore[arg-type]
        rsizes.append(g.index())
        rencs.append(TypeAttr(enc))
        rdims.extend(d)
    g.build(
        "stream.tensor.dispatch",
        {"workload": g.indices(0, 2), "mixed_operands": operands, "operand_sizes": sizes, "operand_encoding_dims": dims,
         "result_sizes": rsizes, "result_encoding_dims": rdims},
        {"results": rtypes},
        {"entry_points": entry_points(g), "operand_encodings": ArrayAttr(tuple(encodings)), "result_encodings": ArrayAttr(tuple(rencs)),
         "tied_operands": ties, "affinity": g.affinity()},
    )


# -- async level -------------------------------------------------------------------------------------
@recipe("stream.async.alloca")
def _async_alloca(g: Gen) -> None:
    g.build("stream.async.alloca", {"storage_size": g.index()}, {"result": g.draw(resource_types)}, {"affinity": g.affinity()})


@recipe("stream.async.constant")
def _async_constant(g: Gen) -> None:
    g.build("stream.async.constant", {"result_size": g.index()}, {"result": g.draw(resource_types)}, {"value": g.draw(dense_attrs()), "affinity": g.affinity()})


@recipe("stream.async.splat")
def _async_splat(g: Gen) -> None:
    g.build("stream.async.splat", {"value": g.value(g.pick((I8, I16, I32, I64))), "result_size": g.index()}, {"result": g.draw(resource_types)}, {"affinity": g.affinity()})


@recipe("stream.async.clone", "stream.async.transfer", "stream.async.cast")
def _async_unary(g: Gen, name: str) -> None:  # type: ignore[misc]
    attrs: dict[str, Attribute | None] = {"execution_affinity" if name.endswith("transfer") else "affinity": g.affinity()}
    if name.endswith("transfer"):
        attrs["source_affinity"] = g.affinity()
        attrs["target_affinity"] = g.affinity()
    g.build(name, {"source": g.resource(), "source_size": g.index(), "result_size": g.index()}, {"result": g.draw(resource_types)}, attrs)


@recipe("stream.async.slice")
def _async_slice(g: Gen) -> None:
    src = g.resource()
    g.build(
        "stream.async.slice",
        {"source": src, "source_size": g.index(), "source_offset": g.index(), "source_end": g.index(), "result_size": g.index()},
        {"result": src.type}, {"affinity": g.affinity()},
    )


@recipe("stream.async.fill")
def _async_fill(g: Gen) -> None:
    t = g.resource()
    g.build(
        "stream.async.fill",
        {"target": t, "target_size": g.index(), "target_offset": g.index(), "target_end": g.index(), "target_length": g.index(), "value": g.value(g.pick((I8, I32)))},
        {"result": t.type}, {"affinity": g.affinity()},
    )


@recipe("stream.async.update")
def _async_update(g: Gen) -> None:
    t = g.resource()
    g.build(
        "stream.async.update",
        {"target": t, "target_size": g.index(), "target_offset": g.index(), "target_end": g.index(), "update": g.resource(), "update_size": g.index()},
        {"result": t.type}, {"affinity": g.affinity()},
    )


@recipe("stream.async.copy")
def _async_copy(g: Gen) -> None:
    t = g.resource()
    g.build(
        "stream.async.copy",
        {"target": t, "target_size": g.index(), "target_offset": g.index(), "target_end": g.index(), "source": g.resource(),
         "source_size": g.index(), "source_offset": g.index(), "source_end": g.index(), "length": g.index()},
        {"result": t.type}, {"affinity": g.affinity()},
    )


@recipe("stream.async.barrier")
def _async_barrier(g: Gen) -> None:
    s = g.resource()
    g.build("stream.async.barrier", {"source": s, "size": g.index()}, {"result": s.type}, {"affinity": g.affinity()})


@recipe("stream.async.load")
def _async_load(g: Gen) -> None:
    g.build("stream.async.load", {"source": g.resource(Lifetime.STAGING), "source_size": g.index(), "source_offset": g.index()}, {"result": g.scalar_type()})


@recipe("stream.async.store")
def _async_store(g: Gen) -> None:
    t = g.resource(Lifetime.STAGING)
    g.build("stream.async.store", {"target": t, "target_size": g.index(), "target_offset": g.index(), "value": g.value(g.scalar_type())}, {"result": t.type})


@recipe("stream.async.dispatch")
def _async_dispatch(g: Gen) -> None:
    operands: list[Value] = []
    ranges: dict[str, list[Value]] = {k: [] for k in ("resource_operand_sizes", "resource_operand_offsets", "resource_operand_ends", "resource_operand_lengths")}
    for _ in range(g.count(0, 3)):
        if g.flag(0.7):
            operands.append(g.resource())
            for group in ranges.values():
                group.append(g.index())
        else:
            operands.append(g.value(g.pick((INDEX, I32, F32))))
    n = g.count(0, 2)
    ties = draw_ties(g, operands, n, lambda v: isinstance(v.type, ResourceType))
    rtypes = [operands[t].type if t >= 0 else g.draw(resource_types) for t in ties]
    g.build(
        "stream.async.dispatch",
        {"workload": g.indices(0, 2), "resource_operands": operands, **ranges, "result_sizes": [g.index() for _ in ties]},
        {"results": rtypes}, {"entry_points": entry_points(g), "tied_operands": ties, "affinity": g.affinity()},
    )


def captures(g: Gen) -> tuple[list[Value], list[Value]]:
    operands = [g.resource() for _ in range(g.count(0, 3))]
    return operands, [g.index() for _ in operands]


def _yield(g: Gen, types: list[Type]) -> None:
    values = [g.value(t) for t in types]
    g.build("stream.yield", {"resource_operands": values, "resource_operand_sizes": [g.index() for _ in values]}, discardable={})


@recipe("stream.async.execute", "stream.async.concurrent", region=True)
def _async_region(g: Gen, name: str) -> None:  # type: ignore[misc]
    operands, sizes = captures(g)
    n = g.count(0, 2)
    ties = draw_ties(g, operands, n, lambda v: True)
    rtypes = [operands[t].type if t >= 0 else g.draw(resource_types) for t in ties]

    def fill(args: list[Value]) -> None:
        g.random_ops(async_body())
        _yield(g, rtypes)

    body = g.region([v.type for v in operands], fill)
    groups = {"resource_operands": operands, "resource_operand_sizes": sizes, "result_sizes": [g.index() for _ in ties]}
    results: dict[str, object] = {"results": rtypes}
    if name.endswith("execute"):
        groups["await_timepoint"] = [g.timepoint()] if g.flag() else []
        results["result_timepoint"] = TIMEPOINT
    g.build(name, groups, results, {"tied_operands": ties, "affinity": g.affinity()}, (body,))  # type: ignore[arg-type]


# -- timepoints -----------------------------------------------------------------------------------------
@recipe("stream.timepoint.immediate")
def _tp_immediate(g: Gen) -> None:
    g.build("stream.timepoint.immediate")


@recipe("stream.timepoint.join")
def _tp_join(g: Gen) -> None:
    g.build("stream.timepoint.join", {"await_timepoints": [g.timepoint() for _ in range(g.count(1, 3))]})


@recipe("stream.timepoint.import")
def _tp_import(g: Gen) -> None:
    g.build("stream.timepoint.import", {"operands": [g.value(g.pick(OPAQUE_TYPES + (INDEX,))) for _ in range(g.count(1, 2))]}, {}, {"affinity": g.affinity()})


@recipe("stream.timepoint.export")
def _tp_export(g: Gen) -> None:
    g.build("stream.timepoint.export", {"await_timepoint": g.timepoint()}, {"results": [g.pick(OPAQUE_TYPES + (INDEX,)) for _ in range(g.count(1, 2))]}, {"affinity": g.affinity()})


@recipe("stream.timepoint.chain_external")
def _tp_chain(g: Gen) -> None:
    g.build("stream.timepoint.chain_external", {"await_timepoint": g.timepoint(), "external_values": [g.value(g.pick(OPAQUE_TYPES)) for _ in range(g.count(1, 2))]}, {}, {"affinity": g.affinity()})


@recipe("stream.timepoint.barrier")
def _tp_barrier(g: Gen) -> None:
    r = g.resource()
    g.build("stream.timepoint.barrier", {"resource": r, "resource_size": g.index()}, {"result": r.type}, {"affinity": g.affinity()})


@recipe("stream.timepoint.await")
def _tp_await(g: Gen) -> None:
    rs = [g.resource() for _ in range(g.count(1, 3))]
    g.build(
        "stream.timepoint.await",
        {"resource_operands": rs, "resource_operand_sizes": [g.index() for _ in rs], "await_timepoint": g.timepoint()},
        {"results": [r.type for r in rs]}, {"sync": UnitAttr() if g.flag(0.2) else None},
    )

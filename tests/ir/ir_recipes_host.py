"""Recipes for the util/hal/cf host ops around Stream IR and the host buffer/file ops
(`stream/dialect/util_hal.py`, `stream.resource.try_map`, `stream.file.*`), one per op."""

from __future__ import annotations

from ir_gen import Gen, recipe, symbols

from stream.ir.attributes import ArrayAttr, Attribute, IntegerAttr, OpaqueAttr, StringAttr, SymbolRefAttr, UnitAttr
from stream.ir.types import F32, I1, I32, I64, INDEX, Lifetime, OpaqueType, ResourceType

FENCE = OpaqueType("!hal.fence")
DEVICE = OpaqueType("!hal.device")
BUFFER = OpaqueType("!util.buffer")
FILE = OpaqueType("!stream.file")
_ASSUMPTIONS = ("<umin = 0, umax = 1024>", "<udiv = 64>", "<umin = 64, umax = 64, udiv = 64>", "<umin = 0, umax = 0>")


@recipe("util.null")
def _null(g: Gen) -> None:
    g.build("util.null", {}, {"result": g.pick((FENCE, BUFFER, OpaqueType("!hal.buffer_view")))})


@recipe("util.global.load")
def _global_load(g: Gen) -> None:
    attrs: dict[str, Attribute | None] = {"global": SymbolRefAttr(g.draw(symbols)), "is_immutable": UnitAttr() if g.flag() else None}  # type: ignore[arg-type]
    g.build("util.global.load", {}, {"result": g.pick((ResourceType(Lifetime.CONSTANT), INDEX, FENCE))}, attrs)


@recipe("util.global.store")
def _global_store(g: Gen) -> None:
    g.build("util.global.store", {"value": g.value(g.pick((ResourceType(Lifetime.VARIABLE), INDEX)))}, {}, {"global": SymbolRefAttr(g.draw(symbols))})  # type: ignore[arg-type]


@recipe("util.align")
def _align(g: Gen) -> None:
    t = g.pick((INDEX, I64))
    g.build("util.align", {"value": g.value(t), "alignment": g.value(t)}, {"result": t})


@recipe("util.assume.int")
def _assume_int(g: Gen) -> None:
    values = [g.value(g.pick((INDEX, I32))) for _ in range(g.count(1, 3))]
    lists = ArrayAttr(tuple(
        ArrayAttr(tuple(OpaqueAttr("#util.int.assumption" + g.pick(_ASSUMPTIONS)) for _ in range(g.count(1, 3)))) for _ in values
    ))
    g.build("util.assume.int", {"operands": values}, {"results": [v.type for v in values]}, {"assumptions": lists})


@recipe("cf.assert")
def _assert(g: Gen) -> None:
    g.build("cf.assert", {"arg": g.value(I1)}, {}, {"msg": StringAttr(g.pick(("Expected dim size > 0.", "ok", "a \"quoted\" message")))})


@recipe("arith.cmpi", "arith.cmpf")
def _compare(g: Gen, name: str) -> None:  # type: ignore[misc]
    t = F32 if name == "arith.cmpf" else g.pick((INDEX, I64, I32))
    attrs: dict[str, Attribute | None] = {"predicate": IntegerAttr(g.count(0, 15 if name == "arith.cmpf" else 9), I64)}
    if name == "arith.cmpf" and g.flag(0.3):
        attrs["fastmath"] = OpaqueAttr("#arith.fastmath<fast>")
    g.build(name, {"lhs": g.value(t), "rhs": g.value(t)}, {"result": I1}, attrs)


@recipe("hal.buffer_view.dim")
def _dim(g: Gen) -> None:
    g.build("hal.buffer_view.dim", {"buffer_view": g.value(OpaqueType("!hal.buffer_view"))}, {}, {"index": IntegerAttr(g.count(0, 3), INDEX)})


@recipe("hal.devices.get", "hal.devices.count")
def _devices(g: Gen, name: str) -> None:  # type: ignore[misc]
    g.build(name, {"index": g.index()} if name == "hal.devices.get" else {})


def _flags(g: Gen) -> dict[str, Attribute | None]:
    return {"flags": IntegerAttr(g.count(0, 1), I64)}


@recipe("hal.fence.create")
def _fence_create(g: Gen) -> None:
    g.build("hal.fence.create", {"device": g.value(DEVICE)}, {}, _flags(g))


@recipe("hal.fence.join")
def _fence_join(g: Gen) -> None:
    g.build("hal.fence.join", {"fences": [g.value(FENCE) for _ in range(g.count(1, 3))]}, {}, _flags(g))


@recipe("hal.fence.await")
def _fence_await(g: Gen) -> None:
    g.build("hal.fence.await", {"timeout_millis": g.value(I32), "fences": [g.value(FENCE) for _ in range(g.count(1, 3))]}, {}, _flags(g))


@recipe("hal.fence.signal", "hal.fence.query", "hal.fence.fail")
def _fence_status(g: Gen, name: str) -> None:  # type: ignore[misc]
    operands = {"fence": g.value(FENCE)}
    if name == "hal.fence.fail":
        operands["status"] = g.value(I32)
    g.build(name, operands)


@recipe("stream.resource.try_map")
def _try_map(g: Gen) -> None:
    g.build("stream.resource.try_map", {"source": g.value(BUFFER), "source_offset": g.index(), "result_size": g.index()},
            {"result": ResourceType(g.pick((Lifetime.CONSTANT, Lifetime.EXTERNAL)))}, {"affinity": g.affinity()})


@recipe("stream.file.constant")
def _file_constant(g: Gen) -> None:
    g.build("stream.file.constant", {"source": g.value(BUFFER), "source_size": g.index(), "source_offset": g.index(), "source_length": g.index()},
            {}, {"affinity": g.affinity()})


@recipe("stream.file.read", "stream.file.write")
def _file_io(g: Gen, name: str) -> None:  # type: ignore[misc]
    resource = g.resource()
    operands = {"source": resource, "source_size": g.index(), "source_offset": g.index(), "target": g.value(FILE), "target_offset": g.value(I64)}
    if name == "stream.file.read":
        operands = {"source": g.value(FILE), "source_offset": g.value(I64), "target": resource, "target_size": g.index(), "target_offset": g.index()}
    operands["length"] = g.index()
    operands["await_timepoint"] = g.timepoint() if g.flag() else None  # type: ignore[assignment]
    g.build(name, operands, {}, {"affinity": g.affinity()})

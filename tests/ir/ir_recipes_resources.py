"""Recipes for `stream.cmd.*`, `stream.resource.*`, arith, hal, calls and unregistered ops, one
per op, registered in `ir_gen.RECIPES`.
"""

from __future__ import annotations

from hypothesis import strategies as st
from ir_gen import (
    FLOAT_TYPES,
    SCALARS,
    Gen,
    any_text,
    attributes,
    dense_attrs,
    entry_points,
    float_value,
    identifiers,
    int_attr,
    multi_block_region,
    opaque_attrs,
    recipe,
    resource_types,
    symbols,
    types,
)
from ir_recipes_values import captures

from stream.ir.attributes import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseArrayAttr,
    FloatAttr,
    IntegerAttr,
    OpaqueAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from stream.ir.core import Op, Region, Value, freeze
from stream.ir.spec import spec_of
from stream.ir.types import (
    BF16,
    COMPLEX64,
    COMPLEX128,
    F16,
    F32,
    F64,
    I1,
    I8,
    I16,
    I32,
    I64,
    INDEX,
    FloatType,
    Lifetime,
    OpaqueType,
    ResourceType,
)

CMD_BODY = ("stream.cmd.fill", "stream.cmd.flush", "stream.cmd.invalidate", "stream.cmd.discard", "stream.cmd.copy", "stream.cmd.dispatch",
            "stream.cmd.serial", "stream.cmd.concurrent", "arith.addi")


# -- cmd level ------------------------------------------------------------------------------------------
def _range(g: Gen, prefix: str, resources: list[Value]) -> dict[str, object]:
    r = g.pick(resources) if resources and g.flag(0.8) else g.resource()
    return {prefix: r, f"{prefix}_size": g.index(), f"{prefix}_offset": g.index()}


@recipe("stream.cmd.fill", "stream.cmd.flush", "stream.cmd.invalidate", "stream.cmd.discard")
def _cmd_range(g: Gen, name: str) -> None:  # type: ignore[misc]
    groups = {**_range(g, "target", g.visible_resources()), "target_length": g.index()}
    attrs: dict[str, Attribute | None] = {}
    if name.endswith("fill"):
        groups["value"] = g.value(g.pick((I8, I16, I32)))
    elif not name.endswith("discard"):
        attrs["source_affinity"] = g.affinity()
    g.build(name, groups, {}, attrs)


@recipe("stream.cmd.copy")
def _cmd_copy(g: Gen) -> None:
    res = g.visible_resources()
    g.build("stream.cmd.copy", {**_range(g, "source", res), **_range(g, "target", res), "length": g.index()})


@recipe("stream.cmd.dispatch")
def _cmd_dispatch(g: Gen) -> None:
    res = g.visible_resources()
    bindings = [g.pick(res) if res and g.flag(0.8) else g.resource() for _ in range(g.count(0, 3))]
    g.build(
        "stream.cmd.dispatch",
        {"workload": g.indices(0, 2), "uniform_operands": [g.value(g.pick((INDEX, I32, F32))) for _ in range(g.count(0, 2))],
         "resources": bindings, "resource_sizes": [g.index() for _ in bindings], "resource_offsets": [g.index() for _ in bindings],
         "resource_lengths": [g.index() for _ in bindings]},
        {}, {"entry_points": entry_points(g), "resource_accesses": ArrayAttr(tuple(IntegerAttr(g.pick((1, 2, 3)), I32) for _ in bindings))},
    )


@recipe("stream.cmd.serial", "stream.cmd.concurrent", region=True)
def _cmd_nested(g: Gen, name: str) -> None:  # type: ignore[misc]
    def fill(args: list[Value]) -> None:
        g.random_ops(CMD_BODY, hi=3)
        g.build("stream.yield", discardable={})

    g.build(name, regions=(g.region([], fill),))


@recipe("stream.cmd.execute", region=True)
def _cmd_execute(g: Gen) -> None:
    operands, sizes = captures(g)

    def fill(args: list[Value]) -> None:
        g.random_ops(CMD_BODY, hi=3)
        g.build("stream.yield", discardable={})

    body = g.region([v.type for v in operands], fill)
    g.build(
        "stream.cmd.execute",
        {"resource_operands": operands, "resource_operand_sizes": sizes, "await_timepoint": [g.timepoint()] if g.flag() else []},
        {}, {"once": UnitAttr() if g.flag(0.2) else None, "affinity": g.affinity()}, (body,),
    )


# -- resources ----------------------------------------------------------------------------------------
@recipe("stream.resource.alloc")
def _res_alloc(g: Gen) -> None:
    g.build("stream.resource.alloc", {"storage_size": g.index()}, {"result": g.draw(resource_types)}, {"uninitialized": UnitAttr() if g.flag() else None, "affinity": g.affinity()})


@recipe("stream.resource.alloca")
def _res_alloca(g: Gen) -> None:
    g.build(
        "stream.resource.alloca", {"storage_size": g.index(), "await_timepoint": [g.timepoint()] if g.flag() else []},
        {"result": g.draw(resource_types)}, {"indeterminate_lifetime": UnitAttr() if g.flag(0.3) else None, "affinity": g.affinity()},
    )


@recipe("stream.resource.dealloca")
def _res_dealloca(g: Gen) -> None:
    g.build(
        "stream.resource.dealloca", {"operand": g.resource(), "operand_size": g.index(), "await_timepoint": [g.timepoint()] if g.flag() else []},
        {}, {"prefer_origin": UnitAttr() if g.flag(0.3) else None, "affinity": g.affinity()},
    )


@recipe("stream.resource.retain", "stream.resource.release", "stream.resource.is_terminal")
def _res_ownership(g: Gen, name: str) -> None:  # type: ignore[misc]
    g.build(name, {"operand": g.resource(), "operand_size": g.index()})


@recipe("stream.resource.size")
def _res_size(g: Gen) -> None:
    g.build("stream.resource.size", {"operand": g.resource()}, {}, {"affinity": g.affinity()})


@recipe("stream.resource.load")
def _res_load(g: Gen) -> None:
    g.build("stream.resource.load", {"source": g.resource(Lifetime.STAGING), "source_size": g.index(), "source_offset": g.index()}, {"result": g.scalar_type()})


@recipe("stream.resource.store")
def _res_store(g: Gen) -> None:
    g.build("stream.resource.store", {"target": g.resource(Lifetime.STAGING), "target_size": g.index(), "target_offset": g.index(), "value": g.value(g.scalar_type())})


@recipe("stream.resource.subview")
def _res_subview(g: Gen) -> None:
    s = g.resource()
    g.build("stream.resource.subview", {"source": s, "source_size": g.index(), "source_offset": g.index(), "result_size": g.index()}, {"result": s.type})


@recipe("stream.resource.pack")
def _res_pack(g: Gen) -> None:
    n = g.count(0, 3)
    bounds: list[Attribute] = []
    for _ in range(n):
        a = g.count(0, 5)
        bounds += [IntegerAttr(a, INDEX), IntegerAttr(a + g.count(0, 3), INDEX)]
    g.build(
        "stream.resource.pack", {"offset": [g.index()] if g.flag(0.3) else [], "dynamic_slice_sizes": [g.index() for _ in range(n)]},
        {"packed_offsets": [INDEX] * n}, {"lifetime_intervals": ArrayAttr(tuple(bounds)), "affinity": g.affinity()},
    )


@recipe("stream.resource.constants")
def _res_constants(g: Gen) -> None:
    n = g.count(1, 3)
    g.build(
        "stream.resource.constants", {"result_sizes": [g.index() for _ in range(n)]},
        {"results": [ResourceType(g.pick((Lifetime.CONSTANT, Lifetime.VARIABLE))) for _ in range(n)]},
        {"values": ArrayAttr(tuple(g.draw(dense_attrs()) for _ in range(n))), "affinity": g.affinity()},  # type: ignore[misc]
    )


# -- arith and hal ------------------------------------------------------------------------------------
@recipe("arith.constant")
def _arith_constant(g: Gen) -> None:
    t = g.pick(SCALARS)
    if isinstance(t, FloatType):
        value: Attribute = FloatAttr(g.draw(float_value(t)), t)  # type: ignore[arg-type]
    elif g.flag(0.1):
        value = g.draw(dense_attrs())  # type: ignore[assignment]
    else:
        value = g.draw(int_attr(t))  # type: ignore[assignment]
    g.build("arith.constant", {}, {"result": value.type if not isinstance(value, BoolAttr) else I1}, {"value": value})  # type: ignore[attr-defined]


_INT_BINARY = ("addi", "subi", "muli", "divui", "divsi", "ceildivui", "ceildivsi", "floordivsi", "remui", "remsi", "andi", "ori", "xori",
               "shli", "shrui", "shrsi", "maxui", "maxsi", "minui", "minsi")
_FLOAT_BINARY = ("addf", "subf", "mulf", "divf", "maximumf", "minimumf", "maxnumf", "minnumf")


@recipe(*(f"arith.{n}" for n in _INT_BINARY + _FLOAT_BINARY))
def _arith_binary(g: Gen, name: str) -> None:  # type: ignore[misc]
    floating = name[len("arith."):] in _FLOAT_BINARY
    t = g.pick(FLOAT_TYPES if floating else (INDEX, I32, I64, I8))
    attrs: dict[str, Attribute | None] = {}
    if name in ("arith.addi", "arith.subi", "arith.muli", "arith.shli") and g.flag(0.3):
        attrs["overflowFlags"] = OpaqueAttr(g.pick(("#arith.overflow<nsw>", "#arith.overflow<nuw>", "#arith.overflow<nsw, nuw>")))
    if floating and g.flag(0.3):
        attrs["fastmath"] = OpaqueAttr(g.pick(("#arith.fastmath<fast>", "#arith.fastmath<nnan,ninf>")))
    g.build(name, {"lhs": g.value(t), "rhs": g.value(t)}, {"result": t}, attrs)


_CASTS = {
    "index_cast": ((INDEX, I32), (I64, INDEX)), "index_castui": ((I32, INDEX),), "extui": ((I1, I32), (I8, I64)), "extsi": ((I8, I32),),
    "trunci": ((I64, I8),), "bitcast": ((I32, F32), (F64, I64)), "sitofp": ((I32, F32),), "uitofp": ((I8, F16),), "fptosi": ((F32, I32),),
    "fptoui": ((F64, I8),), "extf": ((F16, F32), (BF16, F64)), "truncf": ((F64, F32), (F32, BF16)),
}


@recipe(*(f"arith.{n}" for n in _CASTS))
def _arith_cast(g: Gen, name: str) -> None:  # type: ignore[misc]
    src, dst = g.pick(_CASTS[name[len("arith."):]])
    g.build(name, {"in": g.value(src)}, {"out": dst})


@recipe("complex.constant")
def _complex_constant(g: Gen) -> None:
    t = g.pick((COMPLEX64, COMPLEX128))
    parts = ArrayAttr((FloatAttr(g.pick((0.0, 1.5, -3.0)), t.element), FloatAttr(g.pick((2.0, -0.25)), t.element)))  # type: ignore[arg-type]
    g.build("complex.constant", {}, {"complex": t}, {"value": parts})


@recipe("complex.bitcast")
def _complex_bitcast(g: Gen) -> None:
    src, dst = g.pick(((COMPLEX64, I64), (I64, COMPLEX64)))
    g.build("complex.bitcast", {"operand": g.value(src)}, {"result": dst})


@recipe("complex.create")
def _complex_create(g: Gen) -> None:
    t = g.pick((COMPLEX64, COMPLEX128))
    g.build("complex.create", {"real": g.value(t.element), "imaginary": g.value(t.element)}, {"complex": t})


@recipe("arith.select")
def _arith_select(g: Gen) -> None:
    t = g.pick((INDEX, F32, OpaqueType("!hal.buffer_view")))
    g.build("arith.select", {"condition": g.value(I1), "true_value": g.value(t), "false_value": g.value(t)}, {"result": t})


@recipe("hal.element_type")
def _hal_element_type(g: Gen) -> None:
    g.build("hal.element_type", attrs={"type": TypeAttr(g.scalar_type())})


@recipe("hal.encoding_type")
def _hal_encoding_type(g: Gen) -> None:
    g.build("hal.encoding_type", attrs={"encoding": g.draw(opaque_attrs()) if g.flag(0.3) else None})


@recipe("hal.buffer_view.assert")
def _hal_assert(g: Gen) -> None:
    g.build(
        "hal.buffer_view.assert",
        {"buffer_view": g.value(OpaqueType("!hal.buffer_view")), "element_type": g.value(I32), "encoding_type": g.value(I32), "shape": g.indices(0, 3)},
        {}, {"message": StringAttr(g.draw(any_text))},  # type: ignore[arg-type]
    )


# -- host ops and unregistered ops ----------------------------------------------------------------------
@recipe("func.call", "util.call")
def _call(g: Gen, name: str) -> None:  # type: ignore[misc]
    operands = [g.value(g.draw(types())) for _ in range(g.count(0, 3))]  # type: ignore[arg-type]
    g.build(name, {"operands": operands}, {"results": [g.draw(types()) for _ in range(g.count(0, 2))]}, {"callee": SymbolRefAttr(g.draw(symbols))})  # type: ignore[arg-type]


@recipe("util.optimization_barrier")
def _optimization_barrier(g: Gen) -> None:
    # At least one value: with none, the pretty form (IREE's too) would read the next op's results.
    values = [g.value(g.draw(types())) for _ in range(g.count(1, 3))]  # type: ignore[arg-type]
    g.build("util.optimization_barrier", {"operands": values}, {"results": [v.type for v in values]})


@recipe("test.unregistered", region=True)
def _unregistered(g: Gen) -> None:
    name = g.draw(st.one_of(st.builds(lambda a, b: f"{a}.{b}", identifiers, identifiers), any_text.filter(lambda s: s and spec_of(s) is None)))
    if spec_of(name) is not None or name == "streamproof.verbatim":  # type: ignore[arg-type]
        return
    visible = g.visible()
    operands = [g.pick(visible) for _ in range(g.count(0, 3))] if visible else []
    results = tuple(g.fresh(g.draw(types())) for _ in range(g.count(0, 3)))  # type: ignore[arg-type]
    regions: list[Region] = []
    if g.depth < g.max_depth:
        for _ in range(g.count(0, 2)):
            regions.append(multi_block_region(g))
    props = g.draw(st.dictionaries(identifiers, attributes(1), max_size=2))
    g.emit(g.name_results(Op(name, tuple(operands), results, freeze(props), freeze(g.discardable()), tuple(regions))))  # type: ignore[arg-type]


# -- host control flow (stream.dialect.scf_cf) ---------------------------------------------------------
def _carried(g: Gen) -> list:  # type: ignore[type-arg]
    return [g.draw(types()) for _ in range(g.count(0, 2))]


def _yield_of(g: Gen, carried: list) -> None:  # type: ignore[type-arg]
    g.build("scf.yield", {"results": [g.value(t) for t in carried]})


@recipe("scf.for", region=True)
def _scf_for(g: Gen) -> None:
    carried = _carried(g)
    iv = INDEX if g.flag(0.8) else I32
    bounds = {"lowerBound": g.value(iv), "upperBound": g.value(iv), "step": g.value(iv), "initArgs": [g.value(t) for t in carried]}

    def fill(args: list[Value]) -> None:
        g.random_ops(hi=2)
        _yield_of(g, carried)

    body = g.region([iv, *carried], fill)
    g.build("scf.for", bounds, {"results": carried}, {"unsignedCmp": UnitAttr() if g.flag(0.2) else None}, (body,))


@recipe("scf.if", region=True)
def _scf_if(g: Gen) -> None:
    carried = _carried(g)
    cond = g.value(I1)

    def fill(args: list[Value]) -> None:
        g.random_ops(hi=2)
        _yield_of(g, carried)

    then = g.region([], fill)
    other = g.region([], fill) if carried or g.flag() else Region(())
    g.build("scf.if", {"condition": cond}, {"results": carried}, {}, (then, other))


@recipe("scf.while", region=True)
def _scf_while(g: Gen) -> None:
    carried = _carried(g)
    inits = [g.value(t) for t in carried]

    def before(args: list[Value]) -> None:
        g.random_ops(hi=2)
        g.build("scf.condition", {"condition": g.value(I1), "args": [g.value(t) for t in carried]})

    def after(args: list[Value]) -> None:
        g.random_ops(hi=2)
        _yield_of(g, carried)

    regions = (g.region(list(carried), before), g.region(list(carried), after))
    g.build("scf.while", {"inits": inits}, {"results": carried}, {}, regions)


@recipe("scf.execute_region", region=True)
def _scf_execute_region(g: Gen) -> None:
    carried = _carried(g)

    def fill(args: list[Value]) -> None:
        g.random_ops(hi=2)
        _yield_of(g, carried)

    g.build("scf.execute_region", {}, {"results": carried}, {"no_inline": UnitAttr() if g.flag(0.2) else None}, (g.region([], fill),))


@recipe("scf.index_switch", region=True)
def _scf_index_switch(g: Gen) -> None:
    carried = _carried(g)
    cases = sorted({g.draw(st.integers(-3, 9)) for _ in range(g.count(0, 3))})

    def fill(args: list[Value]) -> None:
        g.random_ops(hi=2)
        _yield_of(g, carried)

    regions = tuple(g.region([], fill) for _ in range(1 + len(cases)))
    g.build("scf.index_switch", {"arg": g.index()}, {"results": carried}, {"cases": DenseArrayAttr(I64, tuple(cases))}, regions)

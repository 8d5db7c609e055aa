"""Hypothesis strategies for random, well-formed modules built from the op tables.

`modules()` draws a module of random functions whose bodies are random ops of every family
(flow, stream tensor/async/timepoint/cmd/resource, arith, hal, util/func) plus unregistered ops
with random names, properties, attributes, nested regions, multiple blocks and successors;
top-level globals, initializers, executables, declarations, aliases and location trailers; and
random value names. Ops are built with `OpSpec.build` from named operand groups, by one recipe
per op (`RECIPES`), so every op is well formed by construction: sizes follow resources, dims
follow dynamic tensor dims, ties name an operand of the right kind. A value of a needed type
that does not exist yet is made by an unregistered `"test.make"` op.

One ambiguity of IREE's syntax is avoided on purpose: a tied result is spelled by its operand's
name, so a result is only tied to the first occurrence of a value in the operand list.
"""

from __future__ import annotations

import ir_recipes_host  # noqa: F401 (registers its recipes)
import ir_recipes_parameters  # noqa: F401 (registers its recipes)
import ir_recipes_resources  # noqa: F401 (registers its recipes)
import ir_recipes_values  # noqa: F401 (registers its recipes)
from hypothesis import strategies as st
from ir_gen import (
    RECIPES,
    Draw,
    Gen,
    Scope,
    attributes,
    dense_attrs,
    identifiers,
    symbols,
    types,
)

from stream.ir.attributes import (
    AffinityAttr,
    ArrayAttr,
    Attribute,
    DictAttr,
    ImmediateTimepointAttr,
    IntegerAttr,
    OpaqueAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from stream.ir.core import Alias, Module, Op, Region, Value, freeze
from stream.ir.spec import spec_of
from stream.ir.types import (
    I64,
    INDEX,
    TIMEPOINT,
    FunctionType,
    Lifetime,
    OpaqueType,
    ResourceType,
    Type,
)

__all__ = ["modules", "RECIPES", "attributes", "types"]


def _family(*prefixes: str) -> tuple[str, ...]:
    return tuple(sorted(n for n in RECIPES if n.startswith(prefixes)))


FAMILIES: dict[str, tuple[str, ...]] = {
    "flow": _family("flow."),
    "tensor": _family("stream.tensor."),
    "async": _family("stream.async."),
    "timepoint": _family("stream.timepoint."),
    "cmd": _family("stream.cmd."),
    "resource": _family("stream.resource.", "stream.file."),
    "arith_hal": _family("arith.", "hal.", "complex."),
    "host": _family("func.", "util.", "test.", "cf.", "scf."),
}
assert sorted(n for f in FAMILIES.values() for n in f) == sorted(RECIPES)


# -- top level ---------------------------------------------------------------------------------------------
def _function(g: Gen) -> Op:
    name = g.pick(("func.func", "util.func"))
    arg_types = [g.draw(types()) for _ in range(g.count(0, 4))]
    result_types = [g.draw(types()) for _ in range(g.count(0, 2))]
    declaration = name == "func.func" and g.flag(0.1)

    def fill(args: list[Value]) -> None:
        g.random_ops(hi=8)
        g.build("func.return" if name == "func.func" else "util.return", {"operands": [g.value(t) for t in result_types]}, discardable={})  # type: ignore[arg-type]

    props: dict[str, Attribute | None] = {
        "sym_name": StringAttr(g.draw(symbols)),  # type: ignore[arg-type]
        "function_type": TypeAttr(FunctionType(tuple(arg_types), tuple(result_types))),  # type: ignore[arg-type]
        "sym_visibility": StringAttr(g.pick(("public", "private", "nested"))) if g.flag(0.3) else None,
    }
    if name == "util.func" and result_types:  # IREE's parser stores a tie (or -1) per result
        ties = []
        for t in result_types:
            same = [i for i, a in enumerate(arg_types) if a == t]
            ties.append(g.pick(same) if same and g.flag(0.3) else -1)
        props["tied_operands"] = ArrayAttr(tuple(IntegerAttr(x, INDEX) for x in ties))  # type: ignore[arg-type]
    if g.flag(0.3) and arg_types:
        props["arg_attrs"] = ArrayAttr(tuple(DictAttr.of(g.draw(st.dictionaries(identifiers, attributes(0), max_size=2))) for _ in arg_types))  # type: ignore[arg-type]
        if not any(d.entries for d in props["arg_attrs"].elements):  # type: ignore[union-attr, attr-defined]
            props["arg_attrs"] = None
    if g.flag(0.2) and result_types:
        props["res_attrs"] = ArrayAttr(tuple(DictAttr.of({"iree.abi.result": UnitAttr()}) for _ in result_types))
    region = Region(()) if declaration else g.region(arg_types, fill, isolated=True)  # type: ignore[arg-type]
    spec = spec_of(name)
    assert spec is not None
    return spec.build({}, {}, props, (region,), g.discardable())


def _global(g: Gen) -> Op:
    choice = g.count(0, 3)
    init: Attribute | None
    if choice == 0:
        t: Type = g.draw(types())  # type: ignore[assignment]
        init = None
    elif choice == 1:
        t, init = TIMEPOINT, ImmediateTimepointAttr()
    elif choice == 2:
        init = g.draw(dense_attrs())  # type: ignore[assignment]
        t = init.type  # type: ignore[union-attr]
    else:
        t, init = INDEX, IntegerAttr(g.count(0, 99), g.pick((INDEX, I64)))
        t = init.type
    spec = spec_of("util.global")
    assert spec is not None
    return spec.build(attrs={
        "sym_name": StringAttr(g.draw(symbols)), "type": TypeAttr(t), "initial_value": init,  # type: ignore[arg-type]
        "sym_visibility": StringAttr("private") if g.flag() else None, "is_mutable": UnitAttr() if g.flag() else None,
    }, discardable=g.discardable())


def _executable(g: Gen) -> Op:
    def export_body(args: list[Value]) -> None:
        g.build("stream.return", {"operands": [g.index() for _ in range(3)]}, discardable={})

    def kernel_body(args: list[Value]) -> None:
        for arg in args:
            if isinstance(arg.type, OpaqueType) and g.flag():
                result = g.pick((OpaqueType("!iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>"), OpaqueType("memref<4xf32>")))
                dims = [g.index()] if "?" in result.text else []
                g.build("stream.binding.subspan", {"binding": arg, "byte_offset": g.index(), "dynamic_dims": dims}, {"result": result})
        for kind in ("id", "count", "size"):
            if g.flag(0.3):
                g.build(f"stream.dispatch.workgroup.{kind}", {}, {}, {"dimension": IntegerAttr(g.count(0, 2), INDEX)})
        g.build("func.return", discardable={})

    def inner_module(args: list[Value]) -> None:
        func = spec_of("func.func")
        assert func is not None
        binding = OpaqueType("!stream.binding")
        region = g.region([binding] * g.count(0, 3) + [INDEX], kernel_body, isolated=True)
        g.emit(func.build(attrs={"sym_name": StringAttr(g.draw(identifiers)), "function_type": TypeAttr(FunctionType(tuple(a.type for a in region.blocks[0].arguments), ()))}, regions=(region,)))  # type: ignore[arg-type]

    def body(args: list[Value]) -> None:
        export = spec_of("stream.executable.export")
        assert export is not None
        for _ in range(g.count(0, 2)):
            name = g.draw(identifiers)
            workgroups = g.region([INDEX] * g.count(0, 2), export_body, isolated=True) if g.flag() else Region(())
            g.emit(export.build(attrs={"sym_name": StringAttr(name), "function_ref": SymbolRefAttr(name if g.flag() else g.draw(identifiers))}, regions=(workgroups,)))  # type: ignore[arg-type]
        if g.flag(0.7):
            module = spec_of("builtin.module")
            assert module is not None
            g.emit(module.build(regions=(g.region([], inner_module, isolated=True),)))
        g.build("stream.executable.end", discardable={})

    spec = spec_of("stream.executable")
    assert spec is not None
    return spec.build(attrs={"sym_name": StringAttr(g.draw(identifiers)), "sym_visibility": StringAttr("private") if g.flag() else None},
                      regions=(g.region([], body, isolated=True),))


def _initializer(g: Gen) -> Op:
    def fill(args: list[Value]) -> None:
        g.random_ops(hi=3)
        g.build("util.return", discardable={})

    spec = spec_of("util.initializer")
    assert spec is not None
    return spec.build(regions=(g.region([], fill, isolated=True),))


@st.composite
def modules(draw: Draw, max_ops: int = 4, family: str | None = None) -> Module:
    """A random module (see the module docstring). With `family` (a key of `FAMILIES`),
    function bodies use only that family's ops, so that a few examples cover all of them."""
    g = Gen(draw, family=FAMILIES[family] if family else None)
    g.scopes.append(Scope(isolated=True))
    makers = (_function, _function, _global, _executable, _initializer)
    ops = [_function(g)] if family else []
    ops += [g.pick(makers)(g) for _ in range(g.count(0 if family else 1, max_ops))]
    aliases: list[Alias] = []
    if g.flag(0.3):
        aliases.append(Alias("dev", AffinityAttr("dev1")))
        aliases.append(Alias("map", OpaqueAttr("affine_map<(d0) -> (d0)>")))
    if g.flag(0.3):
        aliases.append(Alias("bv", OpaqueType("!hal.buffer_view")))
        aliases.append(Alias("ext", ResourceType(Lifetime.EXTERNAL)))
    if any(op.loc == "loc(#loc)" for top in ops for op in top.walk()):
        aliases.append(Alias("loc", OpaqueAttr('loc("aliased.py":7:1)')))
    attrs = draw(st.dictionaries(identifiers, attributes(1), max_size=2)) if g.flag(0.3) else {}
    return Module(tuple(ops), freeze(attrs), draw(st.one_of(st.none(), identifiers)), tuple(aliases))  # type: ignore[arg-type]

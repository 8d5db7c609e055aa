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

import string
from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import strategies as st

from stream.ir.attributes import (
    AffinityAttr,
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseArrayAttr,
    DenseAttr,
    DictAttr,
    FloatAttr,
    ImmediateTimepointAttr,
    IntegerAttr,
    OpaqueAttr,
    OptimalAttr,
    PromiseAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
    round_to_type,
)
from stream.ir.core import Alias, Block, Module, Op, Region, Value, freeze
from stream.ir.spec import OpSpec, spec_of
from stream.ir.types import (
    BF16,
    F16,
    F32,
    F64,
    I1,
    I8,
    I16,
    I32,
    I64,
    INDEX,
    TIMEPOINT,
    FloatType,
    FunctionType,
    IntegerType,
    Lifetime,
    OpaqueType,
    ResourceType,
    TensorType,
    Type,
)

__all__ = ["modules", "RECIPES", "attributes", "types"]

Draw = Callable[[st.SearchStrategy], object]

# -- leaves ------------------------------------------------------------------------------------
_ID_START = string.ascii_letters + "_"
_ID_REST = string.ascii_letters + string.digits + "_$."
identifiers = st.builds(
    lambda a, b: a + b, st.sampled_from(_ID_START), st.text(_ID_REST, max_size=6)
)
# Names a value may carry in pretty form (MLIR suffix-ids that are not auto names).
value_names = st.builds(lambda a, b: a + b, st.sampled_from(string.ascii_lowercase + "_"), st.text(string.ascii_lowercase + string.digits + "_", max_size=5))
symbols = st.one_of(identifiers, st.text(min_size=1, max_size=6))  # may need quoting: @"a b"
any_text = st.text(max_size=8)

INT_TYPES = (I1, I8, I16, I32, I64, IntegerType(32, "s"), IntegerType(8, "u"))
FLOAT_TYPES = (F16, BF16, F32, F64)
SCALARS = (INDEX, I8, I16, I32, I64, F16, BF16, F32, F64, I1)
OPAQUE_TYPES = (
    OpaqueType("!hal.buffer_view"),
    OpaqueType("!hal.fence"),
    OpaqueType('!test.type<"x", [1, 2]>'),
    OpaqueType("vector<4xf32>"),
)
LIFETIMES = tuple(Lifetime)


def tensor_types() -> st.SearchStrategy[TensorType]:
    dims = st.lists(st.one_of(st.none(), st.integers(0, 16)), max_size=3).map(tuple)
    return st.builds(TensorType, dims, st.sampled_from((F32, F16, I32, I8, I1, BF16)))


resource_types = st.sampled_from(LIFETIMES).map(ResourceType)


def types() -> st.SearchStrategy[Type]:
    return st.one_of(
        st.sampled_from(SCALARS),
        tensor_types(),
        resource_types,
        st.just(TIMEPOINT),
        st.sampled_from(OPAQUE_TYPES),
    )


def _float_value(t: FloatType) -> st.SearchStrategy[float]:
    finite = st.floats(allow_nan=False, allow_infinity=False, width=64 if t == F64 else 32).map(lambda v: round_to_type(v, t))
    return st.one_of(finite, st.sampled_from((float("inf"), float("-inf"), float("nan"), 0.0, -0.0, 1.5, 0.1)).map(lambda v: round_to_type(v, t)))


def _int_attr(t: IntegerType | Type) -> st.SearchStrategy[Attribute]:
    if t == I1:
        return st.booleans().map(BoolAttr)
    width = t.width if isinstance(t, IntegerType) else 64
    return st.integers(-(2 ** (width - 1)), 2 ** (width - 1) - 1).map(lambda v: IntegerAttr(v, t))


def dense_attrs() -> st.SearchStrategy[DenseAttr]:
    @st.composite
    def build(draw: Draw) -> DenseAttr:
        element = draw(st.sampled_from((I32, I8, F32, I1, F16)))
        n = draw(st.integers(1, 4))
        t = TensorType((n,), element)
        if element == I1:
            values = [draw(st.booleans()) for _ in range(n)]
            texts = ["true" if v else "false" for v in values]
        elif isinstance(element, FloatType):
            from stream.ir.attributes import format_float

            texts = [format_float(draw(_float_value(element).filter(lambda v: v == v and abs(v) != float("inf"))), element) for _ in range(n)]
        else:
            width = element.width  # type: ignore[attr-defined]
            texts = [str(draw(st.integers(-(2 ** (width - 1)), 2 ** (width - 1) - 1))) for _ in range(n)]
        body = texts[0] if draw(st.booleans()) else "[" + ", ".join(texts) + "]"
        return DenseAttr(body, t)

    return build()


def affinities() -> st.SearchStrategy[Attribute]:
    device = st.sampled_from(("dev0", "dev1", "__device_0", "odd device"))
    queues = st.one_of(st.none(), st.lists(st.integers(0, 3), min_size=1, max_size=2).map(tuple))
    single = st.one_of(st.builds(AffinityAttr, device, queues), st.builds(PromiseAttr, device, queues))
    return st.one_of(single, st.lists(st.builds(AffinityAttr, device), min_size=1, max_size=2).map(lambda xs: OptimalAttr(tuple(xs))))


def _opaque_attrs() -> st.SearchStrategy[OpaqueAttr]:
    inner = st.sampled_from(('"s"', "1, 2", "{a = [1, 2]}", "@sym", "<nested<x>>", "f32", "a -> b", '"unbalanced >"'))
    return st.one_of(
        st.builds(lambda n, b: OpaqueAttr(f"#{n}.attr<{b}>"), st.sampled_from(("test", "hal", "iree")), inner),
        st.sampled_from((OpaqueAttr("affine_map<(d0, d1) -> (d1, d0)>"), OpaqueAttr("#test.flag"), OpaqueAttr("#arith.overflow<nsw>"))),
    )


def attributes(depth: int = 2) -> st.SearchStrategy[Attribute]:
    leaves = st.one_of(
        st.sampled_from(INT_TYPES + (INDEX,)).flatmap(_int_attr),
        st.sampled_from(FLOAT_TYPES).flatmap(lambda t: _float_value(t).map(lambda v: FloatAttr(v, t))),
        any_text.map(StringAttr),
        st.builds(SymbolRefAttr, symbols, st.lists(symbols, max_size=2).map(tuple)),
        st.just(UnitAttr()),
        st.booleans().map(BoolAttr),
        types().map(TypeAttr),
        affinities(),
        st.just(ImmediateTimepointAttr()),
        dense_attrs(),
        st.builds(DenseArrayAttr, st.sampled_from((I32, I64)), st.lists(st.integers(-100, 100), max_size=3).map(tuple)),
        _opaque_attrs(),
    )
    if depth == 0:
        return leaves
    sub = attributes(depth - 1)
    return st.one_of(
        leaves,
        st.lists(sub, max_size=3).map(lambda xs: ArrayAttr(tuple(xs))),
        st.dictionaries(st.one_of(identifiers, any_text.filter(bool)), sub, max_size=3).map(DictAttr.of),
    )


# -- the generator --------------------------------------------------------------------------------
@dataclass
class _Scope:
    values: list[Value] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)
    isolated: bool = False


class Gen:
    """Builds ops into the innermost open block, drawing every choice from Hypothesis."""

    def __init__(self, draw: Draw, max_depth: int = 2, family: tuple[str, ...] | None = None) -> None:
        self.draw = draw
        self.family = family  # the recipes function bodies draw from (None: all)
        self.scopes: list[_Scope] = []
        self.depth = 0
        self.max_depth = max_depth

    # -- choices
    def pick(self, seq):  # type: ignore[no-untyped-def]
        return self.draw(st.sampled_from(seq))

    def flag(self, p: float = 0.5) -> bool:
        return self.draw(st.floats(0, 1)) < p

    def count(self, lo: int, hi: int) -> int:
        return int(self.draw(st.integers(lo, hi)))  # type: ignore[call-overload]

    def affinity(self) -> Attribute | None:
        return self.draw(affinities()) if self.flag() else None  # type: ignore[return-value]

    def discardable(self) -> dict[str, Attribute]:
        if not self.flag(0.2):
            return {}
        return self.draw(st.dictionaries(st.one_of(identifiers, st.just("stream.affinity")), attributes(1), max_size=2))  # type: ignore[return-value]

    # -- values
    def visible(self) -> list[Value]:
        out: list[Value] = []
        for scope in reversed(self.scopes):
            out.extend(scope.values)
            if scope.isolated:
                break
        return out

    def visible_resources(self) -> list[Value]:
        return [v for v in self.visible() if isinstance(v.type, ResourceType)]

    def value(self, t: Type) -> Value:
        """A visible value of type `t`, or a new one from a `"test.make"` op."""
        same = [v for v in self.visible() if v.type == t]
        if same and self.flag(0.7):
            return self.pick(same)  # type: ignore[no-any-return]
        return self.emit(Op(self.pick(("test.make", "test.make2")), results=(self.fresh(t),))).results[0]

    def index(self) -> Value:
        return self.value(INDEX)

    def indices(self, lo: int = 0, hi: int = 3) -> list[Value]:
        return [self.index() for _ in range(self.count(lo, hi))]

    def resource(self, lifetime: Lifetime | None = None) -> Value:
        return self.value(ResourceType(lifetime) if lifetime is not None else self.draw(resource_types))  # type: ignore[arg-type]

    def timepoint(self) -> Value:
        return self.value(TIMEPOINT)

    def scalar_type(self) -> Type:
        return self.pick(SCALARS)  # type: ignore[no-any-return]

    def tensor_type(self) -> TensorType:
        return self.draw(tensor_types())  # type: ignore[return-value]

    def tensor(self) -> tuple[Value, list[Value]]:
        t = self.tensor_type()
        return self.value(t), [self.index() for _ in range(t.dynamic_dims)]

    def fresh(self, t: Type) -> Value:
        return Value(t, self.draw(value_names) if self.flag(0.4) else None)  # type: ignore[arg-type]

    def name_results(self, op: Op) -> Op:
        for r in op.results:
            if self.flag(0.4):
                r.name_hint = self.draw(value_names)  # type: ignore[assignment]
        return op

    def emit(self, op: Op) -> Op:
        scope = self.scopes[-1]
        if self.flag(0.1):
            op = op.replace(loc=self.draw(_locs))
        scope.ops.append(op)
        scope.values.extend(op.results)
        return op

    def build(self, name: str, operands=None, results=None, attrs=None, regions=(), discardable=None) -> Op:  # type: ignore[no-untyped-def]
        spec = spec_of(name)
        assert isinstance(spec, OpSpec), name
        extra = self.discardable() if discardable is None else discardable
        op = spec.build(operands or {}, results or {}, attrs or {}, tuple(regions), extra)
        return self.emit(self.name_results(op))

    # -- regions
    def region(self, arg_types: list[Type], fill: Callable[[list[Value]], None], isolated: bool = False) -> Region:
        args = [self.fresh(t) for t in arg_types]
        self.scopes.append(_Scope(list(args), [], isolated))
        self.depth += 1
        try:
            fill(args)
        finally:
            self.depth -= 1
        scope = self.scopes.pop()
        return Region((Block(tuple(args), tuple(scope.ops)),))

    def random_ops(self, recipes: tuple[str, ...] | None = None, hi: int = 4) -> None:
        names = recipes or self.family or tuple(RECIPES)
        for _ in range(self.count(0, hi if self.depth < self.max_depth else 1)):
            name = self.pick(names)
            if name in REGION_RECIPES and self.depth >= self.max_depth:
                continue
            RECIPES[name](self)


_locs = st.one_of(
    st.builds(lambda f, line, col: f'loc("{f}":{line}:{col})', st.sampled_from(("a.py", "model.mlir")), st.integers(1, 99), st.integers(1, 9)),
    st.just("loc(unknown)"),
    st.just("loc(#loc)"),
    st.just('loc(fused["x", "y"])'),
)

RECIPES: dict[str, Callable[[Gen], None]] = {}
REGION_RECIPES: set[str] = set()


def recipe(*names: str, region: bool = False) -> Callable[[Callable[[Gen], None]], Callable[[Gen], None]]:
    def wrap(fn: Callable[[Gen], None]) -> Callable[[Gen], None]:
        for name in names:
            RECIPES[name] = fn if len(names) == 1 else (lambda g, n=name: fn(g, n))  # type: ignore[misc, call-arg]
            if region:
                REGION_RECIPES.add(name)
        return fn

    return wrap


def entry_points(g: Gen) -> ArrayAttr:
    n = 1 if g.flag(0.8) else 2
    return ArrayAttr(tuple(SymbolRefAttr(g.draw(symbols), (g.draw(symbols),) if g.flag() else ()) for _ in range(n)))  # type: ignore[arg-type]


def _ties(g: Gen, operands: list[Value], n_results: int, kind: Callable[[Value], bool]) -> list[int]:
    """Per result, -1 or the index of an operand to tie to (first occurrences only)."""
    firsts = [i for i, v in enumerate(operands) if kind(v) and operands.index(v) == i]
    return [g.pick(firsts) if firsts and g.flag(0.3) else -1 for _ in range(n_results)]


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
    ties = _ties(g, args, n, lambda v: isinstance(v.type, TensorType))
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
    n = g.count(0, 2)
    ties = _ties(g, operands, n, lambda v: isinstance(v.type, ResourceType))
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
    attrs: dict[str, Attribute | None] = {"affinity": g.affinity()}
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
    ties = _ties(g, operands, n, lambda v: isinstance(v.type, ResourceType))
    rtypes = [operands[t].type if t >= 0 else g.draw(resource_types) for t in ties]
    g.build(
        "stream.async.dispatch",
        {"workload": g.indices(0, 2), "resource_operands": operands, **ranges, "result_sizes": [g.index() for _ in ties]},
        {"results": rtypes}, {"entry_points": entry_points(g), "tied_operands": ties, "affinity": g.affinity()},
    )


def _captures(g: Gen) -> tuple[list[Value], list[Value]]:
    operands = [g.resource() for _ in range(g.count(0, 3))]
    return operands, [g.index() for _ in operands]


def _yield(g: Gen, types: list[Type]) -> None:
    values = [g.value(t) for t in types]
    g.build("stream.yield", {"resource_operands": values, "resource_operand_sizes": [g.index() for _ in values]}, discardable={})


@recipe("stream.async.execute", "stream.async.concurrent", region=True)
def _async_region(g: Gen, name: str) -> None:  # type: ignore[misc]
    operands, sizes = _captures(g)
    n = g.count(0, 2)
    ties = _ties(g, operands, n, lambda v: True)
    rtypes = [operands[t].type if t >= 0 else g.draw(resource_types) for t in ties]

    def fill(args: list[Value]) -> None:
        g.random_ops(ASYNC_BODY)
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
    operands, sizes = _captures(g)

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
        value: Attribute = FloatAttr(g.draw(_float_value(t)), t)  # type: ignore[arg-type]
    elif g.flag(0.1):
        value = g.draw(dense_attrs())  # type: ignore[assignment]
    else:
        value = g.draw(_int_attr(t))  # type: ignore[assignment]
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


@recipe("arith.select")
def _arith_select(g: Gen) -> None:
    t = g.pick((INDEX, F32, OpaqueType("!hal.buffer_view")))
    g.build("arith.select", {"condition": g.value(I1), "true_value": g.value(t), "false_value": g.value(t)}, {"result": t})


@recipe("hal.element_type")
def _hal_element_type(g: Gen) -> None:
    g.build("hal.element_type", attrs={"type": TypeAttr(g.scalar_type())})


@recipe("hal.encoding_type")
def _hal_encoding_type(g: Gen) -> None:
    g.build("hal.encoding_type", attrs={"encoding": g.draw(_opaque_attrs()) if g.flag(0.3) else None})


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
            regions.append(_multi_block_region(g))
    props = g.draw(st.dictionaries(identifiers, attributes(1), max_size=2))
    g.emit(g.name_results(Op(name, tuple(operands), results, freeze(props), freeze(g.discardable()), tuple(regions))))  # type: ignore[arg-type]


def _multi_block_region(g: Gen) -> Region:
    """A region of 1-3 blocks; each block but the last may branch to later blocks with
    arguments; blocks after the first take arguments."""
    n = g.count(1, 3)
    arg_types = [[g.draw(types()) for _ in range(g.count(0, 2))] for _ in range(n)]
    args = [[g.fresh(t) for t in ts] for ts in arg_types]  # type: ignore[arg-type]
    blocks: list[Block] = []
    g.scopes.append(_Scope([], [], isolated=g.flag(0.2)))
    g.depth += 1
    for i in range(n):
        g.scopes[-1].values.extend(args[i])
        g.random_ops(hi=2)
        if i + 1 < n:  # branch to a later block, passing its arguments
            target = g.count(i + 1, n - 1)
            passed = [g.value(t) for t in arg_types[target]]  # type: ignore[arg-type]
            g.emit(Op("test.br", tuple(passed), successors=(target,)))
        blocks.append(Block(tuple(args[i]), tuple(g.scopes[-1].ops)))
        g.scopes[-1].ops = []
    g.depth -= 1
    g.scopes.pop()
    # Later blocks may use any earlier block's values, dominated or not: the text round trip
    # does not depend on dominance (the structural verifier checks that separately).
    return Region(tuple(blocks))


ASYNC_BODY = tuple(n for n in RECIPES if n.startswith(("stream.async.", "arith.", "stream.timepoint.join"))) + ("test.unregistered",)
CMD_BODY = ("stream.cmd.fill", "stream.cmd.flush", "stream.cmd.invalidate", "stream.cmd.discard", "stream.cmd.copy", "stream.cmd.dispatch",
            "stream.cmd.serial", "stream.cmd.concurrent", "arith.addi")


def _family(*prefixes: str) -> tuple[str, ...]:
    return tuple(sorted(n for n in RECIPES if n.startswith(prefixes)))


FAMILIES: dict[str, tuple[str, ...]] = {
    "flow": _family("flow."),
    "tensor": _family("stream.tensor."),
    "async": _family("stream.async."),
    "timepoint": _family("stream.timepoint."),
    "cmd": _family("stream.cmd."),
    "resource": _family("stream.resource."),
    "arith_hal": _family("arith.", "hal."),
    "host": _family("func.", "util.", "test."),
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
        "sym_visibility": StringAttr(g.pick(("private", "nested"))) if g.flag(0.3) else None,
    }
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
    g.scopes.append(_Scope(isolated=True))
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

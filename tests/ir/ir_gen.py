"""The generator behind `ir_strategies.modules()`: leaf strategies (identifiers, types,
attributes, locations), `Gen` (which builds ops into the innermost open block, drawing every
choice from Hypothesis) and the `RECIPES` registry that the per-op recipe modules fill
(`ir_recipes_values`, `ir_recipes_resources`).
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
from stream.ir.core import Block, Op, Region, Value, freeze
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
    IntegerType,
    Lifetime,
    OpaqueType,
    ResourceType,
    TensorType,
    Type,
)

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


def float_value(t: FloatType) -> st.SearchStrategy[float]:
    finite = st.floats(allow_nan=False, allow_infinity=False, width=64 if t == F64 else 32).map(lambda v: round_to_type(v, t))
    return st.one_of(finite, st.sampled_from((float("inf"), float("-inf"), float("nan"), 0.0, -0.0, 1.5, 0.1)).map(lambda v: round_to_type(v, t)))


def int_attr(t: IntegerType | Type) -> st.SearchStrategy[Attribute]:
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

            texts = [format_float(draw(float_value(element).filter(lambda v: v == v and abs(v) != float("inf"))), element) for _ in range(n)]
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


def opaque_attrs() -> st.SearchStrategy[OpaqueAttr]:
    inner = st.sampled_from(('"s"', "1, 2", "{a = [1, 2]}", "@sym", "<nested<x>>", "f32", "a -> b", '"unbalanced >"'))
    return st.one_of(
        st.builds(lambda n, b: OpaqueAttr(f"#{n}.attr<{b}>"), st.sampled_from(("test", "hal", "iree")), inner),
        st.sampled_from((OpaqueAttr("affine_map<(d0, d1) -> (d1, d0)>"), OpaqueAttr("#test.flag"), OpaqueAttr("#arith.overflow<nsw>"))),
    )


def attributes(depth: int = 2) -> st.SearchStrategy[Attribute]:
    leaves = st.one_of(
        st.sampled_from(INT_TYPES + (INDEX,)).flatmap(int_attr),
        st.sampled_from(FLOAT_TYPES).flatmap(lambda t: float_value(t).map(lambda v: FloatAttr(v, t))),
        any_text.map(StringAttr),
        st.builds(SymbolRefAttr, symbols, st.lists(symbols, max_size=2).map(tuple)),
        st.just(UnitAttr()),
        st.booleans().map(BoolAttr),
        types().map(TypeAttr),
        affinities(),
        st.just(ImmediateTimepointAttr()),
        dense_attrs(),
        st.builds(DenseArrayAttr, st.sampled_from((I32, I64)), st.lists(st.integers(-100, 100), max_size=3).map(tuple)),
        opaque_attrs(),
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
class Scope:
    values: list[Value] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)
    isolated: bool = False


class Gen:
    """Builds ops into the innermost open block, drawing every choice from Hypothesis."""

    def __init__(self, draw: Draw, max_depth: int = 2, family: tuple[str, ...] | None = None) -> None:
        self.draw = draw
        self.family = family  # the recipes function bodies draw from (None: all)
        self.scopes: list[Scope] = []
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
        self.scopes.append(Scope(list(args), [], isolated))
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


def draw_ties(g: Gen, operands: list[Value], n_results: int, kind: Callable[[Value], bool]) -> list[int]:
    """Per result, -1 or the index of an operand to tie to (first occurrences only)."""
    firsts = [i for i, v in enumerate(operands) if kind(v) and operands.index(v) == i]
    return [g.pick(firsts) if firsts and g.flag(0.3) else -1 for _ in range(n_results)]


def multi_block_region(g: Gen) -> Region:
    """A region of 1-3 blocks; each block but the last branches to a later block with
    arguments; blocks after the first take arguments. A block uses only values that dominate it:
    its own, its dominators' (block 0 and every block all paths to it pass through) and the
    enclosing scopes'. A block no branch reaches sees none of the others' values, as dominance
    defines it (the well-formedness property test relies on this)."""
    n = g.count(1, 3)
    arg_types = [[g.draw(types()) for _ in range(g.count(0, 2))] for _ in range(n)]
    args = [[g.fresh(t) for t in ts] for ts in arg_types]  # type: ignore[arg-type]
    targets = [g.count(i + 1, n - 1) for i in range(n - 1)]
    dominators: list[set[int]] = []
    for i in range(n):  # branches only go forward, so one pass in block order is exact
        preds = [p for p in range(i) if targets[p] == i]
        common = set.intersection(*(dominators[p] for p in preds)) if preds else set()
        dominators.append(common | {i})
    defined: list[list[Value]] = []
    blocks: list[Block] = []
    g.scopes.append(Scope([], [], isolated=g.flag(0.2)))
    g.depth += 1
    for i in range(n):
        inherited = [v for d in sorted(dominators[i] - {i}) for v in defined[d]]
        g.scopes[-1].values = [*inherited, *args[i]]
        g.random_ops(hi=2)
        if i + 1 < n:  # branch to the chosen later block, passing its arguments
            passed = [g.value(t) for t in arg_types[targets[i]]]  # type: ignore[arg-type]
            kind = g.pick(("test.br", "cf.br", "cf.cond_br", "cf.switch"))
            if kind == "cf.cond_br":  # both ways to the same block: the dominators stay as computed
                other = [g.value(t) for t in arg_types[targets[i]]]  # type: ignore[arg-type]
                sizes = DenseArrayAttr(I32, (1, len(passed), len(other)))
                g.emit(Op("cf.cond_br", (g.value(I1), *passed, *other), properties=freeze({"operandSegmentSizes": sizes}),
                          successors=(targets[i], targets[i])))
            elif kind == "cf.switch":  # a default and one case, both to the same block
                other = [g.value(t) for t in arg_types[targets[i]]]  # type: ignore[arg-type]
                props = {"operandSegmentSizes": DenseArrayAttr(I32, (1, len(passed), len(other))),
                         "case_operand_segments": DenseArrayAttr(I32, (len(other),)),
                         "case_values": DenseAttr(str(g.count(0, 9)), OpaqueType("vector<1xi32>"))}
                g.emit(Op("cf.switch", (g.value(I32), *passed, *other), properties=freeze(props),
                          successors=(targets[i], targets[i])))
            else:
                g.emit(Op(kind, tuple(passed), successors=(targets[i],)))
        defined.append(g.scopes[-1].values[len(inherited):])
        blocks.append(Block(tuple(args[i]), tuple(g.scopes[-1].ops)))
        g.scopes[-1].ops = []
    g.depth -= 1
    g.scopes.pop()
    return Region(tuple(blocks))


def async_body() -> tuple[str, ...]:
    """The recipes an async region's body draws from (once every recipe module is imported)."""
    return tuple(n for n in RECIPES if n.startswith(("stream.async.", "arith.", "stream.timepoint.join"))) + ("test.unregistered",)

"""Index values as affine expressions over opaque atoms, and their Z3 encoding.

Every `index` (or integer) SSA value of a function gets an `Expr`: an affine form
`c + Σ kᵢ·aᵢ` over *atoms*, the index quantities the verifier cannot compute (function
arguments, `stream.resource.pack` offsets and totals, `stream.tensor.sizeof`, products of two
unknowns, ...). Constants fold, so a fully static program never touches Z3; an `Expr` with no
atoms *is* an integer.

What the program implies about its atoms is kept as *facts* (Z3 constraints) attached to the
atoms they mention: a product atom `p` carries `p == a·b`, a pack offset carries the pack's
layout contract. A query about some expressions asserts exactly the facts reachable from their
atoms (`Symbols.assumptions`), so unrelated parts of a large program never reach the solver.

Assumptions (documented, deliberate):
* every atom is non-negative (index values used as sizes and offsets are unsigned);
* index arithmetic does not wrap (`arith.subi` results are >= 0, products and sums are exact).
A program that relies on wrap-around is outside what the verifier reasons about.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import z3
from z3 import BoolRef, ModelRef  # annotations inside `Symbols`, whose method `z3` shadows the module

from stream.ir.attributes import ArrayAttr, BoolAttr, IntegerAttr, TypeAttr
from stream.ir.core import Location, Op, Value
from stream.ir.rule_table import Requirement, RuleTable
from stream.ir.spec import spec_of
from stream.ir.types import IndexType, IntegerType, TensorType, element_byte_width, packed_bits

__all__ = ["Expr", "Atom", "Symbols", "const"]


class Expr:
    """An affine form `const + Σ coef·atom` (atoms by id). Immutable and hashable."""

    __slots__ = ("const", "terms", "_hash")

    def __init__(self, const: int = 0, terms: tuple[tuple[int, int], ...] = ()) -> None:
        self.const = const
        self.terms = terms
        self._hash = -1

    @property
    def is_const(self) -> bool:
        return not self.terms

    @property
    def value(self) -> int:
        if self.terms:
            raise ValueError("not a constant")
        return self.const

    def atoms(self) -> tuple[int, ...]:
        return tuple(a for a, _ in self.terms)

    def __add__(self, other: Expr | int) -> Expr:
        if isinstance(other, int):
            return Expr(self.const + other, self.terms) if other else self
        if not other.terms:
            return Expr(self.const + other.const, self.terms)
        if not self.terms:
            return Expr(self.const + other.const, other.terms)
        return Expr(self.const + other.const, _merge(self.terms, other.terms, 1))

    __radd__ = __add__

    def scale(self, k: int) -> Expr:
        if k == 0:
            return ZERO
        if not self.terms:
            return Expr(self.const * k)
        return Expr(self.const * k, tuple((a, c * k) for a, c in self.terms))

    def __neg__(self) -> Expr:
        return self.scale(-1)

    def __sub__(self, other: Expr | int) -> Expr:
        if isinstance(other, int):
            return self + (-other)
        if not other.terms:
            return Expr(self.const - other.const, self.terms)
        if not self.terms:
            return Expr(self.const - other.const, tuple((a, -k) for a, k in other.terms))
        return Expr(self.const - other.const, _merge(self.terms, other.terms, -1))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Expr) and self.const == other.const and self.terms == other.terms

    def __hash__(self) -> int:
        if self._hash == -1:
            self._hash = hash((self.const, self.terms))
        return self._hash

    def __repr__(self) -> str:
        return f"Expr({self.const}, {self.terms})"


ZERO = Expr(0)


def _merge(x: tuple[tuple[int, int], ...], y: tuple[tuple[int, int], ...], sign: int) -> tuple[tuple[int, int], ...]:
    """The terms of `x + sign·y`, both sorted by atom: one merge, dropping zero coefficients."""
    out: list[tuple[int, int]] = []
    i = j = 0
    nx, ny = len(x), len(y)
    while i < nx and j < ny:
        a, k = x[i]
        b, m = y[j]
        if a < b:
            out.append(x[i])
            i += 1
        elif b < a:
            out.append((b, sign * m))
            j += 1
        else:
            if k + sign * m:
                out.append((a, k + sign * m))
            i += 1
            j += 1
    out.extend(x[i:])
    out.extend((b, sign * m) for b, m in y[j:])
    return tuple(out)


def const(n: int) -> Expr:
    return Expr(n) if n else ZERO


# Fact kinds that define their first expression's (fresh) atom from the others and hold for any
# values of those others: `p = a*b`, a min/max, a clipped length, a comparison's 0/1, a select,
# an aligned value, a runtime check's guard (`g = 1 -> ...`, satisfied by g = 0). Not `div` or
# `rem` (they require a positive divisor) nor `assume` (it constrains its operands).
_DEFINING = frozenset({"mul", "minmax", "subspan_clip", "cmpi", "check", "select", "align"})


@dataclass(slots=True, eq=False)
class Atom:
    """An index quantity the verifier cannot compute. `value` is the SSA value it stands for
    (None for helper atoms), `label` a fallback display name."""

    id: int
    kind: str  # argument | pack_offset | pack_total | opaque | product | quotient | difference | ...
    value: Value | None
    location: Location | None
    label: str = ""
    var: z3.ArithRef | None = None


@dataclass(slots=True, eq=False)
class Fact:
    """A constraint the program implies, over the atoms in `atoms`. `shape` is `(kind, exprs)`:
    the constraint is a function of its kind and expressions only, so two facts with the same
    shape up to a renaming of atoms say the same thing (used to share Z3 answers between
    alpha-equivalent queries)."""

    atoms: tuple[int, ...]
    build: Callable[[Symbols], z3.BoolRef]
    nonlinear: bool = False
    shape: tuple[str, tuple[Expr, ...]] | None = None
    term: z3.BoolRef | None = None


Evaluator = Callable[["Symbols", Op], list[Expr]]
EVALUATORS: RuleTable[Evaluator] = RuleTable(
    "EVALUATORS",
    """The symbolic expression of each integer/index result of the op from its operands'
    expressions (`fn(symbols, op) -> [Expr]`, registered with `@evaluator(name)`). Without a rule
    every integer result is a fresh opaque atom (conservative: nothing is known about it).""",
    policy="conservative",
    requires=Requirement(
        ops=frozenset({"stream.tensor.sizeof", "stream.resource.pack", "arith.constant", "arith.select", "arith.addi", "arith.subi",
                       "arith.muli", "arith.divui", "arith.ceildivui", "arith.remui", "arith.minui", "arith.maxui",
                       "arith.index_cast", "arith.index_castui"}),
        why="the size and offset arithmetic IREE emits; an op without a rule is merely opaque"),
)

def evaluator(*names: str) -> Callable[[Evaluator], Evaluator]:
    """Register the rule of the named ops in `EVALUATORS`."""
    return EVALUATORS.register(*names)


@dataclass(slots=True, eq=False)
class Symbols:
    """The symbolic values of one function: `expr(v)` for any index value."""

    atoms: list[Atom] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    by_atom: dict[int, list[int]] = field(default_factory=dict)  # atom id -> fact indices
    values: dict[Value, Expr] = field(default_factory=dict)
    sizeof_cache: dict[tuple[object, ...], Expr] = field(default_factory=dict)
    # Runtime checks (`cf.assert`, `hal.buffer_view.assert`): what the program knows once it has
    # passed them holds only for what it issues after them. `position` is the index in the
    # function body of the top-level op being evaluated; `guards` the (position, guard atom) of
    # each check in program order, the guard meaning "every check up to this one passed"
    # (verify.int_facts). `buffer_view_dims` is the expression of each (buffer view, dim index).
    position: int = 0
    guards: list[tuple[int, Expr]] = field(default_factory=list)
    buffer_view_dims: dict[tuple[Value, int], Expr] = field(default_factory=dict)
    # fact ids of a closure -> (their shapes with atoms numbered by first appearance, that
    # numbering), or None when a fact has no shape (see `canonical`)
    _fact_keys: dict[tuple[int, ...], tuple[tuple[object, ...], dict[int, int]] | None] = field(default_factory=dict)
    # atom id -> the atoms and facts connected to it through facts (cleared when a fact is added)
    _components: dict[int, tuple[frozenset[int], tuple[int, ...]]] = field(default_factory=dict)
    _ctx: z3.Context | None = None
    # closure -> its constraints (queries with one closure of nonlinear facts each get a fresh
    # solver, and building the same few hundred terms for each was a quarter of their time)
    _closure_terms: dict[tuple[frozenset[int], tuple[int, ...]], tuple[list[BoolRef], bool]] = field(default_factory=dict)
    _core_index: dict[int, list[tuple[int, int | None]]] = field(default_factory=dict)  # see `_core_edges`
    _core_indexed: int = 0

    @property
    def ctx(self) -> z3.Context:
        """The Z3 context of this function's formulas, made on first use. Z3 keeps state per
        context: in the process-wide one, checks slowed down up to 10x once an unrelated query
        (a counterexample's event ordering) had run in it, so each function gets its own."""
        if self._ctx is None:
            self._ctx = z3.Context()
        return self._ctx

    # -- building ---------------------------------------------------------------------------
    def fresh(self, kind: str, value: Value | None = None, location: Location | None = None, label: str = "") -> Expr:
        atom = Atom(len(self.atoms), kind, value, location, label)
        self.atoms.append(atom)
        return Expr(0, ((atom.id, 1),))

    def fact(self, exprs: Iterable[Expr], build: Callable[[Symbols], z3.BoolRef], nonlinear: bool = False, kind: str = "") -> None:
        exprs = tuple(exprs)
        ids = tuple(sorted({a for e in exprs for a in e.atoms()}))
        if not ids:
            return
        index = len(self.facts)
        self.facts.append(Fact(ids, build, nonlinear, (kind, exprs) if kind else None))
        if self._components:
            self._components.clear()
            self._fact_keys.clear()
        for a in ids:
            self.by_atom.setdefault(a, []).append(index)

    def define(self, value: Value, expr: Expr) -> None:
        self.values[value] = expr

    def expr(self, value: Value) -> Expr:
        """The expression of an index value (an opaque atom when nothing defines it)."""
        e = self.values.get(value)
        if e is None:
            e = self.fresh("opaque", value)
            self.values[value] = e
        return e

    def evaluate_op(self, op: Op) -> None:
        """Give every integer result of `op` an expression (rule table, else opaque atoms); a
        rule of an op without results records facts (a runtime check)."""
        fn = EVALUATORS.get(op.name)
        if not op.results and fn is None:
            return
        if fn is not None:
            exprs = fn(self, op)
            for r, e in zip(op.results, exprs):
                self.values[r] = e
            return
        for r in op.results:
            if isinstance(r.type, (IndexType, IntegerType)):
                self.values[r] = self.fresh("opaque", r, op.location)

    def argument(self, value: Value, location: Location | None) -> None:
        self.values[value] = self.fresh("argument", value, location)

    def guard_before(self, position: int) -> Expr | None:
        """The guard of the last runtime check before the top-level op at `position`: an
        obligation about ops issued there may assume it (`g > 0`: every check before passed, as
        the program aborts at a failing one). None when no check comes before."""
        last = None
        for where, g in self.guards:
            if where >= position:
                break
            last = g
        return last

    # -- Z3 ---------------------------------------------------------------------------------
    def var(self, atom_id: int) -> z3.ArithRef:
        atom = self.atoms[atom_id]
        if atom.var is None:
            atom.var = z3.Int(f"a{atom.id}_{atom.kind}", self.ctx)
        return atom.var

    def z3(self, e: Expr) -> z3.ArithRef:
        parts: list[z3.ArithRef] = [z3.IntVal(e.const, self.ctx)] if e.const or not e.terms else []
        for a, k in e.terms:
            v = self.var(a)
            parts.append(v if k == 1 else z3.IntVal(k, self.ctx) * v)
        return parts[0] if len(parts) == 1 else z3.Sum(*parts)

    def closure(self, exprs: Iterable[Expr]) -> tuple[frozenset[int], tuple[int, ...]]:
        """Atoms reachable from `exprs` through facts, and those facts (in fact order): the
        union of the connected components of the atoms of `exprs` (each computed once)."""
        comps: list[tuple[frozenset[int], tuple[int, ...]]] = []
        for e in exprs:
            for a in e.atoms():
                c = self._components.get(a)
                if c is None:
                    c = self._component(a)
                if not any(x is c for x in comps):
                    comps.append(c)
        if len(comps) == 1:
            return comps[0]
        atoms: set[int] = set()
        facts: set[int] = set()
        for c in comps:
            atoms |= c[0]
            facts.update(c[1])
        return frozenset(atoms), tuple(sorted(facts))

    def _component(self, start: int) -> tuple[frozenset[int], tuple[int, ...]]:
        seen: set[int] = set()
        facts: set[int] = set()
        stack = [start]
        while stack:
            a = stack.pop()
            if a in seen:
                continue
            seen.add(a)
            for fi in self.by_atom.get(a, ()):
                if fi not in facts:
                    facts.add(fi)
                    stack.extend(self.facts[fi].atoms)
        comp = (frozenset(seen), tuple(sorted(facts)))
        for a in seen:
            self._components[a] = comp
        return comp

    def core(self, exprs: Iterable[Expr]) -> tuple[frozenset[int], tuple[int, ...]]:
        """A part of `closure(exprs)` that usually decides a query: the facts reachable from its
        atoms, where a pack's layout facts count only for the slices the query reaches: a
        slice's bounds once its offset is reached, the disjointness of two slices once both
        offsets are, and a fact defining an atom from others (`_DEFINING`) only once the atom it
        defines is reached, not through its operands (the packs of one function share size
        atoms, so the closure of any query about one slice holds every pack's layout: hundreds of bounds and up to N²/2 four-way
        disjunctions for N slices). A query unsatisfiable under fewer facts is unsatisfiable
        under all of them, so a proof from the core is a proof; a satisfiable one is asked again
        with the whole closure (`Decider`)."""
        index = self._core_edges()
        seen: set[int] = set()
        facts: set[int] = set()
        stack = [a for e in exprs for a in e.atoms()]
        while stack:
            a = stack.pop()
            if a in seen:
                continue
            seen.add(a)
            for fi, other in index.get(a, ()):
                if fi in facts or (other is not None and other not in seen):
                    continue
                facts.add(fi)
                stack.extend(self.facts[fi].atoms)
        return frozenset(seen), tuple(sorted(facts))

    def _core_edges(self) -> dict[int, list[tuple[int, int | None]]]:
        """For `core`: atom -> (fact, the other atom that must be reached first, if any); facts
        are only ever appended, so the index is extended for the new ones."""
        index = self._core_index
        for fi in range(self._core_indexed, len(self.facts)):
            f = self.facts[fi]
            kind = f.shape[0].split(":", 1)[0] if f.shape is not None else ""
            if f.shape is not None and (kind in _DEFINING or kind == "pack_bound"):
                for a in f.shape[1][0].atoms():  # from the defined atom (the slice offset) only
                    index.setdefault(a, []).append((fi, None))
            elif f.shape is not None and kind == "pack_disjoint":
                oi, _, oj, _ = f.shape[1]
                (i,), (j,) = oi.atoms(), oj.atoms()  # pack offsets are atoms
                index.setdefault(i, []).append((fi, j))
                index.setdefault(j, []).append((fi, i))
            else:
                for a in f.atoms:
                    index.setdefault(a, []).append((fi, None))
        self._core_indexed = len(self.facts)
        return index

    def assumptions(self, exprs: Iterable[Expr]) -> tuple[list[BoolRef], bool]:
        """The constraints a query over `exprs` may rely on, and whether any is nonlinear."""
        return self.closure_assumptions(*self.closure(exprs))

    def closure_assumptions(self, atoms: frozenset[int], facts: tuple[int, ...]) -> tuple[list[BoolRef], bool]:
        """The constraints of one closure (see `closure`), and whether any is nonlinear."""
        hit = self._closure_terms.get((atoms, facts))
        if hit is not None:
            return list(hit[0]), hit[1]
        out: list[BoolRef] = [self.var(a) >= 0 for a in sorted(atoms)]
        nonlinear = False
        for fi in facts:
            f = self.facts[fi]
            if f.term is None:
                f.term = f.build(self)
            out.append(f.term)
            nonlinear |= f.nonlinear
        self._closure_terms[(atoms, facts)] = (out, nonlinear)
        return list(out), nonlinear

    def canonical(self, exprs: Iterable[Iterable[Expr]], facts: tuple[int, ...] | None = None) -> tuple[object, ...] | None:
        """A key equal for queries that are the same up to a renaming of atoms: the query's
        expressions and the shapes of every fact they depend on (or of `facts`: those a query is
        asked under, e.g. its `core`), atoms numbered by first appearance. None when some fact
        has no shape."""
        groups = [tuple(g) for g in exprs]
        if facts is None:
            _, facts = self.closure(e for g in groups for e in g)
        # Many queries share one closure (every query about one pack depends on all of its
        # layout facts): the facts' part of the key is computed once per closure. Atoms are
        # numbered first by the facts (in fact order), then by the query: two keys are equal
        # only if one renaming maps the facts and the query onto each other.
        fkey = facts
        if fkey in self._fact_keys:
            cached = self._fact_keys[fkey]
        else:
            cached = self._fact_key(facts)
            self._fact_keys[fkey] = cached
        if cached is None:
            return None
        shapes, order = cached
        extra: dict[int, int] = {}
        base = len(order)

        def rename(e: Expr) -> tuple[int, tuple[tuple[int, int], ...]]:
            return e.const, tuple(sorted((order[a] if a in order else base + extra.setdefault(a, len(extra)), k) for a, k in e.terms))

        return (shapes, tuple(tuple(rename(e) for e in g) for g in groups))

    def _fact_key(self, facts: tuple[int, ...]) -> tuple[tuple[object, ...], dict[int, int]] | None:
        order: dict[int, int] = {}

        def rename(e: Expr) -> tuple[int, tuple[tuple[int, int], ...]]:
            return e.const, tuple(sorted((order.setdefault(a, len(order)), k) for a, k in e.terms))

        shapes: list[object] = []
        for fi in facts:
            shape = self.facts[fi].shape
            if shape is None:
                return None
            shapes.append((shape[0], tuple(rename(e) for e in shape[1])))
        return tuple(shapes), order

    def model_values(self, model: ModelRef, exprs: Iterable[Expr]) -> dict[int, int]:
        """Concrete values of the atoms of `exprs` (and what they depend on) in a Z3 model."""
        atoms, _ = self.closure(exprs)
        out: dict[int, int] = {}
        for a in sorted(atoms):
            v = model.eval(self.var(a), model_completion=True)
            out[a] = v.as_long() if z3.is_int_value(v) else 0
        return out

    def evaluate(self, e: Expr, values: dict[int, int]) -> int:
        return e.const + sum(k * values.get(a, 0) for a, k in e.terms)


# -- the evaluation rule table -------------------------------------------------------------------
@evaluator("arith.constant")
def _constant(s: Symbols, op: Op) -> list[Expr]:
    attr = op.properties.get("value")
    if isinstance(attr, IntegerAttr):
        return [const(attr.value)]
    if isinstance(attr, BoolAttr):
        return [const(int(attr.value))]
    return [s.fresh("opaque", op.results[0], op.location)]


@evaluator("arith.addi")
def _addi(s: Symbols, op: Op) -> list[Expr]:
    return [s.expr(op.operands[0]) + s.expr(op.operands[1])]


@evaluator("arith.subi")
def _subi(s: Symbols, op: Op) -> list[Expr]:
    d = s.expr(op.operands[0]) - s.expr(op.operands[1])
    if d.is_const:
        return [d]
    # No wrap-around: the difference is a non-negative atom equal to a - b.
    atom = s.fresh("difference", op.results[0], op.location)
    s.fact((atom, d), lambda sy: sy.z3(atom) == sy.z3(d), kind="eq")
    return [atom]


@evaluator("arith.muli")
def _muli(s: Symbols, op: Op) -> list[Expr]:
    a, b = s.expr(op.operands[0]), s.expr(op.operands[1])
    if a.is_const:
        return [b.scale(a.const)]
    if b.is_const:
        return [a.scale(b.const)]
    p = s.fresh("product", op.results[0], op.location)
    s.fact((p, a, b), lambda sy: sy.z3(p) == sy.z3(a) * sy.z3(b), nonlinear=True, kind="mul")
    return [p]


def _quotient(s: Symbols, op: Op, ceil: bool) -> list[Expr]:
    a, b = s.expr(op.operands[0]), s.expr(op.operands[1])
    if a.is_const and b.is_const and b.const > 0:
        return [const(-(-a.const // b.const) if ceil else a.const // b.const)]
    q = s.fresh("quotient", op.results[0], op.location)

    def build(sy: Symbols, q: Expr = q, a: Expr = a, b: Expr = b) -> z3.BoolRef:
        qa, aa, bb = sy.z3(q), sy.z3(a), sy.z3(b)
        if ceil:
            return z3.And(bb > 0, qa * bb >= aa, qa * bb < aa + bb)
        return z3.And(bb > 0, qa * bb <= aa, aa < qa * bb + bb)

    s.fact((q, a, b), build, nonlinear=not b.is_const, kind="ceildiv" if ceil else "div")
    return [q]


@evaluator("arith.divui", "arith.divsi", "arith.floordivsi")
def _divui(s: Symbols, op: Op) -> list[Expr]:
    return _quotient(s, op, ceil=False)


@evaluator("arith.ceildivui", "arith.ceildivsi")
def _ceildivui(s: Symbols, op: Op) -> list[Expr]:
    return _quotient(s, op, ceil=True)


@evaluator("arith.remui", "arith.remsi")
def _remui(s: Symbols, op: Op) -> list[Expr]:
    a, b = s.expr(op.operands[0]), s.expr(op.operands[1])
    if a.is_const and b.is_const and b.const > 0:
        return [const(a.const % b.const)]
    r = s.fresh("remainder", op.results[0], op.location)
    s.fact((r, b), lambda sy: sy.z3(r) < sy.z3(b), kind="rem")
    return [r]


def _select_like(s: Symbols, op: Op, pick: Callable[[int, int], int], build: Callable[[z3.ArithRef, z3.ArithRef], z3.ArithRef]) -> list[Expr]:
    a, b = s.expr(op.operands[0]), s.expr(op.operands[1])
    if a.is_const and b.is_const:
        return [const(pick(a.const, b.const))]
    m = s.fresh("minmax", op.results[0], op.location)
    s.fact((m, a, b), lambda sy: sy.z3(m) == build(sy.z3(a), sy.z3(b)), kind=f"minmax:{pick.__name__}")
    return [m]


@evaluator("arith.minui", "arith.minsi")
def _min(s: Symbols, op: Op) -> list[Expr]:
    return _select_like(s, op, min, lambda x, y: z3.If(x <= y, x, y))


@evaluator("arith.maxui", "arith.maxsi")
def _max(s: Symbols, op: Op) -> list[Expr]:
    return _select_like(s, op, max, lambda x, y: z3.If(x >= y, x, y))


@evaluator("arith.select")
def _select(s: Symbols, op: Op) -> list[Expr]:
    c, a, b = (s.expr(v) for v in op.operands)
    if c.is_const:
        return [a if c.const else b]
    if a == b:
        return [a]
    m = s.fresh("select", op.results[0], op.location)
    s.fact((m, a, b), lambda sy: z3.Or(sy.z3(m) == sy.z3(a), sy.z3(m) == sy.z3(b)), kind="select")
    return [m]


@evaluator("arith.index_cast", "arith.index_castui", "arith.extui", "arith.extsi", "arith.trunci")
def _cast(s: Symbols, op: Op) -> list[Expr]:
    return [s.expr(op.operands[0])]


@evaluator("stream.tensor.sizeof")
def _sizeof(s: Symbols, op: Op) -> list[Expr]:
    """The byte size of a dense row-major tensor: element bytes times the dims (dynamic dims are
    the op's operands). Encoded tensors (padding, packing) and sub-byte ones IREE packs
    (`packed_bits`: i2, i4) get one atom per distinct
    (type, dims, affinity), so equal queries still give equal sizes."""
    attr = op.properties.get("encoding")
    t = attr.type if isinstance(attr, TypeAttr) else None
    dims = [s.expr(v) for v in op.operands]
    bits = packed_bits(t) if isinstance(t, TensorType) else None
    if bits is not None and t.is_static:  # type: ignore[union-attr]
        return [const(-(-(t.num_elements() or 0) * bits // 8))]  # type: ignore[union-attr]
    if isinstance(t, TensorType) and t.encoding is None and t.shape is not None and bits is None:
        width = element_byte_width(t.element)
        if width is not None:
            size = const(width)
            dynamic = iter(dims)
            for d in t.shape:
                e = next(dynamic, None) if d is None else const(d)
                if e is None:
                    break
                if e.is_const:
                    size = size.scale(e.const)
                elif size.is_const:
                    size = e.scale(size.const)
                else:
                    p = s.fresh("product", None, op.location, "tensor size")
                    s.fact((p, size, e), _product_fact(p, size, e), nonlinear=True, kind="mul")
                    size = p
            else:
                return [size]
    key = (str(t), tuple(dims), str(op.properties.get("affinity")))
    hit = s.sizeof_cache.get(key)
    if hit is None:
        hit = s.fresh("opaque", op.results[0], op.location)
        s.sizeof_cache[key] = hit
    return [hit]


@evaluator("stream.resource.pack")
def _pack(s: Symbols, op: Op) -> list[Expr]:
    """Pack results: the total and one offset per slice, constrained by the layout contract:
    every slice lies in [base, base + total), and slices whose inclusive lifetime intervals
    intersect do not share bytes. Slices whose intervals are disjoint may alias (PACK_OVERLAP
    checks that their uses really are separated in time)."""
    spec = spec_of(op)
    assert spec is not None
    base_v = spec.operand_group(op, "offset")
    base = s.expr(base_v[0]) if base_v else const(0)
    sizes = [s.expr(v) for v in spec.operand_group(op, "dynamic_slice_sizes")]
    intervals = pack_intervals(op)
    total = s.fresh("pack_total", op.results[0], op.location)
    offsets = [s.fresh("pack_offset", r, op.location) for r in op.results[1:]]
    for i, (off, size) in enumerate(zip(offsets, sizes)):
        s.fact((off, size, base, total), _pack_bound_fact(off, size, base, total), kind="pack_bound")
        for j in range(i):
            if i < len(intervals) and j < len(intervals) and overlaps(intervals[i], intervals[j]):
                oi, zi, oj, zj = off, size, offsets[j], sizes[j]
                s.fact((oi, zi, oj, zj), _pack_disjoint_fact(oi, zi, oj, zj), kind="pack_disjoint")
    return [total, *offsets]


# Fact builders made inside loops are built by these functions so that each closure holds its own
# iteration's expressions (a lambda in the loop would see the loop variables' last values).
def _product_fact(p: Expr, a: Expr, b: Expr) -> Callable[[Symbols], BoolRef]:
    return lambda sy: sy.z3(p) == sy.z3(a) * sy.z3(b)


def _pack_bound_fact(off: Expr, size: Expr, base: Expr, total: Expr) -> Callable[[Symbols], BoolRef]:
    return lambda sy: z3.And(sy.z3(off) >= sy.z3(base), sy.z3(off) + sy.z3(size) <= sy.z3(base) + sy.z3(total))


def _pack_disjoint_fact(oi: Expr, zi: Expr, oj: Expr, zj: Expr) -> Callable[[Symbols], BoolRef]:
    return lambda sy: z3.Or(sy.z3(oi) + sy.z3(zi) <= sy.z3(oj), sy.z3(oj) + sy.z3(zj) <= sy.z3(oi), sy.z3(zi) == 0, sy.z3(zj) == 0)


def pack_intervals(op: Op) -> list[tuple[int, int]]:
    """The inclusive `[start, end]` lifetime interval of each slice of a `resource.pack`."""
    attr = op.properties.get("lifetime_intervals")
    if not isinstance(attr, ArrayAttr):
        return []
    flat = [e.value if isinstance(e, IntegerAttr) else 0 for e in attr.elements]
    return [(flat[i], flat[i + 1]) for i in range(0, len(flat) - 1, 2)]


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]

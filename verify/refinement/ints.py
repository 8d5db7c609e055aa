"""Symbolic index arithmetic in a canonical form: integer polynomials over unknowns.

Sizes, offsets and dims are `IntExpr`s: a Python `int` when the value is known, else a `Poly`,
a hash-consed polynomial with integer coefficients over `Sym`s (function index arguments, pack
offsets, loaded scalars, results of operations we do not fold such as `arith.divui` on unknowns).

Why polynomials: two polynomials are equal as functions over the integers exactly when their
normal forms are equal, so `add`/`mul` results compare by identity, and the expressions one level
writes (`%n * 256`) and another level computes (`tensor<?x64xf32>{%n}` -> `%n * 64 * 4`) meet
without a solver. Everything else (orderings, equalities that depend on facts such as pack
disjointness) is decided by `verify.refinement.solver.Facts` with Z3.

Index arithmetic is modelled on mathematical integers: a program whose sizes overflow 64 bits is
outside what the refinement check reasons about (documented in `check_refinement`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import z3

__all__ = ["Sym", "Poly", "IntExpr", "Ints", "is_const"]

Mono = tuple[int, ...]  # sorted Sym ids, with repetition (x*x*y = (x, x, y))


@dataclass(frozen=True, slots=True, eq=False)
class Sym:
    """An integer unknown. `key` identifies it (two Syms with one key are one Sym); `label` is
    how reports spell it. `apply` Syms stand for an uninterpreted (or Z3-defined) operation on
    other IntExprs: `key = ("apply", name, args)`."""

    id: int
    key: tuple[Any, ...]
    label: str


@dataclass(frozen=True, slots=True, eq=False)
class Poly:
    """A non-constant polynomial in normal form (hash-consed: equal polynomials are one object).

    `terms` are `(monomial, coefficient)` pairs sorted by monomial with non-zero coefficients;
    `const` is the constant term. A constant polynomial is never a `Poly`: it is an `int`."""

    terms: tuple[tuple[Mono, int], ...]
    const: int
    id: int

    def __repr__(self) -> str:
        return f"<Poly #{self.id}>"


IntExpr = int | Poly


def is_const(e: IntExpr) -> bool:
    return type(e) is int


def _terms(e: IntExpr) -> tuple[tuple[Mono, int], ...]:
    return () if type(e) is int else e.terms  # type: ignore[union-attr]


def _const(e: IntExpr) -> int:
    return e if type(e) is int else e.const  # type: ignore[return-value,union-attr]


# Folds of the arith ops we evaluate when every operand is known. Unsigned ops act on the
# non-negative values index arithmetic produces; a division by zero stays symbolic.
FOLDS: dict[str, Callable[..., int | None]] = {
    "divui": lambda a, b: a // b if b else None,
    "divsi": lambda a, b: int(a / b) if b else None,
    "floordivsi": lambda a, b: a // b if b else None,
    "ceildivui": lambda a, b: -(-a // b) if b else None,
    "ceildivsi": lambda a, b: -(-a // b) if b else None,
    "remui": lambda a, b: a % b if b else None,
    "remsi": lambda a, b: a - b * int(a / b) if b else None,
    "minui": min,
    "minsi": min,
    "maxui": max,
    "maxsi": max,
    "andi": lambda a, b: a & b,
    "ori": lambda a, b: a | b,
    "xori": lambda a, b: a ^ b,
    "shli": lambda a, b: a << b if 0 <= b < 64 else None,
    "shrui": lambda a, b: a >> b if 0 <= b < 64 else None,
    "select": lambda c, a, b: a if c else b,
    "align": lambda a, b: (a + b - 1) & ~(b - 1),  # util.align (IREE's formula)
    "cmpi_eq": lambda a, b: int(a == b),
    "cmpi_ne": lambda a, b: int(a != b),
    "cmpi_ult": lambda a, b: int(a < b),
    "cmpi_ule": lambda a, b: int(a <= b),
    "cmpi_ugt": lambda a, b: int(a > b),
    "cmpi_uge": lambda a, b: int(a >= b),
    "cmpi_slt": lambda a, b: int(a < b),
    "cmpi_sle": lambda a, b: int(a <= b),
    "cmpi_sgt": lambda a, b: int(a > b),
    "cmpi_sge": lambda a, b: int(a >= b),
}


def _z3_apply(name: str, args: list[z3.ArithRef]) -> z3.ArithRef | None:
    """The Z3 meaning of an `apply` Sym, when it has a simple one (None: keep it opaque)."""
    a = args[0]
    b = args[1] if len(args) > 1 else None
    if name in ("divui", "floordivsi") and b is not None:
        return a / b  # Z3's integer division floors for positive divisors
    if name == "ceildivui" and b is not None:
        return (a + b - 1) / b
    if name == "remui" and b is not None:
        return a % b
    if name in ("minui", "minsi") and b is not None:
        return z3.If(a <= b, a, b)
    if name in ("maxui", "maxsi") and b is not None:
        return z3.If(a >= b, a, b)
    if name == "align" and b is not None and z3.is_int_value(b):
        n = b.as_long()  # type: ignore[attr-defined]
        if n > 0 and not n & (n - 1):  # a power of two: round up to a multiple of it
            return (a + n - 1) / n * n
        return None
    if name == "select" and len(args) == 3:
        return z3.If(args[0] != 0, args[1], args[2])
    compare = _SIGNED_COMPARES.get(name)
    if compare is not None and b is not None:
        return z3.If(compare(a, b), 1, 0)
    return None


# The comparisons that mean the same on unbounded integers (the unsigned ones differ for negative
# values, so they stay opaque: equal terms still compare equal, nothing more is assumed).
_SIGNED_COMPARES: dict[str, Any] = {
    "cmpi_eq": lambda a, b: a == b, "cmpi_ne": lambda a, b: a != b,
    "cmpi_slt": lambda a, b: a < b, "cmpi_sle": lambda a, b: a <= b,
    "cmpi_sgt": lambda a, b: a > b, "cmpi_sge": lambda a, b: a >= b,
}


# Keys of the Syms for values without semantics: an opaque op's integer result or resource size,
# `stream.tensor.sizeof` of an encoding the check does not lay out.
UNMODELLED = frozenset({"opaque", "opaque-size", "sizeof"})


@dataclass(slots=True)
class Ints:
    """The factory and interner of IntExprs for one refinement check (both programs share it,
    so that `%arg2` of BEFORE and `%arg2` of AFTER are the same Sym)."""

    _syms: dict[tuple[Any, ...], Sym] = field(default_factory=dict)
    _sym_list: list[Sym] = field(default_factory=list)
    _polys: dict[tuple[Any, ...], Poly] = field(default_factory=dict)
    _z3: dict[int, z3.ArithRef] = field(default_factory=dict)
    # Every check builds its formulas in a Z3 context of its own. Z3 keeps state per context:
    # once a query elsewhere in the process (a counterexample's event ordering, say) has run in
    # the shared one, every later check in it was up to 10x slower (a 190-line program refined
    # in 20 s instead of 2 s after one witness search).
    ctx: z3.Context = field(default_factory=z3.Context)

    # -- construction -------------------------------------------------------------------------
    def sym(self, key: tuple[Any, ...], label: str) -> Poly:
        """The polynomial `1 * s` for the Sym named by `key` (created on first use)."""
        s = self._syms.get(key)
        if s is None:
            s = Sym(len(self._sym_list), key, label)
            self._syms[key] = s
            self._sym_list.append(s)
        return self._make({(s.id,): 1}, 0)  # type: ignore[return-value]

    def apply(self, name: str, *args: IntExpr) -> IntExpr:
        """`name(args)`: folded when every argument is known, else an `apply` Sym."""
        if all(type(a) is int for a in args) and name in FOLDS:
            value = FOLDS[name](*args)
            if value is not None:
                return value
        exact = self._exact(name, args)
        if exact is not None:
            return exact
        label = f"{name}(" + ", ".join(self.render(a) for a in args) + ")"
        return self.sym(("apply", name, tuple(args)), label)

    def _exact(self, name: str, args: tuple[IntExpr, ...]) -> IntExpr | None:
        """Folds that hold for every value: `max(x, x) = min(x, x) = x`; a division of a
        polynomial whose coefficients are all multiples of a positive constant divisor is exact
        (`(4*d) / 4 = d`, whatever the rounding); `align(k*x, k) = k*x` for a power of two k."""
        if name in ("minui", "minsi", "maxui", "maxsi") and len(args) == 2 and args[0] is args[1]:
            return args[0]
        if len(args) != 2 or type(args[1]) is not int or args[1] <= 0 or type(args[0]) is int:
            return None
        a, k = args[0], args[1]
        divisible = a.const % k == 0 and all(c % k == 0 for _, c in a.terms)  # type: ignore[union-attr]
        if not divisible:
            return None
        if name in ("divui", "divsi", "floordivsi", "ceildivui", "ceildivsi"):
            return self._make({m: c // k for m, c in a.terms}, a.const // k)  # type: ignore[union-attr]
        if name == "align" and not k & (k - 1):
            return a
        return None

    def _make(self, d: dict[Mono, int], c: int) -> IntExpr:
        items = tuple(sorted((m, k) for m, k in d.items() if k))
        if not items:
            return c
        key = (items, c)
        p = self._polys.get(key)
        if p is None:
            p = Poly(items, c, len(self._polys))
            self._polys[key] = p
        return p

    # -- arithmetic -----------------------------------------------------------------------------
    def add(self, a: IntExpr, b: IntExpr) -> IntExpr:
        if type(a) is int and type(b) is int:
            return a + b  # type: ignore[operator]
        if type(b) is int:
            return self._make(dict(a.terms), a.const + b) if b else a  # type: ignore[union-attr,operator]
        d = dict(_terms(a))
        for m, k in b.terms:  # type: ignore[union-attr]
            d[m] = d.get(m, 0) + k
        return self._make(d, _const(a) + b.const)  # type: ignore[union-attr]

    def neg(self, a: IntExpr) -> IntExpr:
        return self.scale(a, -1)

    def sub(self, a: IntExpr, b: IntExpr) -> IntExpr:
        if type(a) is int and type(b) is int:
            return a - b  # type: ignore[operator]
        return self.add(a, self.scale(b, -1))

    def scale(self, a: IntExpr, k: int) -> IntExpr:
        if type(a) is int:
            return a * k  # type: ignore[operator]
        if k == 1:
            return a
        return self._make({m: c * k for m, c in a.terms}, a.const * k)  # type: ignore[union-attr]

    def mul(self, a: IntExpr, b: IntExpr) -> IntExpr:
        if type(a) is int:
            return self.scale(b, a)  # type: ignore[arg-type]
        if type(b) is int:
            return self.scale(a, b)
        d: dict[Mono, int] = {}
        left = list(a.terms) + [((), a.const)]  # type: ignore[union-attr]
        right = list(b.terms) + [((), b.const)]  # type: ignore[union-attr]
        for m1, k1 in left:
            if not k1:
                continue
            for m2, k2 in right:
                if not k2:
                    continue
                m = tuple(sorted(m1 + m2))
                d[m] = d.get(m, 0) + k1 * k2
        c = d.pop((), 0)
        return self._make(d, c)

    def sum(self, items: Iterable[IntExpr]) -> IntExpr:
        total: IntExpr = 0
        for x in items:
            total = self.add(total, x)
        return total

    def product(self, items: Iterable[IntExpr]) -> IntExpr:
        total: IntExpr = 1
        for x in items:
            total = self.mul(total, x)
        return total

    # -- queries ---------------------------------------------------------------------------------
    def syms_of(self, e: IntExpr) -> list[Sym]:
        ids = sorted({i for m, _ in _terms(e) for i in m})
        return [self._sym_list[i] for i in ids]

    def unmodelled(self, e: IntExpr) -> str | None:
        """The label of an unknown in `e` that stands for a value the check does not model (the
        result of an op without semantics, the size of an encoded tensor), or None. Two values
        that differ only through one are not known to differ."""
        for sym in self.syms_of(e):
            if sym.key and sym.key[0] in UNMODELLED:
                return sym.label
            if sym.key and sym.key[0] == "apply":
                for arg in sym.key[2]:
                    found = self.unmodelled(arg)
                    if found is not None:
                        return found
        return None

    def linear_parts(self, e: IntExpr) -> tuple[tuple[tuple[Sym, int], ...], int] | None:
        """`(((s, k), ...), c)` when `e` is linear (every monomial has one Sym), else None."""
        out = []
        for m, k in _terms(e):
            if len(m) != 1:
                return None
            out.append((self._sym_list[m[0]], k))
        return tuple(out), _const(e)

    # -- rendering and Z3 -----------------------------------------------------------------------
    def render(self, e: IntExpr) -> str:
        if type(e) is int:
            return str(e)
        parts: list[str] = []
        for m, k in e.terms:  # type: ignore[union-attr]
            factors = "*".join(self._sym_list[i].label for i in m)
            if k == 1:
                parts.append(factors)
            elif k == -1:
                parts.append("-" + factors)
            else:
                parts.append(f"{k}*{factors}")
        if e.const:  # type: ignore[union-attr]
            parts.append(str(e.const))  # type: ignore[union-attr]
        text = " + ".join(parts)
        return text.replace("+ -", "- ")

    def z3_sym(self, s: Sym) -> z3.ArithRef:
        ref = self._z3.get(-1 - s.id)
        if ref is None:
            ref = None
            if s.key and s.key[0] == "apply":
                _, name, args = s.key
                ref = _z3_apply(name, [self.to_z3(a) for a in args])
            if ref is None:
                ref = z3.Int(f"s{s.id}", self.ctx)
            self._z3[-1 - s.id] = ref
        return ref

    def to_z3(self, e: IntExpr) -> z3.ArithRef:
        if type(e) is int:
            return z3.IntVal(e, self.ctx)
        ref = self._z3.get(e.id)  # type: ignore[union-attr]
        if ref is None:
            acc: z3.ArithRef = z3.IntVal(e.const, self.ctx)  # type: ignore[union-attr]
            for m, k in e.terms:  # type: ignore[union-attr]
                term: z3.ArithRef = z3.IntVal(k, self.ctx)
                for i in m:
                    term = term * self.z3_sym(self._sym_list[i])
                acc = acc + term
            ref = acc
            self._z3[e.id] = ref  # type: ignore[union-attr]
        return ref

    def model_values(self, model: z3.ModelRef, exprs: Iterable[IntExpr]) -> dict[str, int]:
        """Concrete values of the Syms of `exprs` in a Z3 model (for reports)."""
        out: dict[str, int] = {}
        for e in exprs:
            for s in self.syms_of(e):
                v = model.eval(self.z3_sym(s), model_completion=True)
                if isinstance(v, z3.IntNumRef):
                    out[s.label] = v.as_long()
        return out

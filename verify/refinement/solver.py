"""Deciding facts about symbolic sizes and offsets: syntactic fast paths, then Z3.

`Facts` holds the assumptions of one refinement check (sizes and dims are non-negative, every
access the programs make is in bounds, `end == start + length` for async ranges, pack slices are
disjoint when their lifetimes intersect) and answers questions about `IntExpr`s:

* `le(a, b)` / `eq(a, b)`: True when it holds for every assignment satisfying the facts, False
  when its negation does, None when it depends on the unknowns or Z3 cannot tell;
* `must_*` variants raise `Undecided` instead of returning None, so that a caller that needs an
  answer fails closed (the check reports "unknown", never "equal").

Fast paths never guess: a difference that normalizes to a constant is decided exactly, and a
polynomial whose monomials are all products of unknowns known to be non-negative, with
non-negative coefficients, is non-negative. Everything else goes to Z3 with a deterministic
resource limit (`rlimit`); `unknown` counts as undecided.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import z3

from verify.refinement.ints import IntExpr, Ints, Poly

__all__ = ["Fact", "Facts", "Undecided", "DEFAULT_RLIMIT"]

DEFAULT_RLIMIT = 2_000_000


class Undecided(Exception):
    """A question the refinement check needs answered could not be decided. When the answer
    depends on the unknowns, `split` is the formula to split cases on (the check then runs once
    assuming it and once assuming its negation); when Z3 hit its resource limit, or the question
    is not one the semantics can split on, `split` is None and the check reports unknown."""

    def __init__(self, reason: str, split: z3.BoolRef | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.split = split


Fact = tuple[tuple[object, ...], Callable[[], z3.BoolRef]]


@dataclass(slots=True)
class _Scope:
    asserted: set[tuple[object, ...]]
    nonneg: set[int]
    disjoint: set[tuple[IntExpr, IntExpr, IntExpr, IntExpr]]
    cache: dict[tuple[object, ...], tuple[int, bool | None]]
    added: list[Fact] = field(default_factory=list)


@dataclass(slots=True)
class Facts:
    ints: Ints
    rlimit: int = DEFAULT_RLIMIT
    solver: z3.Solver = field(init=False)
    queries: int = 0
    unknowns: int = 0
    _nonneg_syms: set[int] = field(default_factory=set)
    _asserted: set[tuple[object, ...]] = field(default_factory=set)
    # Facts are built into Z3 formulas only when a query needs the solver (most checks never do).
    _pending: list[Callable[[], z3.BoolRef]] = field(default_factory=list)
    # Pairs of ranges asserted disjoint, looked up before asking Z3 (pack slices).
    _disjoint: set[tuple[IntExpr, IntExpr, IntExpr, IntExpr]] = field(default_factory=set)
    _version: int = 0
    _cache: dict[tuple[object, ...], tuple[int, bool | None]] = field(default_factory=dict)
    # Whether the last undecided answer came from Z3's resource limit (no case split helps).
    last_limited: bool = False
    # Open scopes (innermost last): what each saved on entry, and the facts added inside it.
    _scopes: list[_Scope] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.solver = z3.Solver(ctx=self.ints.ctx)
        self.solver.set("rlimit", self.rlimit)

    # -- assumptions -------------------------------------------------------------------------
    def _add(self, key: tuple[object, ...], make: Callable[[], z3.BoolRef]) -> None:
        if key in self._asserted:
            return
        self._asserted.add(key)
        self._pending.append(make)
        self._version += 1
        if self._scopes:
            self._scopes[-1].added.append((key, make))

    # -- scopes ------------------------------------------------------------------------------
    def begin_scope(self) -> None:
        """Facts added from here to `end_scope` hold only inside (a loop body: what one iteration
        assumes need not hold when the loop runs zero times). Answers given inside are forgotten
        on exit, as they may rest on those facts."""
        self._flush()
        self.solver.push()
        self._scopes.append(_Scope(set(self._asserted), set(self._nonneg_syms), set(self._disjoint), dict(self._cache)))

    def end_scope(self) -> list[Fact]:
        """Leave the innermost scope; the facts it added, for `replay`."""
        scope = self._scopes.pop()
        self._pending.clear()  # added inside the scope (begin_scope flushed the rest)
        self.solver.pop()
        self._asserted, self._nonneg_syms, self._disjoint, self._cache = scope.asserted, scope.nonneg, scope.disjoint, scope.cache
        self._version += 1
        return scope.added

    def open_facts(self) -> list[Fact]:
        """The facts every open scope has added so far, outermost first."""
        return [f for scope in self._scopes for f in scope.added]

    def replay(self, facts: list[Fact]) -> None:
        """Assume facts a scope added (inside another scope, to reason about that iteration)."""
        for key, make in facts:
            # Through the assume_* that made them: they also feed the fast paths.
            if key[0] == "nonneg":
                self.assume_nonneg(key[1])  # type: ignore[arg-type]
            elif key[0] == "disjoint":
                self.assume_disjoint(*key[1:])  # type: ignore[arg-type]
            else:
                self._add(key, make)

    def _flush(self) -> None:
        if self._pending:
            for make in self._pending:
                self.solver.add(make())
            self._pending.clear()

    def assume(self, formula: z3.BoolRef) -> None:
        """An arbitrary assumption (a path condition of a case split)."""
        self._add(("formula", formula.sexpr()), lambda: formula)

    def consistent(self) -> bool | None:
        """Are the facts satisfiable? (None: Z3 cannot tell within its limit.)"""
        self._flush()
        r = self.solver.check()
        return True if r == z3.sat else False if r == z3.unsat else None

    def assume_nonneg(self, e: IntExpr) -> None:
        """`e >= 0` (a size, a dim, an offset)."""
        if type(e) is int:
            return
        parts = self.ints.linear_parts(e)
        if parts is not None and len(parts[0]) == 1 and parts[0][0][1] > 0 and parts[1] <= 0:
            # `k*s + c >= 0` with k > 0, c <= 0 implies s >= 0: remember it for the fast path.
            self._nonneg_syms.add(parts[0][0][0].id)
        self._add(("nonneg", e), lambda: self.ints.to_z3(e) >= 0)

    def assume_le(self, a: IntExpr, b: IntExpr) -> None:
        if type(a) is int and type(b) is int:
            return
        self._add(("le", a, b), lambda: self.ints.to_z3(a) <= self.ints.to_z3(b))

    def assume_eq(self, a: IntExpr, b: IntExpr) -> None:
        if a is b or (type(a) is int and type(b) is int):
            return
        self._add(("eq", a, b), lambda: self.ints.to_z3(a) == self.ints.to_z3(b))

    def assume_disjoint(self, a: IntExpr, n: IntExpr, b: IntExpr, m: IntExpr) -> None:
        """`[a, a+n)` and `[b, b+m)` do not intersect (pack slices live at the same time)."""
        self._disjoint.add((a, n, b, m))
        self._disjoint.add((b, m, a, n))

        def make() -> z3.BoolRef:
            za, zn, zb, zm = (self.ints.to_z3(x) for x in (a, n, b, m))
            return z3.Or(za + zn <= zb, zb + zm <= za)

        self._add(("disjoint", a, n, b, m), make)

    def assume_in_bounds(self, offset: IntExpr, length: IntExpr, size: IntExpr) -> None:
        """An access `[offset, offset+length)` of a resource of `size` bytes is in bounds."""
        self.assume_nonneg(offset)
        self.assume_nonneg(length)
        self.assume_le(self.ints.add(offset, length), size)

    # -- questions -----------------------------------------------------------------------------
    def _fast_sign(self, d: IntExpr) -> bool | None:
        """True if `d >= 0` follows syntactically, False if `d < 0` does, else None."""
        if type(d) is int:
            return d >= 0  # type: ignore[operator]
        assert isinstance(d, Poly)
        nonneg = self._nonneg_syms
        if all(all(i in nonneg for i in m) for m, _ in d.terms):
            if all(k > 0 for _, k in d.terms) and d.const >= 0:
                return True
            if all(k < 0 for _, k in d.terms) and d.const < 0:
                return False
        return None

    def prove(self, claim: z3.BoolRef) -> bool | None:
        """True if the facts imply `claim`, False if they are consistent with its negation,
        None if Z3 answered unknown (resource limit)."""
        self.queries += 1
        self._flush()
        s = self.solver
        s.push()
        try:
            s.add(z3.Not(claim))
            r = s.check()
        finally:
            s.pop()
        if r == z3.unsat:
            return True
        if r == z3.sat:
            return False
        self.unknowns += 1
        return None

    def _decide(self, key: tuple[object, ...], holds: z3.BoolRef, fails: z3.BoolRef) -> bool | None:
        cached = self._cache.get(key)
        if cached is not None and (cached[1] is not None or cached[0] == self._version):
            return cached[1]
        answer: bool | None
        first = self.prove(holds)
        second = None if first else self.prove(fails)
        answer = True if first else False if second else None
        self.last_limited = answer is None and (first is None or second is None)
        if self.last_limited:
            return None  # do not cache a resource-limit answer
        # An answer either way stays valid when facts are added; "it depends" may not.
        self._cache[key] = (self._version, answer)
        return answer

    def le(self, a: IntExpr, b: IntExpr) -> bool | None:
        """Does `a <= b` hold for all (True) / no (False) assignments? None: it depends."""
        d = self.ints.sub(b, a)
        fast = self._fast_sign(d)
        if fast is not None:
            return fast
        z = self.ints.to_z3(d)
        return self._decide(("le", d), z >= 0, z < 0)

    def eq(self, a: IntExpr, b: IntExpr) -> bool | None:
        if a is b:
            return True
        d = self.ints.sub(a, b)
        if type(d) is int:
            return d == 0
        if self._fast_sign(d) is False or self._fast_sign(self.ints.neg(d)) is False:
            return False
        z = self.ints.to_z3(d)
        return self._decide(("eq", d), z == 0, z != 0)

    def disjoint(self, a: IntExpr, n: IntExpr, b: IntExpr, m: IntExpr) -> bool | None:
        """Are `[a, a+n)` and `[b, b+m)` disjoint for all assignments (True), overlapping for all
        (False), or does it depend (None)?"""
        if (a, n, b, m) in self._disjoint:
            return True
        d = self.ints.sub(b, a)
        if type(d) is int and type(n) is int and type(m) is int:
            return d >= n or -d >= m  # type: ignore[operator]  # the offsets differ by a constant
        # One order syntactically: no solver needed. Otherwise ask Z3 for the disjunction itself
        # (it holds whenever one order does, and pack slices are apart only as a disjunction):
        # at most two queries per pair instead of up to six, one pair per earlier write that a
        # read is resolved against.
        if self._fast_sign(self.ints.sub(b, self.ints.add(a, n))) or self._fast_sign(self.ints.sub(a, self.ints.add(b, m))):
            return True
        za, zn, zb, zm = (self.ints.to_z3(x) for x in (a, n, b, m))
        apart = z3.Or(za + zn <= zb, zb + zm <= za)
        return self._decide(("disjoint", a, n, b, m), apart, z3.Not(apart))

    def _undecided(self, text: str, why: str, formula: z3.BoolRef) -> Undecided:
        if self.last_limited:
            return Undecided(f"Z3 reached its resource limit deciding {text} ({why})")
        return Undecided(f"{text} depends on the unknowns ({why})", formula)

    def must_le(self, a: IntExpr, b: IntExpr, why: str) -> bool:
        self.last_limited = False
        r = self.le(a, b)
        if r is None:
            text = f"{self.ints.render(a)} <= {self.ints.render(b)}"
            raise self._undecided(text, why, self.ints.to_z3(a) <= self.ints.to_z3(b))
        return r

    def must_eq(self, a: IntExpr, b: IntExpr, why: str) -> bool:
        self.last_limited = False
        r = self.eq(a, b)
        if r is None:
            text = f"{self.ints.render(a)} == {self.ints.render(b)}"
            raise self._undecided(text, why, self.ints.to_z3(a) == self.ints.to_z3(b))
        return r

    def compare(self, a: IntExpr, b: IntExpr, why: str) -> int:
        """-1, 0 or 1 as `a <, ==, > b` for every assignment; Undecided otherwise."""
        if a is b:
            return 0
        d = self.ints.sub(a, b)
        if type(d) is int:
            return (d > 0) - (d < 0)  # type: ignore[operator]
        self.last_limited = False
        same = self.eq(a, b)
        limited = self.last_limited
        if same is True:
            return 0
        if self.le(self.ints.add(a, 1), b) is True:
            return -1
        limited = limited or self.last_limited
        if self.le(self.ints.add(b, 1), a) is True:
            return 1
        self.last_limited = limited or self.last_limited
        za, zb = self.ints.to_z3(a), self.ints.to_z3(b)
        if same is None:
            text = f"{self.ints.render(a)} == {self.ints.render(b)}"
            raise self._undecided(text, why, za == zb)
        text = f"{self.ints.render(a)} < {self.ints.render(b)}"
        raise self._undecided(text, why, za < zb)

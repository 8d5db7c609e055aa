"""Symbolic index values (verify.symbolic): affine folding, facts, and the pack contract."""

from __future__ import annotations

import z3
from conftest import parse

from stream.ir.walk import functions
from verify.storage import analyze_storage
from verify.symbolic import Expr, const


def test_affine_arithmetic_folds_and_cancels() -> None:
    a = Expr(0, ((0, 1),))
    b = Expr(0, ((1, 1),))
    e = a.scale(3) + b + 5 - a - a - a
    assert e == b + 5 and not e.is_const
    assert (e - b).is_const and (e - b).value == 5
    assert const(0) == Expr() and hash(a + b) == hash(b + a)


SIZES = """
util.func public @f(%a: index, %b: index) -> index {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %s = arith.addi %a, %c64 : index
  %d = arith.subi %s, %b : index
  %p = arith.muli %a, %b : index
  %q = arith.divui %a, %c3 : index
  %k = arith.muli %c2, %c3 : index
  %r = arith.remui %a, %c64 : index
  util.return %d : index
}
"""


def test_evaluators_and_their_facts() -> None:
    module = parse(SIZES)
    func = functions(module)[0]
    s = analyze_storage(func, module).symbols
    ops = {op.results[0].name_hint: op.results[0] for op in func.body.ops if op.results}
    a, b = (s.expr(v) for v in func.arguments)
    assert s.expr(ops["s"]) == a + 64
    assert s.expr(ops["k"]).value == 6
    d, p, q, r = (s.expr(ops[k]) for k in "dpqr")
    # Each fact pins its atom: d = a + 64 - b >= 0, p = a*b, 3q <= a < 3q + 3, r < 64.
    solver = z3.Solver(ctx=s.ctx)  # the function's own Z3 context
    facts, nonlinear = s.assumptions([d, p, q, r])
    assert nonlinear  # the product of two unknowns
    solver.add(*facts)
    solver.add(s.z3(a) == 10, s.z3(b) == 7)
    assert solver.check() == z3.sat
    m = solver.model()
    values = {n: m.eval(s.z3(e)).as_long() for n, e in zip("dpqr", (d, p, q, r))}
    assert values == {"d": 67, "p": 70, "q": 3, "r": values["r"]} and values["r"] < 64
    solver.add(s.z3(d) > 100)  # d is exactly a + 64 - b = 67
    assert solver.check() == z3.unsat


PACK = """
util.func public @pack(%n: index) -> index {
  %c64 = arith.constant 64 : index
  %p:4 = stream.resource.pack on(#hal.device.affinity<@dev0>) slices({
    [0, 1] = %c64,
    [1, 2] = %n,
    [3, 4] = %c64
  }) : index
  util.return %p#0 : index
}
"""


def test_pack_contract_separates_live_slices_only() -> None:
    module = parse(PACK)
    func = functions(module)[0]
    s = analyze_storage(func, module).symbols
    pack = func.body.ops[1]
    total, o0, o1, o2 = (s.expr(r) for r in pack.results)
    n = s.expr(func.arguments[0])

    def can(*constraints: z3.BoolRef) -> bool:
        solver = z3.Solver(ctx=s.ctx)
        solver.add(*s.assumptions([total, o0, o1, o2, n])[0], *constraints)
        return solver.check() == z3.sat

    overlap = lambda x, sx, y, sy: z3.And(s.z3(x) < s.z3(y) + sy, s.z3(y) < s.z3(x) + sx)  # noqa: E731
    assert can()  # the contract is consistent
    assert not can(s.z3(n) > 0, overlap(o0, 64, o1, s.z3(n)))  # [0,1] and [1,2] live together
    assert can(overlap(o0, 64, o2, 64))  # [0,1] and [3,4] never live together: may alias
    assert not can(s.z3(o2) + 64 > s.z3(total))  # every slice fits in the total


def test_canonical_keys_are_equal_exactly_for_renamed_queries() -> None:
    # Queries are solved once per canonical key, so equal keys must mean "the same query up to
    # renaming atoms", facts included; the facts' part of the key is cached per closure.
    from verify.symbolic import Symbols

    s = Symbols()
    a, b, c, d, x = (s.fresh("argument") for _ in range(5))
    s.fact((a, b), lambda sy: sy.z3(a) < sy.z3(b), kind="lt")
    s.fact((c, d), lambda sy: sy.z3(c) < sy.z3(d), kind="lt")
    s.fact((d, c), lambda sy: sy.z3(d) < sy.z3(c), kind="lt")  # c's facts differ from a's
    k_ab = s.canonical([(b - a,)])
    assert k_ab == s.canonical([(b - a,)])  # cached closure, same key
    assert k_ab != s.canonical([(d - c,)])  # c < d and d < c: not a renaming of a < b
    assert k_ab != s.canonical([(a - b,)])  # the reversed difference
    assert s.canonical([(x + 1,)]) != k_ab
    t = Symbols()
    p, q = t.fresh("argument"), t.fresh("argument")
    t.fact((p, q), lambda sy: sy.z3(p) < sy.z3(q), kind="lt")
    assert t.canonical([(q - p,)]) == k_ab  # the same query over other atoms
    # Adding a fact changes closures: cached components are dropped.
    s.fact((b, x), lambda sy: sy.z3(b) < sy.z3(x), kind="lt")
    assert s.canonical([(b - a,)]) != k_ab
    atoms, facts = s.closure([b - a])
    assert atoms == {a.terms[0][0], b.terms[0][0], x.terms[0][0]} and len(facts) == 2

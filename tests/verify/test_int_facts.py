"""Facts from util, hal and cf ops (verify.int_facts): util.align, util.assume.int, arith.cmpi,
cf.assert, hal.buffer_view.dim/assert. The corpus programs cmd_align_*, cmd_assume_*,
cmd_assert_* and cmd_buffer_view_shape_ok need each fact (they fail without it)."""

from __future__ import annotations

import pytest
import z3
from conftest import CORPUS, check, parse

from stream.ir.walk import functions
from verify.int_facts import align_up, parse_assumption
from verify.storage import analyze_storage
from verify.symbolic import EVALUATORS, Expr, Symbols


def _symbols(text: str) -> tuple[Symbols, dict[str, Expr]]:
    module = parse(text)
    func = functions(module)[0]
    s = analyze_storage(func, module).symbols
    named = {r.name_hint: s.expr(r) for op in func.op.walk() for r in op.results if r.name_hint}
    named.update({a.name_hint: s.expr(a) for a in func.arguments if a.name_hint})
    return s, named


def _always(s: Symbols, claim: z3.BoolRef, *exprs: Expr) -> bool:
    """Does `claim` hold under the facts the expressions depend on?"""
    solver = z3.Solver(ctx=s.ctx)
    solver.add(*s.assumptions(exprs)[0], z3.Not(claim))
    return solver.check() == z3.unsat


ALIGN = """
util.func public @f(%n: index, %m: index) -> index {
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %c48 = arith.constant 48 : index
  %folded = "util.align"(%c100, %c64) : (index, index) -> index
  %up = "util.align"(%n, %c64) : (index, index) -> index
  %any = "util.align"(%n, %m) : (index, index) -> index
  %odd = "util.align"(%n, %c48) : (index, index) -> index
  util.return %up : index
}
"""


def test_align_folds_and_rounds_up_to_a_multiple() -> None:
    assert [align_up(v, 64) for v in (0, 1, 64, 65, 100)] == [0, 64, 64, 128, 128]
    s, e = _symbols(ALIGN)
    assert e["folded"].value == 128
    n, up = s.z3(e["n"]), s.z3(e["up"])
    assert _always(s, z3.And(up >= n, up < n + 64, up % 64 == 0), e["up"], e["n"])
    assert not _always(s, up > n, e["up"], e["n"])  # n itself when n is a multiple of 64


def test_align_to_an_unknown_or_odd_alignment_assumes_nothing() -> None:
    s, e = _symbols(ALIGN)
    for name in ("any", "odd"):
        assert not s.assumptions([e[name]])[0][1:], f"{name}: only its non-negativity"
        assert not _always(s, s.z3(e[name]) >= s.z3(e["n"]), e[name], e["n"])


def test_assumption_attributes() -> None:
    from stream.ir.attributes import OpaqueAttr

    assert parse_assumption(OpaqueAttr("#util.int.assumption<umin = 1, umax = 9, udiv = 4>")) == {"umin": 1, "umax": 9, "udiv": 4}
    assert parse_assumption(OpaqueAttr("#util.int.assumption<udiv = 64>")) == {"udiv": 64}
    assert parse_assumption(OpaqueAttr("#other<udiv = 64>")) is None


ASSUME = """
util.func public @f(%x: index, %y: index, %z: index) -> index {
  %a = "util.assume.int"(%x) <{assumptions = [[#util.int.assumption<umin = 1, udiv = 64>]]}> : (index) -> index
  %b, %c = "util.assume.int"(%y, %z) <{assumptions = [[#util.int.assumption<umin = 8, umax = 8>], [#util.int.assumption<umin = 0, umax = 0>, #util.int.assumption<umin = 3, umax = 3>]]}> : (index, index) -> (index, index)
  util.return %a : index
}
"""


def test_assume_int_ranges_divisibility_and_broadcast_alternatives() -> None:
    s, e = _symbols(ASSUME)
    assert e["a"] == e["x"]  # the result is its operand, with the facts attached
    assert _always(s, s.z3(e["a"]) >= 64, e["a"])  # umin = 1 and a multiple of 64
    b, c = s.z3(e["b"]), s.z3(e["c"])
    # %y's single assumption applies to both alternatives of %z.
    assert _always(s, z3.And(b == 8, z3.Or(c == 0, c == 3)), e["b"], e["c"])
    assert not _always(s, c == 0, e["b"], e["c"])


def test_alternatives_are_joint_not_a_per_operand_union() -> None:
    assert check((CORPUS / "cmd_assume_alternatives_ok.mlir").read_text()).status == "proved"
    r = check((CORPUS / "cmd_assume_alternatives_race.mlir").read_text())
    assert {v.cls for v in r.violations} == {"RACE_WRITE_AFTER_WRITE"}
    assert "%x = 32, %y = 0" in r.text()  # the one alternative where they overlap


CHECKS = """
util.func public @f(%n: index, %m: index) -> index {
  %c4 = arith.constant 4 : index
  %c0 = arith.constant 0 : index
  %k = "arith.cmpi"(%c4, %c0) <{predicate = 8 : i64}> : (index, index) -> i1
  %gt = "arith.cmpi"(%n, %c4) <{predicate = 4 : i64}> : (index, index) -> i1
  "cf.assert"(%gt) <{msg = "n > 4"}> : (i1) -> ()
  %eq = "arith.cmpi"(%n, %m) <{predicate = 0 : i64}> : (index, index) -> i1
  "cf.assert"(%eq) <{msg = "n == m"}> : (i1) -> ()
  util.return %n : index
}
"""


def test_cmpi_folds_and_asserts_guard_what_follows() -> None:
    s, e = _symbols(CHECKS)
    assert e["k"].value == 1
    assert [where for where, _ in s.guards] == [4, 6]  # the two cf.assert ops' positions
    assert s.guard_before(4) is None  # nothing before the first check may assume it
    first, second = (g for _, g in s.guards)
    assert s.guard_before(5) == first and s.guard_before(7) == second
    n, m = s.z3(e["n"]), s.z3(e["m"])
    g1, g2 = s.z3(first), s.z3(second)
    assert _always(s, z3.Implies(g1 > 0, n > 4), e["n"], first)
    assert not _always(s, n > 4, e["n"], first)  # unguarded, the check may fail
    # Passing the second check means the first passed too.
    assert _always(s, z3.Implies(g2 > 0, z3.And(n > 4, m == n)), e["n"], e["m"], second)
    assert not _always(s, z3.Implies(g1 > 0, m == n), e["n"], e["m"], first)


def test_a_check_covers_only_work_issued_after_it() -> None:
    assert check((CORPUS / "cmd_assert_before_ok.mlir").read_text()).status == "proved"
    r = check((CORPUS / "cmd_assert_after_race.mlir").read_text())
    assert {v.cls for v in r.violations} == {"RACE_WRITE_AFTER_WRITE"}
    assert check((CORPUS / "cmd_assert_before_ok.mlir").read_text(), smt="full").status == "proved"


def test_cf_assert_is_a_straight_line_check_not_control_flow() -> None:
    r = check((CORPUS / "cmd_assert_before_ok.mlir").read_text())
    assert r.status == "proved" and not r.unknowns


def test_buffer_view_dims_are_one_value_and_equal_the_asserted_shape() -> None:
    text = (CORPUS / "cmd_buffer_view_shape_ok.mlir").read_text()
    assert check(text).status == "proved"
    # The shape check after the work: the dim is unknown when the writes are issued.
    lines = text.splitlines()
    moved = [ln for ln in lines if "hal.buffer_view.assert" not in ln]
    at = next(i for i, ln in enumerate(moved) if "stream.timepoint.await" in ln)
    moved.insert(at, next(ln for ln in lines if "hal.buffer_view.assert" in ln))
    r = check("\n".join(moved))
    assert {v.cls for v in r.violations} == {"RACE_WRITE_AFTER_WRITE", "OUT_OF_BOUNDS"}
    # A second dim op of the same view and index is the same value.
    s, e = _symbols("""
util.func public @f(%v: !hal.buffer_view) -> index {
  %a = "hal.buffer_view.dim"(%v) <{index = 0 : index}> : (!hal.buffer_view) -> index
  %b = "hal.buffer_view.dim"(%v) <{index = 0 : index}> : (!hal.buffer_view) -> index
  %c = "hal.buffer_view.dim"(%v) <{index = 1 : index}> : (!hal.buffer_view) -> index
  util.return %a : index
}
""")
    assert e["a"] == e["b"] and e["a"] != e["c"]


@pytest.mark.parametrize("op", ["util.align", "util.assume.int", "cf.assert", "hal.buffer_view.assert"])
def test_each_corpus_program_needs_its_fact(op: str) -> None:
    """Without the op's evaluator the program that relies on it is no longer proved."""
    program = {"util.align": "cmd_align_slab_ok", "util.assume.int": "cmd_assume_alternatives_ok",
               "cf.assert": "cmd_assert_before_ok", "hal.buffer_view.assert": "cmd_buffer_view_shape_ok"}[op]
    text = (CORPUS / f"{program}.mlir").read_text()
    assert check(text).status == "proved"
    rule = dict.pop(EVALUATORS, op)
    try:
        assert check(text).status != "proved"
    finally:
        dict.__setitem__(EVALUATORS, op, rule)

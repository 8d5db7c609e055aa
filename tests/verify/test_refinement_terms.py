"""Unit tests of the refinement check's building blocks: polynomials, the solver's decisions,
hash-consed byte strings and cmd-level memory."""

from __future__ import annotations

import pytest
import z3

from verify.refinement.ints import Ints
from verify.refinement.memory import Allocation, Memory
from verify.refinement.solver import Facts, Undecided
from verify.refinement.terms import Terms


@pytest.fixture()
def env() -> tuple[Ints, Facts, Terms]:
    ints = Ints()
    facts = Facts(ints)
    return ints, facts, Terms(ints, facts)


# -- polynomials -------------------------------------------------------------------------------------
def test_polynomial_normal_form_is_unique(env: tuple[Ints, Facts, Terms]) -> None:
    ints, _, _ = env
    n = ints.sym(("arg", 0), "%n")
    m = ints.sym(("arg", 1), "%m")
    # (n + 1) * (m + 2) spelled two ways is one object.
    a = ints.mul(ints.add(n, 1), ints.add(m, 2))
    b = ints.add(ints.add(ints.mul(n, m), ints.scale(n, 2)), ints.add(m, 2))
    assert a is b
    assert ints.sub(a, b) == 0
    # The size a tensor type implies and the size an async program computes meet.
    assert ints.mul(ints.mul(n, 64), 4) is ints.mul(n, 256)


def test_constants_fold_and_unknown_ops_stay_symbolic(env: tuple[Ints, Facts, Terms]) -> None:
    ints, _, _ = env
    assert ints.apply("divui", 100, 8) == 12
    assert ints.apply("ceildivui", 100, 8) == 13
    n = ints.sym(("arg", 0), "%n")
    q = ints.apply("divui", n, 8)
    assert q is ints.apply("divui", n, 8)  # one Sym per (op, operands)
    assert ints.render(ints.add(ints.scale(n, 64), 512)) == "64*%n + 512"


# -- decisions -----------------------------------------------------------------------------------------
def test_decisions_use_facts_and_fail_closed(env: tuple[Ints, Facts, Terms]) -> None:
    ints, facts, _ = env
    n = ints.sym(("arg", 0), "%n")
    assert facts.le(3, 5) is True and facts.le(5, 3) is False
    assert facts.le(0, n) is None  # nothing known about %n yet
    with pytest.raises(Undecided) as e:
        facts.must_le(0, n, "test")
    assert e.value.split is not None  # it depends on %n: split cases
    facts.assume_nonneg(n)
    assert facts.le(0, n) is True
    assert facts.le(n, ints.add(n, 1)) is True
    assert facts.eq(ints.scale(n, 2), ints.add(n, n)) is True
    facts.assume_le(ints.add(n, 16), 64)
    assert facts.le(n, 48) is True and facts.le(n, 47) is None


def test_pack_disjointness_is_a_disjunction(env: tuple[Ints, Facts, Terms]) -> None:
    ints, facts, _ = env
    a = ints.sym(("pack", 0), "o0")
    b = ints.sym(("pack", 1), "o1")
    facts.assume_nonneg(a)
    facts.assume_nonneg(b)
    assert facts.disjoint(a, 16, b, 16) is None
    facts.assume_disjoint(a, 16, b, 16)
    # Neither order is known, yet the ranges are disjoint.
    assert facts.le(ints.add(a, 16), b) is None
    assert facts.disjoint(a, 16, b, 16) is True
    assert facts.disjoint(a, 8, ints.add(b, 4), 8) is True
    assert facts.disjoint(a, 32, b, 16) is None


def test_a_disjointness_question_costs_one_query_per_answer(env: tuple[Ints, Facts, Terms]) -> None:
    # Each read is resolved against every earlier write of its allocation, one `disjoint` per
    # pair: asking each order first (two queries each) made that up to six Z3 checks a pair, and
    # a 130-line random program took 15 s to refine instead of 0.7 s.
    ints, facts, _ = env
    x, y = ints.sym(("arg", 0), "%x"), ints.sym(("arg", 1), "%y")
    facts.assume(z3.Or(ints.to_z3(ints.add(x, 4)) <= ints.to_z3(y), ints.to_z3(ints.add(y, 4)) <= ints.to_z3(x)))
    assert facts.disjoint(x, 4, y, 4) is True and facts.queries == 1  # apart, in no fixed order
    assert facts.disjoint(x, 4, ints.add(x, 4), 4) is True and facts.queries == 1  # one order syntactically
    before = facts.queries
    assert facts.disjoint(x, 8, y, 8) is None and facts.queries == before + 2  # it depends: both ways asked


def test_resource_limit_is_unknown_not_proved(env: tuple[Ints, Facts, Terms]) -> None:
    ints, _, _ = env
    facts = Facts(ints, rlimit=1)
    x, y = ints.sym(("arg", 0), "%x"), ints.sym(("arg", 1), "%y")
    facts.assume(ints.to_z3(ints.add(ints.mul(ints.mul(x, x), x), ints.mul(ints.mul(y, y), y))) == 1729)
    with pytest.raises(Undecided) as e:
        facts.must_le(ints.mul(x, y), 100, "test")
    assert e.value.split is None and "resource limit" in e.value.reason


# -- byte strings ----------------------------------------------------------------------------------------
def test_slices_compose_and_update_then_read(env: tuple[Ints, Facts, Terms]) -> None:
    _, _, t = env
    x = t.of(t.arg(0), 64)
    assert t.slice(t.slice(x, 16, 32), 8, 8) is t.slice(x, 24, 8)
    u = t.of(t.arg(1), 16)
    y = t.overwrite(x, 16, u)
    # Bytes outside the written range are the old ones, inside the new ones.
    assert t.slice(y, 0, 16) is t.slice(x, 0, 16)
    assert t.slice(y, 16, 16) is u
    assert t.slice(y, 32, 32) is t.slice(x, 32, 32)
    # A full overwrite hides the old contents; writing the old bytes back restores the value.
    assert t.overwrite(x, 0, t.of(t.arg(2), 64)) is t.of(t.arg(2), 64)
    assert t.overwrite(y, 16, t.slice(x, 16, 16)) is x


def test_splats_are_normalized_to_their_period(env: tuple[Ints, Facts, Terms]) -> None:
    _, _, t = env
    zeros32 = t.splat(b"\x00\x00\x00\x00")
    zeros8 = t.splat(b"\x00")
    assert zeros32 is zeros8
    one = t.splat(b"\x00\x00\x80\x3f")  # 1.0f
    a = t.of(one, 64)
    assert t.slice(a, 8, 16) is t.slice(a, 0, 16)  # offsets modulo the period
    assert t.slice(a, 2, 4) is not t.slice(a, 0, 4)
    # Two fills of the same pattern side by side are one fill.
    assert t.concat([t.of(one, 8), t.of(one, 8)]) is t.of(one, 16)
    # A constant that repeats a short pattern is that splat.
    assert t.const(b"\x00\x00\x80\x3f" * 4) is one


def test_symbolic_slices_need_decisions(env: tuple[Ints, Facts, Terms]) -> None:
    ints, facts, t = env
    k = ints.sym(("arg", 0), "%k")
    facts.assume_nonneg(k)
    facts.assume_le(ints.add(k, 16), 64)
    x = t.of(t.arg(0), 64)
    y = t.overwrite(x, k, t.of(t.arg(1), 16))  # a single segment is split without questions
    assert len(y.segs) == 3
    assert t.slice(y, k, 16) is t.of(t.arg(1), 16)
    with pytest.raises(Undecided):
        t.slice(y, 0, 16)  # whether [0, 16) meets the update depends on %k


# -- memory ------------------------------------------------------------------------------------------------
def _alloc(t: Terms, size: int) -> Allocation:
    return Allocation(0, "alloca", "test", None, size, t.of(t.uninit("before", ("a",), "a"), size))


def test_concrete_writes_trim_and_reads_assemble(env: tuple[Ints, Facts, Terms]) -> None:
    _, facts, t = env
    mem = Memory(t, facts)
    a = _alloc(t, 64)
    p, q = t.of(t.arg(0), 32), t.of(t.arg(1), 16)
    mem.write(a, 0, p, None)
    mem.write(a, 8, q, None)
    assert mem.read(a, 8, 16) is q
    assert mem.read(a, 0, 32) is t.concat([t.slice(p, 0, 8), q, t.slice(p, 24, 8)])
    pieces = mem.read_traced(a, 24, 16)
    assert [(x.lo, x.hi) for x in pieces] == [(24, 32), (32, 40)]
    assert pieces[1].data is t.slice(a.base, 32, 8)  # never written: the initial contents
    mem.write(a, 0, t.of(t.arg(2), 64), None)
    assert mem.read(a, 8, 16) is t.of(t.arg(2), 16, 8)


def test_symbolic_writes_to_disjoint_pack_slices(env: tuple[Ints, Facts, Terms]) -> None:
    ints, facts, t = env
    mem = Memory(t, facts)
    o0, o1 = ints.sym(("pack", 0), "o0"), ints.sym(("pack", 1), "o1")
    total = ints.sym(("pack", "t"), "total")
    for o in (o0, o1):
        facts.assume_nonneg(o)
        facts.assume_le(ints.add(o, 16), total)
    facts.assume_disjoint(o0, 16, o1, 16)
    a = Allocation(0, "alloca", "slab", None, total, t.of(t.uninit("after", ("slab",), "slab"), total))
    x, y = t.of(t.arg(0), 16), t.of(t.arg(1), 16)
    mem.write(a, o0, x, None)
    mem.write(a, o1, y, None)
    assert mem.read(a, o0, 16) is x  # the later write to the other slice is provably elsewhere
    assert mem.read(a, o1, 16) is y


def test_overlap_that_depends_on_the_inputs_is_undecided(env: tuple[Ints, Facts, Terms]) -> None:
    ints, facts, t = env
    mem = Memory(t, facts)
    k = ints.sym(("arg", 0), "%k")
    facts.assume_nonneg(k)
    facts.assume_le(ints.add(k, 16), 64)
    a = _alloc(t, 64)
    mem.write(a, k, t.of(t.arg(1), 16), None)
    with pytest.raises(Undecided) as e:
        mem.read(a, 0, 16)
    assert isinstance(e.value.split, z3.BoolRef)

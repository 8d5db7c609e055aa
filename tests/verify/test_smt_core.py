"""Queries over a nonlinear closure are asked first under its core (`Symbols.core`): the facts
reachable from the query, a pack's layout only for the slices it reaches. A 12-layer transformer's
stage 07 (49 packs sharing size atoms) took 146 s with every query re-asserting every pack's
layout, 5 s with the core. A proof under fewer facts is a proof; a query the core leaves
satisfiable is asked again under the whole closure, so no verdict changes."""

from __future__ import annotations

import pytest
import z3
from conftest import parse
from test_smt import NONLINEAR

import verify.discharge as discharge
from stream.ir.walk import functions
from verify.discharge import Decider
from verify.hb import HappensBefore
from verify.model import FunctionModel, build_model
from verify.obligations import Obligation
from verify.symbolic import Expr, Symbols, _pack_bound_fact, _pack_disjoint_fact, _product_fact

SLICES = 12


def _packed() -> tuple[FunctionModel, Expr, Expr, list[Expr]]:
    """The model of NONLINEAR with a pack of SLICES slices of `w*w` bytes each added to its symbols."""
    module = parse(NONLINEAR, "area.mlir")
    (func,) = functions(module)
    model = build_model(func, module)
    s: Symbols = model.symbols
    w = s.expr(func.arguments[0])
    size = s.fresh("product")
    s.fact((size, w, w), _product_fact(size, w, w), nonlinear=True, kind="mul")
    total = s.fresh("pack_total")
    zero = Expr()
    offsets = [s.fresh("pack_offset") for _ in range(SLICES)]
    for i, o in enumerate(offsets):
        s.fact((o, size, zero, total), _pack_bound_fact(o, size, zero, total), kind="pack_bound")
        for j in range(i):
            s.fact((o, size, offsets[j], size), _pack_disjoint_fact(o, size, offsets[j], size), kind="pack_disjoint")
    return model, size, total, offsets


def _kinds(s: Symbols, facts: tuple[int, ...]) -> list[str]:
    return sorted((s.facts[i].shape or ("?", ()))[0] for i in facts)


def test_core_keeps_the_layout_of_the_slices_the_query_reaches() -> None:
    model, size, total, offsets = _packed()
    s = model.symbols
    query = [offsets[0] + size - total]
    # NONLINEAR's own two products (w*h, then times w) share `w` with the slice size: in the
    # closure, not in the core (they define atoms the query does not reach, from `w`).
    assert len(s.closure(query)[1]) == 3 + SLICES + SLICES * (SLICES - 1) // 2
    assert _kinds(s, s.core(query)[1]) == ["mul", "pack_bound"]
    pair = [offsets[3] - offsets[5]]
    assert _kinds(s, s.core(pair)[1]) == ["mul", "pack_bound", "pack_bound", "pack_disjoint"]
    # A product is reached from what it defines: the program's size reaches both of its own.
    program_size = model.storage.symbols.expr(model.func.op.regions[0].blocks[0].ops[3].results[0])
    assert _kinds(s, s.core([program_size])[1]) == ["mul", "mul"]


def _decide(model: FunctionModel, cond: tuple[tuple[Expr, ...], ...]) -> str:
    decider = Decider(model, HappensBefore(model.graph))
    return decider.decide(Obligation("OUT_OF_BOUNDS", "range", cond=cond)).status


def test_a_proof_under_the_core_asserts_only_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    model, size, total, offsets = _packed()
    sizes: list[int] = []
    check = discharge.Decider._check

    def counting(self: Decider, ob: Obligation, solver: z3.Solver, *args: object) -> object:
        sizes.append(len(solver.assertions()))
        return check(self, ob, solver, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(discharge.Decider, "_check", counting)
    # Slice 0 ends within the pack: from its own bound and the product.
    assert _decide(model, ((offsets[0] + size - total,),)) == "proved"
    assert len(sizes) == 1 and sizes[0] < 12  # the whole closure: 81 facts over 17 atoms


def test_a_query_the_core_leaves_open_is_asked_under_the_whole_closure() -> None:
    model, size, total, offsets = _packed()
    # size > total is impossible only through some slice's bound, which the query does not reach.
    assert _decide(model, ((size - total,),)) == "proved"
    # Two disjoint slices of `size` bytes fit in the pack only if total >= 2 * size: needs a
    # disjointness fact, none of which the core holds.
    assert _decide(model, ((size.scale(2) - total, size),)) == "proved"
    # Satisfiable under every fact: still violated.
    assert _decide(model, ((offsets[0] + size - total + 1,),)) == "violated"


def test_conditions_equal_under_their_cores_are_proved_once(monkeypatch: pytest.MonkeyPatch) -> None:
    model, size, total, offsets = _packed()
    calls: list[int] = []
    check = discharge.Decider._check

    def counting(self: Decider, ob: Obligation, solver: z3.Solver, *args: object) -> object:
        calls.append(1)
        return check(self, ob, solver, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(discharge.Decider, "_check", counting)
    decider = Decider(model, HappensBefore(model.graph))
    for o in offsets:  # every slice ends within the pack: one question up to renaming
        assert decider.decide(Obligation("OUT_OF_BOUNDS", "range", cond=((o + size - total,),))).status == "proved"
    assert len(calls) == 1

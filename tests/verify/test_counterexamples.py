"""Counterexamples are real executions.

For every violation of the corpus with a witness: replaying `witness.order` respects every edge
of the event graph (each event comes after all of its predecessors, and the order is closed
under predecessors), and the bad thing happens in it: for a race both ops are running at once,
for a missed ordering the second op starts before the first one ends. Symbolic sizes in the
counterexample really make the program fail.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, check, parse

from verify import verify_module
from verify.events import Site

PROGRAMS = sorted(CORPUS.glob("*.mlir"))


def _position(order: list[int]) -> dict[int, int]:
    return {e: i for i, e in enumerate(order)}


def _running_together(pos: dict[int, int], a: Site, b: Site) -> bool:
    """Both have started and neither has ended before the other started."""
    if a.start not in pos or b.start not in pos:
        return False
    a_end, b_end = pos.get(a.end, len(pos)), pos.get(b.end, len(pos))
    return pos[a.start] < b_end and pos[b.start] < a_end


def _not_separated(pos: dict[int, int], groups: tuple[tuple[Any, ...], tuple[Any, ...]]) -> bool:
    """Neither slice's uses all end before the other's start in this order: some use of slice j
    starts before a use of slice i ends, and some use of i starts before a use of j ends."""
    def starts_before_end(us: tuple[Any, ...], them: tuple[Any, ...]) -> bool:
        return any(u.site.start in pos and pos[u.site.start] < pos.get(t.site.end, len(pos)) for u in us for t in them)
    xs, ys = groups
    return starts_before_end(xs, ys) and starts_before_end(ys, xs)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_witness_replays_against_every_edge(path: Path) -> None:
    report = verify_module(parse(path.read_text(), str(path)))
    for v in report.violations:
        if v.witness is None:
            continue
        model, ob = v.evidence
        graph = model.graph
        order = v.witness.order
        pos = _position(order)
        assert len(pos) == len(order), "an event occurs twice"
        preds = graph.preds()
        for e in order:
            for edge in preds[e]:
                u = graph.src[edge]
                assert u in pos and pos[u] < pos[e], f"{path.name}: event {e} runs before its predecessor {u} ({graph.why[edge]})"
        a, b = ob.first, ob.second
        if ob.shape == "conflict" and a is not b:
            assert _running_together(pos, a, b)
        elif ob.shape in ("order", "order_if_overlap") and a is not None and b is not None:
            assert pos[b.start] < pos.get(a.end, len(pos)), "the second op must start before the first one ends"
        elif ob.shape == "order_any":
            assert all(pos[t.start] < pos.get(a.end, len(pos)) for t in ob.targets)
        elif ob.shape == "pack":
            assert _not_separated(pos, ob.groups), f"{path.name}: the witness separates the two slices' uses"
        # Every printed step is an event of the order, in the same relative order.
        shown = [s[0] for s in v.lanes if s[0] >= 0]
        assert [pos[e] for e in shown] == sorted(pos[e] for e in shown)


def test_racy_only_for_some_sizes_gives_such_sizes() -> None:
    report = verify_module(parse((CORPUS / "cmd_symbolic_racy.mlir").read_text()))
    (v,) = report.violations
    a, b = v.symbols["%a"], v.symbols["%b"]
    assert a > b  # [0, a) and [b, b + 64) intersect exactly when a > b
    lo, hi = v.bytes
    assert 0 <= lo < hi and lo >= b and hi <= a


def test_safe_for_all_sizes_is_a_z3_proof() -> None:
    report = verify_module(parse((CORPUS / "cmd_symbolic_safe.mlir").read_text()))
    assert report.ok and report.stats.by_z3 >= 1


def test_out_of_bounds_values_really_overflow() -> None:
    report = verify_module(parse((CORPUS / "cmd_oob_symbolic.mlir").read_text()))
    (v,) = report.violations
    assert v.symbols["%off"] + 64 > 256


def test_text_witness_shows_the_reader_first_for_a_race() -> None:
    report = verify_module(parse((CORPUS / "cmd_concurrent_raw.mlir").read_text()))
    (v,) = report.violations
    verbs = [(step[2], step[3]) for step in v.lanes]
    assert verbs.index(("start", "dispatch @consume")) < verbs.index(("start", "dispatch @produce"))
    assert v.lanes[0][1:4] == ("host", "issue", "execute #1")


def test_witness_budget_limits_expensive_counterexamples() -> None:
    text = (CORPUS / "cmd_early_dealloca.mlir").read_text()
    full = check(text)
    none = check(text, witnesses=0)
    assert [v.cls for v in full.violations] == [v.cls for v in none.violations]
    assert all(v.witness is not None for v in full.violations) and all(v.witness is None for v in none.violations)

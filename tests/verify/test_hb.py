"""The happens-before engine (verify.hb) against brute-force path search on the event graph.

`before(a, b)` must equal "a path from a's end to b's start exists", for every pair of sites of
every program in the corpus and in IREE's dumps, in vector-clock mode and in search mode; on
random unit graphs, unit reachability must equal breadth-first search.
"""

from __future__ import annotations

import itertools
import random
import sys
from collections import deque
from pathlib import Path

import pytest
from conftest import CORPUS, IREE, ROOT, parse

import verify.hb as hb_module
from stream.ir.walk import Function, functions
from verify.cfg import lower_loops
from verify.control_flow import loop_headers
from verify.events import Ev, EventGraph
from verify.hb import CollapseError, HappensBefore
from verify.model import build_model
from verify.paths import has_control_flow, segments

PROGRAMS = sorted(CORPUS.glob("*.mlir")) + sorted(IREE.glob("*/generic/*.mlir"))


def reachable(graph: EventGraph, u: int, v: int) -> bool:
    succ: dict[int, list[int]] = {}
    for a, b in zip(graph.src, graph.dst):
        succ.setdefault(a, []).append(b)
    seen = {u}
    queue = deque([u])
    while queue:
        x = queue.popleft()
        if x == v:
            return True
        for y in succ.get(x, ()):
            if y not in seen:
                seen.add(y)
                queue.append(y)
    return False


def _straight_line(funcs: list[Function]) -> list[Function]:
    """The functions, a function with control flow as the straight-line programs into its loop
    header, or its paths (what the verifier builds models of; `verify.control_flow`)."""
    out: list[Function] = []
    for f in funcs:
        if not has_control_flow(f):
            out.append(f)
            continue
        g = lower_loops(f)
        headers = loop_headers(g.blocks)
        stop = min(headers) if headers else None
        out.extend(g.with_body(seg.ops) for seg in segments(g, g.blocks, 0, {}, [], stop))
    return out


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
@pytest.mark.parametrize("budget", [60_000_000, 0], ids=["vector-clocks", "search"])
def test_before_is_exactly_path_existence(path: Path, budget: int) -> None:
    module = parse(path.read_text(), str(path))
    for f in _straight_line(functions(module)):
        model = build_model(f, module)
        hb = HappensBefore(model.graph, vc_budget=budget)
        if hb.cycle is not None:
            continue
        assert (hb.vc is None) == (budget == 0 and hb.n > 0)  # an empty segment needs no search
        sites = model.graph.sites
        for a, b in itertools.permutations(sites, 2):
            if a.start == b.start:  # one event, two names (e.g. a reach site)
                continue
            expected = a.end != b.start and reachable(model.graph, a.end, b.start)
            assert hb.before(a, b) == expected, (path.name, a.name, a.op.location, b.name, b.op.location)


def random_unit_graph(rng: random.Random, n: int, p: float) -> EventGraph:
    g = EventGraph()
    for i in range(n):
        kind = rng.choice(["host", "device", "reach"])
        unit = g.unit(kind, "lane")
        if kind == "device":
            unit.entry = g.event(Ev.START, unit.id)
            unit.exit = g.event(Ev.END, unit.id)
            g.edge(unit.entry, unit.exit, "runs")
        else:
            unit.entry = unit.exit = g.event(Ev.HOST if kind == "host" else Ev.REACH, unit.id)
        for j in range(i):
            if rng.random() < p:
                g.edge(g.units[j].exit, unit.entry, "random")
    return g


@pytest.mark.parametrize("seed", range(20))
def test_unit_reachability_on_random_dags(seed: int) -> None:
    rng = random.Random(seed)
    g = random_unit_graph(rng, rng.randint(2, 40), rng.choice([0.05, 0.15, 0.4]))
    clocks = HappensBefore(g)
    search = HappensBefore(g, vc_budget=0)
    for u, v in itertools.permutations(range(len(g.units)), 2):
        expected = reachable(g, g.units[u].exit, g.units[v].entry)
        assert clocks.units_before(u, v) == expected == search.units_before(u, v)


def test_cycle_is_found() -> None:
    g = random_unit_graph(random.Random(1), 5, 0.0)
    for a, b in [(0, 1), (1, 2), (2, 0), (3, 4)]:
        g.edge(g.units[a].exit, g.units[b].entry, "loop")
    hb = HappensBefore(g)
    assert hb.cycle is not None and sorted(hb.cycle) == [0, 1, 2]


def test_edges_must_leave_units_by_their_exit() -> None:
    g = EventGraph()
    device = g.unit("device", "@dev0")
    device.entry = g.event(Ev.START, device.id)
    device.exit = g.event(Ev.END, device.id)
    g.edge(device.entry, device.exit, "runs")
    other = g.unit("host", "host")
    other.entry = other.exit = g.event(Ev.HOST, other.id)
    g.edge(device.entry, other.entry, "leaves from the start event")
    with pytest.raises(CollapseError):
        HappensBefore(g)


@pytest.mark.parametrize("seed", range(20))
def test_reachability_when_chains_are_cut_short(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chains end at `_MAX_POS` units (int16 clocks); cut at 2, the clocks still answer exactly."""
    monkeypatch.setattr(hb_module, "_MAX_POS", 2)
    rng = random.Random(seed)
    g = random_unit_graph(rng, rng.randint(2, 40), rng.choice([0.05, 0.15, 0.4]))
    clocks = HappensBefore(g)
    assert clocks.vc is not None and all(p <= 2 for p in clocks.pos)
    for u, v in itertools.permutations(range(len(g.units)), 2):
        assert clocks.units_before(u, v) == reachable(g, g.units[u].exit, g.units[v].entry)


def test_a_unit_joins_any_chain_its_ancestors_end() -> None:
    """The chain cover of the bench DAG's compiled output stays narrow: a unit joins the chain of
    any ancestor that ends one, not only of a nearest predecessor (that rule gave 55 chains on
    this program and grew with it, 1,561 at 30k dispatches, past the clocks' memory budget)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import bench_vs_iree

    from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline

    module = parse(bench_vs_iree.streamproof_input(bench_vs_iree.dag(1000, 0)), "dag.mlir")
    out, _ = run_pipeline(module, parse_pipeline(",".join(DEFAULT_PIPELINE)), keep_outputs=False)
    (f,) = functions(out)
    model = build_model(f, out)
    hb = HappensBefore(model.graph)
    assert hb.vc is not None and hb.width <= 12
    units = model.graph.units
    rng = random.Random(0)
    for _ in range(3000):
        u, v = rng.sample(range(len(units)), 2)
        assert hb.units_before(u, v) == reachable(model.graph, units[u].exit, units[v].entry)

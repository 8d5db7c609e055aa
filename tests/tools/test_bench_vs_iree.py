"""bench/bench_vs_iree.py: one DAG written for both compilers, measured side by side.

Small sizes only. The streamproof half always runs; the IREE half needs `iree-compile` (the
optional `iree` extra, which CI does not install) and is skipped, saying so, without it.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "bench_vs_iree.py"
_spec = importlib.util.spec_from_file_location("bench_vs_iree", SCRIPT)
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
sys.modules["bench_vs_iree"] = bench
_spec.loader.exec_module(bench)

IREE = os.environ.get("IREE_COMPILE") or shutil.which("iree-compile")
needs_iree = pytest.mark.skipif(IREE is None, reason="iree-compile is not installed (optional extra: pip install -e '.[iree]')")


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)


N = bench.Node
KIB = bench.VALUE_BYTES
# A matmul on device 0, the relu of it on device 1, the add of both on device 0: every step is on
# one chain (matmul, transfer, relu, transfer, add).
CHAIN = bench.Dag((N("matmul", 0, (0, 1)), N("relu", 1, (2,)), N("add", 0, (2, 3))), (4,))
# Two independent chains of three relus, one from each argument, the first on device 0 and the
# second on device 1, interleaved in program order; both ends are returned.
TWO_CHAINS = bench.Dag(
    (N("relu", 0, (0,)), N("relu", 1, (1,)), N("relu", 0, (2,)), N("relu", 1, (3,)), N("relu", 0, (4,)), N("relu", 1, (5,))), (6, 7),
)


def _min_sequential_peak(d: Any) -> int:
    """The least peak, in values, over every order running the steps of `d.steps()` one at a time
    (each value freed after its last reader; the arguments and their copies not counted): a
    dynamic program over the sets of steps done. Independent of `live_bounds`; tiny DAGs only."""
    steps = d.steps()
    made: list[tuple[int, int] | None] = []
    reads: list[set[tuple[int, int]]] = []
    for kind, index, device in steps:
        if kind == "node":
            made.append((index + 2, device))
            reads.append({(v, device) for v in d.nodes[index].operands})
        elif kind == "transfer":
            made.append((index, device))
            reads.append({(index, d.device(index))})
        else:
            made.append(None)
            reads.append({(v, 0) for v in d.results})
    maker = {x: s for s, x in enumerate(made) if x is not None}
    counted = {x for x in maker if x[0] >= 2}
    needs = [frozenset(maker[x] for x in r if x in maker) for r in reads]
    best: dict[frozenset[int], int] = {frozenset(): 0}
    for size in range(1, len(steps) + 1):
        for done in map(frozenset, itertools.combinations(range(len(steps)), size)):
            options = []
            for s in done:
                before = done - {s}
                if before in best and needs[s] <= before:
                    # While s runs: what s makes, and what is made and still to be read after `before`.
                    held = {x for x in counted if maker[x] in before and any(x in reads[r] for r in range(len(steps)) if r not in before)}
                    made_here = made[s]
                    if made_here in counted:
                        held.add(made_here)
                    options.append(max(best[before], len(held)))
            if options:
                best[done] = min(options)
    return best[frozenset(range(len(steps)))]


def _must_live_by_sets(d: Any) -> int:
    """`live_bounds`' lower bound (in values) computed the slow way, with sets: for each step w,
    the values w reads or makes and those made by a strict ancestor of w and read by a strict
    descendant of w."""
    steps = d.steps()
    edges: dict[int, set[int]] = {s: set() for s in range(len(steps))}  # step -> steps it reads from
    maker: dict[tuple[int, int], int] = {}
    readers: dict[tuple[int, int], set[int]] = {}
    for s, (kind, index, device) in enumerate(steps):
        if kind == "node":
            maker[(index + 2, device)] = s
            reads = {(v, device) for v in d.nodes[index].operands}
        elif kind == "transfer":
            maker[(index, device)] = s
            reads = {(index, d.device(index))}
        else:
            reads = {(v, 0) for v in d.results}
        for x in reads:
            readers.setdefault(x, set()).add(s)
            if x in maker:
                edges[s].add(maker[x])

    def ancestors(s: int) -> set[int]:
        out: set[int] = set()
        todo = list(edges[s])
        while todo:
            p = todo.pop()
            if p not in out:
                out.add(p)
                todo += edges[p]
        return out

    anc = {s: ancestors(s) for s in edges}
    counted = [x for x in maker if x[0] >= 2]
    return max(
        sum(1 for x in counted if w == maker[x] or w in readers.get(x, ()) or
            (maker[x] in anc[w] and any(w in anc[r] for r in readers.get(x, ()))))
        for w in edges
    )


@pytest.mark.parametrize("n", [1, 2, 7, 60, 300])
def test_the_dag_uses_every_value_but_the_last_and_repeats_no_op(n: int) -> None:
    d = bench.dag(n, seed=n)
    assert len(d.nodes) == n
    used = {v for node in d.nodes for v in node.operands}
    assert set(d.results) == set(range(2, n + 2)) - used
    assert 1 <= len(d.results) <= bench.WINDOW
    assert all(v < i + 2 for i, node in enumerate(d.nodes) for v in node.operands), "operands come before their use"
    keys = Counter((node.kind, node.device, node.operands if node.kind == "matmul" else tuple(sorted(node.operands))) for node in d.nodes)
    assert max(keys.values()) == 1, "two ops alike would be CSE'd by IREE"
    assert {node.device for node in d.nodes} <= {0, 1} and {node.kind for node in d.nodes} <= set(bench.KINDS)


@pytest.mark.parametrize("n", [5, 80])
def test_both_inputs_write_the_same_graph(n: int) -> None:
    d = bench.dag(n)
    ours, theirs = bench.streamproof_input(d), bench.iree_input(d)
    kinds = Counter(node.kind for node in d.nodes)
    for kind in bench.KINDS:
        assert len(re.findall(rf"flow\.dispatch @{kind}\(", ours)) == kinds[kind]
    assert theirs.count("linalg.matmul ins(") == kinds["matmul"]
    assert theirs.count("arith.addf") == kinds["add"] and theirs.count("arith.maximumf") == kinds["relu"]
    transfers = d.transfers()
    assert ours.count("flow.tensor.transfer") == theirs.count("flow.tensor.transfer") == transfers > 0
    for k in range(2):
        on = sum(1 for node in d.nodes if node.device == k)
        assert ours.count(f"stream.affinity = #hal.device.affinity<@{bench.STREAMPROOF_DEVICES[k]}>}}") == on
    # The same value names in the same order, transfers included.
    defined = re.compile(r"^  (%v\d+(?:_d\d)?) = (?:flow|linalg)", re.MULTILINE)
    assert defined.findall(ours) == defined.findall(theirs)


def test_bounds_of_hand_built_dags() -> None:
    # CHAIN: matmul 1 + transfer 0.25 + relu 1 + transfer 0.25 + add 1. While the relu runs, the
    # matmul's result (the add reads it later), its copy on device 1 and the relu's result are
    # live in every schedule; the program order needs no more.
    assert bench.bounds(CHAIN) == {"critical_path": 3.5, "live_lower_bytes": 3 * KIB, "live_program_order_bytes": 3 * KIB}
    # TWO_CHAINS: the second chain is argument 1's transfer 0.25 + 3 relus + its end's transfer
    # back 0.25. No step forces more than 2 values (one relu's operand and result; the return's
    # two ends), but the program order runs chain A's second relu while chain B's first result
    # waits: 3. (A schedule needs 3 too, whichever chain ends first holding its end: the lower
    # bound is not tight.)
    assert bench.bounds(TWO_CHAINS) == {"critical_path": 3.5, "live_lower_bytes": 2 * KIB, "live_program_order_bytes": 3 * KIB}
    assert _min_sequential_peak(CHAIN) == 3 and _min_sequential_peak(TWO_CHAINS) == 3


@pytest.mark.parametrize("seed", range(12))
def test_live_bounds_bracket_the_least_sequential_peak(seed: int) -> None:
    d = bench.dag(4 + seed % 3, seed=seed)
    lower, order = bench.live_bounds(d)
    assert lower == _must_live_by_sets(d) * KIB
    assert lower <= _min_sequential_peak(d) * KIB <= order


def _streamproof(d: Any) -> Any:
    """streamproof's verified compile of `d`."""
    import stream.ir as ir
    from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline
    from verify.hook import make_hook

    out, records = run_pipeline(ir.parse_module(bench.streamproof_input(d), "dag.mlir"), parse_pipeline(",".join(DEFAULT_PIPELINE)), hook=make_hook())
    assert records[-1].report is not None and records[-1].report.ok
    return out


def test_streamproof_schedule_of_hand_built_dags() -> None:
    import bench_schedule

    chain = _streamproof(CHAIN)
    q = bench.simulate(chain)
    # One chain through every step: nothing to overlap, nothing to wait for but the chain.
    assert q["makespan"] == q["makespan_unit_dispatch"] == 3.5
    assert q["peak_bytes"] >= 3 * KIB
    # The dispatch cost is the caller's: at 2 a dispatch, the chain takes 3 * 2 + 2 * 0.25.
    assert bench_schedule.measure(chain, lambda op: 2.0).makespan == 6.5
    q = bench.simulate(_streamproof(TWO_CHAINS))
    # The chains run side by side (the second's 3.5 alone); streamproof may import argument 1 on
    # device 1 and skip its transfer (its input does not pin arguments), the bound's one exception.
    assert q["makespan"] in (3.25, 3.5) and q["overlap_pairs"] == q["cross_pairs"] >= 1
    assert q["peak_bytes"] >= 2 * KIB


@needs_iree
def test_iree_schedule_of_hand_built_dags(tmp_path: Path) -> None:
    import stream.ir as ir

    def compiled(d: Any) -> Any:
        source, target = tmp_path / "in.mlir", tmp_path / "out.mlir"
        source.write_text(bench.iree_input(d))
        subprocess.run([str(IREE), str(source), *bench.IREE_FLAGS, "-o", str(target)], check=True, capture_output=True)
        return ir.parse_module(target.read_text(), "out.mlir")

    chain = compiled(CHAIN)
    assert sorted(bench.kernel_ops(chain).values()) == [1, 1, 1], "nothing to fuse: each op is on the other's device or after a transfer"
    q = bench.simulate(chain)
    assert q["makespan"] == q["makespan_unit_dispatch"] == 3.5 and q["peak_bytes"] >= 3 * KIB
    two = compiled(TWO_CHAINS)
    assert list(bench.kernel_ops(two).values()) == [3], "each chain fused into one dispatch of one executable"
    q = bench.simulate(two)
    # Costed by its ops, each fused dispatch takes 3. Device B's region (argument 1's copy 0.25,
    # then its chain 3) comes first; device A's region (its chain, and the copy of B's end beside
    # it) awaits the alloca of the result buffer, which awaits the dealloca of B's scratch, which
    # awaits B's region: 3.25 + 3, though chain A reads nothing of B's until the copy.
    assert q["makespan"] == 6.25 and q["overlap_pairs"] == 0
    assert q["makespan_unit_dispatch"] == 2.25  # the same with each fused dispatch taking 1
    assert q["peak_bytes"] >= 2 * KIB


def test_streamproof_half_runs_without_iree() -> None:
    out = _run("--sizes", "40", "--repeat", "1", "--no-iree", "--json", "-")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    [res] = doc["results"]
    assert "iree" not in res and doc["iree"].startswith("not run")
    ours = res["streamproof"]
    assert ours["dispatches"] == 40 and ours["placement_matches"]
    assert 0 < ours["regions"] <= 40 and ours["timepoints"] > 0
    assert ours["rss_peak_mb"] > 0 and 0 < ours["verify_s"] < ours["wall_s"]
    _check_quality(res, ("streamproof",))


def _check_quality(res: dict[str, Any], tools: tuple[str, ...]) -> None:
    """The schedule quality numbers of one JSON result against the DAG they came from."""
    d = bench.dag(res["dispatches"])
    bounds = res["bounds"]
    assert bounds == bench.bounds(d)
    assert 0 < bounds["live_lower_bytes"] <= bounds["live_program_order_bytes"]
    for tool in tools:
        q = res[tool]["schedule"]
        assert q["makespan"] >= bounds["critical_path"] - 0.25, f"{tool}: faster than the critical path"
        assert q["makespan_unit_dispatch"] <= q["makespan"]
        assert q["peak_bytes"] >= bounds["live_lower_bytes"], f"{tool}: less memory than the values must have"
        assert 0 <= q["overlap_pairs"] <= q["cross_pairs"] and res[tool]["simulate_s"] >= 0


def test_without_iree_compile_the_tables_say_so(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "IREE_COMPILE"}
    env["PATH"] = str(tmp_path)  # no iree-compile there; the children run sys.executable by path
    out = _run("--sizes", "10", "--repeat", "1", env=env)
    assert out.returncode == 0, out.stderr
    assert "iree-compile not found" in out.stdout
    assert re.search(r"^\| 10 \| \d+ \| streamproof \(verified\) \| 1 \|", out.stdout, re.MULTILINE)
    assert re.search(r"^\| 10 \| \d+ \| IREE 3.13 \| - \| not run \|", out.stdout, re.MULTILINE)


@needs_iree
def test_iree_half_compiles_the_same_placement(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    out = _run("--sizes", "40", "--repeat", "2", "--json", str(report))
    assert out.returncode == 0, out.stderr
    [res] = json.loads(report.read_text())["results"]
    theirs, ours = res["iree"], res["streamproof"]
    assert theirs["placement_matches"] and ours["placement_matches"], "the two outputs compute the DAG's ops on the same devices"
    assert 0 < theirs["dispatches"] <= 40 and theirs["regions"] > 0 and theirs["timepoints"] > 0
    assert len(ours["wall_s_runs"]) == len(theirs["wall_s_runs"]) == 2
    assert "| 40 | IREE 3.13 |" in out.stdout and "| 40 | streamproof (verified) |" in out.stdout
    _check_quality(res, ("streamproof", "iree"))
    ratio = ours["schedule"]["makespan"] / theirs["schedule"]["makespan"]
    assert re.search(rf"^\| 40 \| streamproof \(verified\) \|.*\| {ratio:.3f} \|", out.stdout, re.MULTILINE), "makespan / IREE's"
    assert re.search(r"^\| 40 \| IREE 3.13 \|.*\| 1.000 \|", out.stdout, re.MULTILINE)

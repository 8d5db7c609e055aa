"""bench/bench_vs_iree.py: one DAG written for both compilers, measured side by side.

Small sizes only. The streamproof half always runs; the IREE half needs `iree-compile` (the
optional `iree` extra, which CI does not install) and is skipped, saying so, without it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

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

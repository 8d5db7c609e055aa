"""bench/bench_obligations.py: obligations per access stay flat as programs grow.

The chain family is the worst case for pairwise race obligations (every pair of its dispatches
conflicts): n regions make n*(n-1)/2 conflicting pairs, but the frontier checks each access
against the last write only, so there are two obligations per region (its race check and its
completion before the return), whatever n is.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_obligations  # noqa: E402


@pytest.mark.parametrize("n", [20, 80])
def test_a_chain_has_two_obligations_per_region_not_one_per_pair(n: int) -> None:
    r = bench_obligations.measure("chain", n)
    assert r["status"] == "proved"
    assert r["accesses"] == n + 1  # each region's dispatch, and the caller's view at the return
    assert r["obligations"] == 2 * n


@pytest.mark.parametrize("family", ["waves", "wide", "symbolic", "dag"])
def test_obligations_per_access_do_not_grow_with_the_program(family: str) -> None:
    small, large = (bench_obligations.measure(family, n) for n in (64, 256))
    assert small["status"] == large["status"] == "proved"
    ratio = [r["obligations"] / r["accesses"] for r in (small, large)]  # type: ignore[operator]
    assert ratio[1] <= ratio[0] * 1.1, ratio

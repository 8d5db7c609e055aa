"""bench/bench_schedule.py: the simulator's device timeline places regions as its first version did.

`Device.place` skips, by bisection, the busy intervals that end before a region is ready (so that
simulating IREE's 10k-dispatch output stays fast); the placements must be the ones the plain scan
over all intervals gives.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_schedule", ROOT / "bench" / "bench_schedule.py")
assert _spec is not None and _spec.loader is not None
schedule = importlib.util.module_from_spec(_spec)
sys.modules["bench_schedule"] = schedule
_spec.loader.exec_module(schedule)


def _first_fit(busy: list[tuple[float, float]], ready: float, length: float) -> float:
    """The first version of `Device.place`: scan every busy interval in start order."""
    start = ready
    for lo, hi in sorted(busy):
        if start + length <= lo:
            break
        start = max(start, hi)
    busy.append((start, start + length))
    return start


@pytest.mark.parametrize("seed", range(20))
def test_place_is_the_plain_first_fit(seed: int) -> None:
    rng = random.Random(seed)
    device, plain = schedule.Device(), list[tuple[float, float]]()
    for _ in range(300):
        # Quarter units as in the cost model, empty regions (cache control only) included, ready
        # times both behind and ahead of the busy end.
        ready = rng.randrange(0, 400) / 4
        length = rng.choice([0.0, 0.25, 0.5, 1.0, 2.0, 3.25])
        assert device.place(ready, length) == _first_fit(plain, ready, length)
    assert device.busy == sorted(plain)
    assert device.ends == [hi for _, hi in device.busy] == sorted(device.ends)

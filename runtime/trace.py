"""Chrome / Perfetto trace-event JSON of a run (`--trace FILE`).

Layout (runtime-notes section 4.2, the rules Perfetto's JSON importer applies):

* one process per device (`pid` 1, 2, ...) and one for the host (`pid` 0), named with `M` events;
* one thread (`tid`) per lane: a device queue's worker ("queue 0") or a pool thread running
  concurrent children for that device ("pool 1"); a lane runs one thing at a time, so the `X`
  slices on a track nest (a command inside its submission, a child inside its concurrent section)
  and never partially overlap - `check_nesting` verifies this;
* a complete `X` slice per submission and per command (`ts`, `dur` in microseconds);
* flow arrows (v1: an `s` event inside the signalling slice, an `f` event with `"bp": "e"` inside
  the waiting slice, one id per edge) from each signal to each submission or host wait it released;
* a counter `C` per device, "allocated bytes", updated on every allocation and free.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Tracer", "Anchor", "check_nesting"]


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where a flow arrow starts: inside the slice of the submission that signalled."""

    pid: int
    tid: int
    ts: float


class Tracer:
    """Collects trace events; thread-safe."""

    def __init__(self) -> None:
        self._t0 = time.perf_counter_ns()
        self.events: list[dict[str, Any]] = []
        self._pids: dict[str, int] = {}
        self._tids: dict[tuple[int, str], int] = {}
        self._lock = threading.Lock()
        self._flow_ids = itertools.count(1)
        self._meta("process_name", 0, 0, "host")
        self._meta("process_sort_index", 0, 0, 0)
        self._tids[(0, "host")] = 0
        self._meta("thread_name", 0, 0, "host")

    def now(self) -> float:
        """Microseconds since the trace started."""
        return (time.perf_counter_ns() - self._t0) / 1000.0

    def _meta(self, name: str, pid: int, tid: int, value: object) -> None:
        key = "sort_index" if name.endswith("sort_index") else "name"
        self.events.append({"name": name, "ph": "M", "pid": pid, "tid": tid, "args": {key: value}})

    def track(self, device: str | None, lane: str) -> tuple[int, int]:
        """(pid, tid) of a device lane; `device=None` is the host."""
        with self._lock:
            if device is None:
                pid = 0
            else:
                pid = self._pids.get(device, 0)
                if not pid:
                    pid = self._pids[device] = len(self._pids) + 1
                    self._meta("process_name", pid, 0, f"device @{device}")
                    self._meta("process_sort_index", pid, 0, pid)
            tid = self._tids.get((pid, lane))
            if tid is None:
                tid = self._tids[(pid, lane)] = sum(1 for p, _ in self._tids if p == pid) + 1
                self._meta("thread_name", pid, tid, lane)
                self._meta("thread_sort_index", pid, tid, tid)
            return pid, tid

    def slice(self, track: tuple[int, int], name: str, start: float, end: float, cat: str = "command",
              args: dict[str, Any] | None = None) -> None:
        # Whole nanoseconds, as Perfetto's importer keeps them, so that nesting survives rounding.
        ts, te = round(start, 3), round(end, 3)
        event: dict[str, Any] = {"name": name, "cat": cat, "ph": "X", "ts": ts, "dur": round(max(0.0, te - ts), 3),
                                 "pid": track[0], "tid": track[1]}
        if args:
            event["args"] = args
        self.events.append(event)

    def instant(self, track: tuple[int, int], name: str, ts: float, args: dict[str, Any] | None = None) -> None:
        event: dict[str, Any] = {"name": name, "cat": "event", "ph": "i", "s": "t", "ts": ts, "pid": track[0], "tid": track[1]}
        if args:
            event["args"] = args
        self.events.append(event)

    def flow(self, source: Anchor, target: tuple[int, int], ts: float, name: str = "timepoint") -> None:
        """An arrow from inside the signalling slice to the slice enclosing `ts` on `target`."""
        fid = next(self._flow_ids)
        self.events.append({"name": name, "cat": "timepoint", "ph": "s", "id": fid, "ts": source.ts,
                            "pid": source.pid, "tid": source.tid})
        self.events.append({"name": name, "cat": "timepoint", "ph": "f", "bp": "e", "id": fid, "ts": ts,
                            "pid": target[0], "tid": target[1]})

    def counter(self, device: str, live_bytes: int, ts: float | None = None) -> None:
        pid, _ = self.track(device, "queue 0")
        self.events.append({"name": "allocated bytes", "ph": "C", "ts": self.now() if ts is None else ts,
                            "pid": pid, "args": {"bytes": live_bytes}})

    def to_json(self) -> dict[str, Any]:
        return {"traceEvents": list(self.events), "displayTimeUnit": "ms"}

    def write(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=None))


def check_nesting(events: list[dict[str, Any]]) -> list[str]:
    """Violations of "slices on one track nest": pairs of X slices on one (pid, tid) that overlap
    without one containing the other. Empty when the trace is well formed."""
    by_track: dict[tuple[int, int], list[tuple[float, float, str]]] = {}
    for e in events:
        if e.get("ph") == "X":
            by_track.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
    problems: list[str] = []
    eps = 0.0005  # half a nanosecond: ts and dur are whole nanoseconds in microseconds
    for track, slices in by_track.items():
        slices.sort(key=lambda s: (s[0], -s[1]))
        stack: list[tuple[float, float, str]] = []
        for start, end, name in slices:
            while stack and stack[-1][1] <= start + eps:
                stack.pop()
            if stack and end > stack[-1][1] + eps:
                problems.append(f"track {track}: '{name}' [{start}, {end}] overlaps '{stack[-1][2]}' "
                                f"[{stack[-1][0]}, {stack[-1][1]}] without nesting")
            stack.append((start, end, name))
    return problems

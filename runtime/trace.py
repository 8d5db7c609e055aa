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

`check_trace` checks a written trace against those importer rules.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Tracer", "Anchor", "check_nesting", "check_trace"]


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
        if e.get("ph") == "X" and isinstance(e.get("dur"), (int, float)):  # a slice without dur is dropped
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


def check_trace(doc: dict[str, Any]) -> list[str]:
    """Violations of the rules Perfetto's JSON importer applies (runtime-notes section 4.2), as
    messages; empty for a well-formed trace. Checked: the container; every event's phase, pid,
    tid and timestamp; `X` slices have a name and a non-negative `dur`, and nest on each track
    (`check_nesting`); flow events pair up - one `s` and one `f` per id, with the same name and
    category, the start not after the end, each inside a slice of its track; counters carry
    numeric series, one counter track per device process; every process and thread that has
    slices is named by an `M` event."""
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        return ["the trace has no traceEvents list"]
    problems: list[str] = []
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        problems.append(f"displayTimeUnit {doc.get('displayTimeUnit')!r} is neither 'ms' nor 'ns'")
    named_pids = {e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    named_tids = {(e["pid"], e["tid"]) for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    slices: dict[tuple[int, int], list[tuple[float, float]]] = {}
    flows: dict[Any, dict[str, dict[str, Any]]] = {}
    counters: dict[int, set[str]] = {}
    for i, e in enumerate(events):
        ph = e.get("ph")
        if ph not in ("X", "M", "C", "s", "f", "i"):
            problems.append(f"event {i}: phase {ph!r} is not one this tracer writes")
            continue
        if not isinstance(e.get("pid"), int) or (ph != "C" and not isinstance(e.get("tid"), int)):
            problems.append(f"event {i} ({ph}): pid and tid must be integers")
            continue
        if ph == "M":
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or ts < 0:
            problems.append(f"event {i} ({ph}): ts {ts!r} is not a time in microseconds")
            continue
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, float)) or dur < 0 or not isinstance(e.get("name"), str):
                problems.append(f"event {i}: an X slice needs a name and a non-negative dur (Perfetto drops it)")
                continue
            slices.setdefault((e["pid"], e["tid"]), []).append((ts, ts + dur))
            if e["pid"] not in named_pids or (e["pid"], e["tid"]) not in named_tids:
                problems.append(f"event {i}: slice '{e['name']}' is on an unnamed process or thread ({e['pid']}, {e['tid']})")
        elif ph in ("s", "f"):
            pair = flows.setdefault(e.get("id"), {})
            if ph in pair:
                problems.append(f"flow id {e.get('id')!r} has two '{ph}' events")
            pair[ph] = e
        elif ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(isinstance(v, (int, float)) for v in args.values()):
                problems.append(f"event {i}: a counter needs numeric series in args")
                continue
            counters.setdefault(e["pid"], set()).add(str(e.get("name")))
    problems.extend(check_nesting(events))
    eps = 0.0005

    def inside(e: dict[str, Any]) -> bool:
        return any(lo - eps <= e["ts"] <= hi + eps for lo, hi in slices.get((e["pid"], e["tid"]), ()))

    for fid, pair in flows.items():
        if set(pair) != {"s", "f"}:
            problems.append(f"flow id {fid!r} has {'/'.join(sorted(pair))} but needs one 's' and one 'f'")
            continue
        start, end = pair["s"], pair["f"]
        if (start.get("name"), start.get("cat")) != (end.get("name"), end.get("cat")):
            problems.append(f"flow id {fid!r}: start and end differ in name or category (Perfetto will not join them)")
        if start["ts"] > end["ts"] + eps:
            problems.append(f"flow id {fid!r} ends before it starts")
        for what, e in (("start", start), ("end", end)):
            if not inside(e):
                problems.append(f"flow id {fid!r}: its {what} at {e['ts']} is inside no slice of track ({e['pid']}, {e['tid']})")
    for pid, names in counters.items():
        if pid not in named_pids:
            problems.append(f"counter {sorted(names)} is on unnamed process {pid}")
        if len(names) != 1:
            problems.append(f"process {pid} has counters {sorted(names)}; the tracer writes one per device")
    return problems

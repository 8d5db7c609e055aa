"""Chrome / Perfetto traces: well-formed by the JSON importer's rules (runtime-notes section 4.2).

Checked: every X slice has ts and dur; slices on one (pid, tid) track nest (a partially
overlapping pair is what breaks Perfetto); processes and threads are named; each flow id has one
start and one end with the same name and category, the start inside the signalling slice and the
end inside the waiting one; a memory counter per device returns to zero.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from rt_support import DATA, DRIVERS, HERE, iree_kernels, parse  # noqa: F401 (the iree_kernels fixture)

from runtime import run_module
from runtime.trace import Tracer, check_nesting, check_trace


def _slices(events: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    return [e for e in events if e.get("ph") == "X"]


def _enclosing(events: list[dict], pid: int, tid: int, ts: float) -> list[dict]:  # type: ignore[type-arg]
    return [e for e in _slices(events) if e["pid"] == pid and e["tid"] == tid and e["ts"] - 1e-6 <= ts <= e["ts"] + e["dur"] + 1e-6]


@pytest.mark.parametrize("driver", DRIVERS)
def test_trace_of_a_two_device_program(driver: str, tmp_path: Path) -> None:
    path = HERE / "programs" / "two_devices.mlir"
    out = tmp_path / "trace.json"
    run_module(parse(path.read_text(), str(path)), [np.ones((4, 4), np.float32)], driver=driver, trace=out)
    doc = json.loads(out.read_text())
    events = doc["traceEvents"]
    assert doc["displayTimeUnit"] == "ms"
    assert check_nesting(events) == []
    names = {(e["pid"], e["args"]["name"]) for e in events if e.get("name") == "process_name"}
    assert {n for _, n in names} == {"host", "device @dev0", "device @dev1"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    for s in _slices(events):
        assert (s["pid"], s["tid"]) in threads and s["dur"] >= 0
    kinds = {s["name"] for s in _slices(events)}
    assert {"execute", "alloca", "dealloca", "dispatch scale", "dispatch tanh", "transfer", "await"} <= kinds
    # Every device command nests inside its submission's slice on the same track.
    for s in _slices(events):
        if s.get("cat") == "command":
            parents = [p for p in _enclosing(events, s["pid"], s["tid"], s["ts"]) if p.get("cat") == "submission"]
            assert parents, f"{s['name']} is outside every submission slice"
    # Flows: one 's' and one 'f' per id, same name and category, each inside a slice.
    flows: dict[int, dict[str, dict]] = {}  # type: ignore[type-arg]
    for e in events:
        if e.get("ph") in ("s", "f"):
            flows.setdefault(e["id"], {})[e["ph"]] = e
    assert flows
    for pair in flows.values():
        assert set(pair) == {"s", "f"}
        s, f = pair["s"], pair["f"]
        assert (s["name"], s["cat"]) == (f["name"], f["cat"]) and f["bp"] == "e"
        assert _enclosing(events, s["pid"], s["tid"], s["ts"]) and _enclosing(events, f["pid"], f["tid"], f["ts"])
        assert s["ts"] <= f["ts"] + 1e-6
    # The execute on @dev1 waits for the one on @dev0: an arrow crosses devices.
    assert any(p["s"]["pid"] != p["f"]["pid"] for p in flows.values())
    counters = [e for e in events if e.get("ph") == "C"]
    for pid in {c["pid"] for c in counters}:
        series = [c["args"]["bytes"] for c in counters if c["pid"] == pid]
        assert max(series) == 64 and series[-1] == 0


@pytest.mark.usefixtures("iree_kernels")
def test_concurrent_children_on_pool_lanes_keep_tracks_nested() -> None:
    path = DATA / "b_diamond" / "10_elide_timepoints.mlir"
    module = parse(path.read_text(), str(path))
    xs = [np.ones((64, 64), np.float32) for _ in range(5)]
    for seed in range(4):
        result = run_module(module, xs, driver="chaos", seed=seed, trace=True)
        assert result.tracer is not None
        assert check_nesting(result.tracer.events) == []


def test_check_nesting_finds_partial_overlap() -> None:
    t = Tracer()
    track = t.track("dev0", "queue 0")
    t.slice(track, "a", 0.0, 10.0)
    t.slice(track, "b", 2.0, 4.0)  # nested: fine
    assert check_nesting(t.events) == []
    t.slice(track, "c", 8.0, 12.0)  # starts inside 'a', ends after it
    (problem,) = check_nesting(t.events)
    assert "'c'" in problem and "'a'" in problem


def _compiled(name: str):  # type: ignore[no-untyped-def]
    from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline

    path = HERE / "programs" / "input" / name
    return run_pipeline(parse(path.read_text(), str(path)), parse_pipeline(",".join(DEFAULT_PIPELINE)), verify="none")[0]


@pytest.mark.usefixtures("iree_kernels")
@pytest.mark.parametrize("driver", DRIVERS)
def test_every_trace_obeys_the_importer_rules(driver: str) -> None:
    """Hand-written and compiled multi-device programs and an IREE schedule whose concurrent
    sections run on pool lanes (inline_bytes=0): each trace passes check_trace, and every device
    that allocated memory has its counter, back at zero at the end."""
    rng = np.random.default_rng(0)
    cases = [
        (parse((HERE / "programs" / "two_devices.mlir").read_text()), [np.ones((4, 4), np.float32)]),
        (parse((HERE / "programs" / "all_commands.mlir").read_text()), [np.ones(4, np.float32)]),
        (parse((HERE / "programs" / "host_ops.mlir").read_text()), []),
        (_compiled("three_devices.mlir"), None),
        (parse((DATA / "b_diamond" / "10_elide_timepoints.mlir").read_text()), [np.ones((64, 64), np.float32)] * 5),
    ]
    for module, inputs in cases:
        if inputs is None:
            from runtime.api import random_inputs

            inputs = random_inputs(module, None, int(rng.integers(100)))
        for seed in range(3 if driver == "chaos" else 1):
            result = run_module(module, inputs, driver=driver, seed=seed, trace=True, inline_bytes=0)
            assert result.tracer is not None
            doc = result.tracer.to_json()
            assert check_trace(json.loads(json.dumps(doc))) == []
            devices = {e["pid"] for e in doc["traceEvents"] if e.get("ph") == "X" and e["pid"] != 0}
            counters = [e for e in doc["traceEvents"] if e.get("ph") == "C"]
            allocating = {pid for pid in devices if any(c["pid"] == pid and c["args"]["bytes"] > 0 for c in counters)}
            assert allocating, "no device counted any memory"
            for pid in allocating:
                assert [c["args"]["bytes"] for c in counters if c["pid"] == pid][-1] == 0


def test_the_trace_of_a_failed_run_is_well_formed() -> None:
    from runtime import ExecutionError, KernelRegistry
    from runtime.kernels import DEFAULT_REGISTRY

    reg = KernelRegistry(DEFAULT_REGISTRY)

    def broken(x, s, out):  # type: ignore[no-untyped-def]
        raise FloatingPointError("overflow")

    reg.register("scale", broken)
    tracer = Tracer()
    path = HERE / "programs" / "two_devices.mlir"
    with pytest.raises(ExecutionError):
        run_module(parse(path.read_text()), [np.ones((4, 4), np.float32)], driver="task", trace=tracer, kernels=reg)
    assert check_trace(tracer.to_json()) == []
    failed = [e for e in tracer.events if e.get("ph") == "X" and "failed" in e.get("args", {})]
    assert failed and "overflow" in failed[0]["args"]["failed"]


def test_check_trace_catches_what_perfetto_rejects() -> None:
    def base() -> Tracer:
        t = Tracer()
        track = t.track("dev0", "queue 0")
        t.slice(track, "a", 1.0, 5.0)
        t.slice(t.track("dev1", "queue 0"), "b", 6.0, 9.0)
        t.counter("dev0", 64, ts=2.0)
        return t

    assert check_trace(base().to_json()) == []
    t = base()
    t.events.append({"name": "timepoint", "cat": "timepoint", "ph": "s", "id": 99, "ts": 2.0, "pid": 1, "tid": 1})
    assert any("needs one 's' and one 'f'" in p for p in check_trace(t.to_json()))
    t.events.append({"name": "other", "cat": "timepoint", "ph": "f", "bp": "e", "id": 99, "ts": 7.0, "pid": 2, "tid": 1})
    assert any("differ in name or category" in p for p in check_trace(t.to_json()))
    t = base()
    t.events += [{"name": "timepoint", "cat": "timepoint", "ph": "s", "id": 7, "ts": 5.5, "pid": 1, "tid": 1},
                 {"name": "timepoint", "cat": "timepoint", "ph": "f", "bp": "e", "id": 7, "ts": 7.0, "pid": 2, "tid": 1}]
    assert any("inside no slice" in p for p in check_trace(t.to_json()))
    t = base()
    t.events.append({"name": "x", "ph": "X", "ts": 1.0, "pid": 1, "tid": 1})
    assert any("non-negative dur" in p for p in check_trace(t.to_json()))
    t = base()
    t.events.append({"name": "allocated bytes", "ph": "C", "ts": 3.0, "pid": 1, "args": {"bytes": "many"}})
    assert any("numeric series" in p for p in check_trace(t.to_json()))
    t = base()
    t.events.append({"name": "x", "ph": "X", "ts": 1.0, "dur": 1.0, "pid": 1, "tid": 7})
    assert any("unnamed process or thread" in p for p in check_trace(t.to_json()))
    t = base()
    t.slice(t.track("dev0", "queue 0"), "c", 4.0, 6.0)  # starts inside 'a', ends after it
    assert any("without nesting" in p for p in check_trace(t.to_json()))

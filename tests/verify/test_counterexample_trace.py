"""`--trace-counterexample`: the Chrome/Perfetto trace of a witness is a real execution.

The trace is replayed against the event graph: every pair of events it shows that happens-before
orders (a path in the graph) appears in that order in trace time, a slice's end included; every
lane is one named track; and the bad thing is visible (the two racing ops overlap in time, or the
second op of a missed ordering starts before the first one ends).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, parse

from stream.ir.parser import parse_module
from verify import verify_module
from verify.model import FunctionModel
from verify.report import Report
from verify.synth import cmd_program
from verify.witness import MAX_STEPS

PROGRAMS = sorted(CORPUS.glob("*.mlir"))


def _times(trace: dict[str, Any]) -> tuple[dict[int, int], dict[int, int], dict[int, str]]:
    """(event -> trace time, start event -> end time of its slice, tid -> lane name)."""
    at: dict[int, int] = {}
    ends: dict[int, int] = {}
    lanes = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "thread_name"}
    for e in trace["traceEvents"]:
        if e["ph"] == "M":
            continue
        assert e["tid"] in lanes, e
        at[e["args"]["event"]] = e["ts"]
        if e["ph"] == "X":
            ends[e["args"]["event"]] = e["ts"] + e["dur"]
            if "end_event" in e["args"]:
                at[e["args"]["end_event"]] = e["ts"] + e["dur"]
    return at, ends, lanes


def replay(report: Report, index: int) -> None:
    trace = json.loads(json.dumps(report.trace(index)))
    v = [x for x in report.violations if x.witness is not None][index]
    model, ob = v.evidence
    assert isinstance(model, FunctionModel)
    graph = model.graph
    at, ends, lanes = _times(trace)
    assert set(lanes.values()) == {s.lane for s in v.witness.all_steps}
    order = set(v.witness.order)
    assert set(at) <= order, "the trace shows an event the execution does not contain"
    for e in at:
        for u in graph.ancestors([e]):
            if u != e and u in at:
                assert at[u] < at[e], f"event {u} happens before {e} but the trace shows it at {at[u]} >= {at[e]}"
    a, b = ob.first, ob.second
    if ob.shape == "conflict" and a is not None and b is not None and a is not b:
        assert a.start in at and b.start in at
        assert at[a.start] < ends.get(b.start, at.get(b.end, 1 << 60)) and at[b.start] < ends.get(a.start, at.get(a.end, 1 << 60))
    elif ob.shape in ("order", "order_if_overlap") and a is not None and b is not None and b.start in at:
        assert at[b.start] < at.get(a.end, 1 << 60)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_corpus_traces_replay_against_the_hb_graph(path: Path) -> None:
    report = verify_module(parse(path.read_text(), str(path)))
    n = sum(1 for v in report.violations if v.witness is not None)
    for i in range(n):
        replay(report, i)


def test_long_witness_trace_keeps_every_step() -> None:
    # A wide program whose missed wait has a long window: the text elides the middle of the
    # witness, the trace shows all of it, still in an order that respects every edge.
    synth = cmd_program(60, devices=2, width=3, per_region=6, seed=5, faults={"drop-await": 1})
    report = verify_module(parse_module(synth.text, "long.mlir"))
    long = [i for i, v in enumerate(x for x in report.violations if x.witness is not None) if len(v.witness.all_steps) > MAX_STEPS]
    assert long, [len(v.witness.all_steps) for v in report.violations if v.witness is not None]
    for i in long:
        replay(report, i)
        v = [x for x in report.violations if x.witness is not None][i]
        assert any(s.verb == "..." for s in v.witness.steps)
        assert len(report.trace(i)["traceEvents"]) > MAX_STEPS


def test_slices_pair_each_start_with_its_own_end() -> None:
    # Two ops of one name on one lane: each end closes its own op's slice.
    report = verify_module(parse((CORPUS / "cmd_same_queue_not_fifo.mlir").read_text()))
    trace = report.trace()
    for e in trace["traceEvents"]:
        if e["ph"] == "X" and "end_event" in e["args"]:
            model, _ = report.violations[0].evidence
            assert model.graph.site_of[e["args"]["end_event"]].start == e["args"]["event"]

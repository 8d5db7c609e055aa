"""The three forms of a report: text (SPEC §5), JSON (schema `streamproof.verify.report`/1) and
Chrome/Perfetto trace events."""

from __future__ import annotations

import json

import pytest
from conftest import CORPUS, check, parse

from verify import CLASSES, verify_module
from verify.schema import REPORT_SCHEMA, SchemaError, validate

PROGRAMS = sorted(CORPUS.glob("*.mlir"))


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_json_report_follows_the_schema(path) -> None:  # type: ignore[no-untyped-def]
    report = verify_module(parse(path.read_text(), str(path)))
    payload = json.loads(json.dumps(report.to_json()))  # plain JSON, no Python objects
    validate(payload)
    assert payload["status"] == report.status
    assert [v["class"] for v in payload["violations"]] == [v.cls for v in report.violations]
    for v in payload["violations"]:
        assert v["class"] in CLASSES
        if v["witness"] is not None:
            assert [s["step"] for s in v["witness"]["steps"]] == list(range(1, len(v["witness"]["steps"]) + 1))


def test_every_class_of_the_corpus_is_in_the_schema() -> None:
    seen = set()
    for path in PROGRAMS:
        seen |= verify_module(parse(path.read_text(), str(path))).classes
    assert seen == set(CLASSES) - {"VALUE_MISMATCH"}  # every safety class occurs in the corpus
    assert set(REPORT_SCHEMA["properties"]["violations"]["items"]["properties"]["class"]["enum"]) == set(CLASSES)


def test_validator_rejects_broken_reports() -> None:
    payload = check((CORPUS / "cmd_concurrent_raw.mlir").read_text()).to_json()
    validate(payload)
    for breakage in (
        lambda p: p.pop("violations"),
        lambda p: p.update(version=2),
        lambda p: p["violations"][0].update({"class": "RACE"}),
        lambda p: p["violations"][0]["location"].update(line="31"),
        lambda p: p["summary"].update(obligations=1.5),
    ):
        broken = json.loads(json.dumps(payload))
        breakage(broken)
        with pytest.raises(SchemaError):
            validate(broken)


def test_text_form_has_every_part_of_spec_5() -> None:
    text = (CORPUS / "cmd_concurrent_raw.mlir").read_text()
    line = {k: next(i + 1 for i, ln in enumerate(text.splitlines()) if k in ln) for k in ("@produce", "@consume", "%slab, %t1")}
    report = check(text)
    report.violations[0].introduced_by = "schedule-concurrency"
    lines = report.text().splitlines()
    head = f"test.mlir:{line['@consume']}:7: error: RACE_READ_AFTER_WRITE in @concurrent_raw on %slab (alloca at test.mlir:{line['%slab, %t1']}:3) bytes [0, 64)"
    assert lines[0] == head
    assert lines[1].split() == ["write:", "stream.cmd.dispatch", "@produce", "wo", "%s[0", "for", "64]", f"test.mlir:{line['@produce']}:7",
                                "(cmd.concurrent", "in", "execute", "#1", "on", "@dev0)"]
    assert lines[2].split()[:7] == ["read:", "stream.cmd.dispatch", "@consume", "ro", "%s[0", "for", "64]"]
    assert lines[3] == "  introduced by: schedule-concurrency"
    assert lines[4] == "  witness:"
    steps = [ln.split() for ln in lines[5:]]
    assert steps[0] == ["1", "host", "issue", "execute", "#1"]
    assert [s[0] for s in steps] == [str(i) for i in range(1, len(steps) + 1)]
    assert ["reads", "[0,", "64)"] == steps[-2][-3:] and ["writes", "[0,", "64)"] == steps[-1][-3:]


def test_summary_line_counts_how_obligations_were_discharged() -> None:
    report = check((CORPUS / "cmd_symbolic_safe.mlir").read_text())
    s = report.stats
    assert s.obligations == s.by_reachability + s.by_constant + s.by_z3 + s.violated + s.unknown
    assert report.summary().startswith(f"test.mlir: proved: {s.obligations} obligations ({s.by_reachability} by reachability, ")


def test_trace_has_one_track_per_lane() -> None:
    report = check((CORPUS / "cmd_missing_await.mlir").read_text())
    trace = report.trace()
    json.dumps(trace)
    threads = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "thread_name"}
    assert set(threads.values()) == {"host", "@dev0", "timeline"}  # timepoints are reached on the timeline lane
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert {e["name"] for e in slices} >= {"dispatch @second"}
    for e in trace["traceEvents"]:
        if e["ph"] in ("X", "i"):
            assert e["tid"] in threads and e["ts"] >= 0 and e.get("dur", 1) > 0
    assert check((CORPUS / "cmd_serial_ok.mlir").read_text()).trace() == {"traceEvents": [], "displayTimeUnit": "ms"}

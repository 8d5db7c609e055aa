"""`streamproof compile` and `streamproof.compile()`: the per-pass report, the proof summary,
`--report=json`, `--smt*` options, and what a failed pass leaves behind (nothing but the
counterexample)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CORPUS, parse
from mutations import drop_await

import streamproof
from stream.ir.core import Module
from stream.passes import DEFAULT_PIPELINE, PASSES, register_pass
from streamproof.cli import main

ROOT = Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "mlp.mlir"
DYNAMIC = ROOT / "examples" / "dynamic.mlir"


@pytest.fixture
def breaking_pass():  # type: ignore[no-untyped-def]
    @register_pass("test-drop-await")
    def drop(module: Module) -> Module:
        """Drop the await of the first execute region (a broken pass, for tests)."""
        return next(m for d, m, _ in drop_await(module) if "cmd.execute" in d)

    yield "test-drop-await"
    del PASSES["test-drop-await"]


def test_api_compile_reports_every_pass() -> None:
    result = streamproof.compile(MLP.read_text(), filename="mlp.mlir")
    assert [p.name for p in result.passes] == list(DEFAULT_PIPELINE)
    assert all(p.status == "proved" and p.report is not None and p.report.ok for p in result.passes)
    assert result.ok and "stream.cmd.execute" in result.text()
    obligations = sum(p.report.stats.obligations for p in result.passes if p.report)
    assert f"12 passes proved: {obligations} obligations" in result.summary()


def test_api_compile_to_a_level_stops_there() -> None:
    result = streamproof.compile(MLP.read_text(), compile_to="async")
    assert result.passes[-1].name == "encode-tensors" and "stream.async.dispatch" in result.text()
    assert streamproof.compile(MLP.read_text(), compile_to="input").passes == []


def test_api_compile_raises_with_the_counterexample_and_what_ran(breaking_pass: str) -> None:
    with pytest.raises(streamproof.CompileError) as caught:
        streamproof.compile((CORPUS / "cmd_serial_ok.mlir").read_text(), pipeline=f"elide-timepoints,{breaking_pass}")
    e = caught.value
    assert e.pass_name == breaking_pass and e.exit_code == 1 and "USE_BEFORE_ALLOC" in str(e)
    assert [(p.name, p.status) for p in e.result.passes] == [("elide-timepoints", "proved"), (breaking_pass, "violated")]
    assert e.result.to_json()["failed_pass"] == breaking_pass


def test_cli_prints_the_proof_summary_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mlp.cmd.mlir"
    assert main(["compile", str(MLP), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "stream.cmd.execute" in out.read_text()
    assert "12 passes proved" in captured.err and "refinement checked 12x" in captured.err
    parse(out.read_text())  # the output reads back


def test_cli_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mlp.cmd.mlir"
    assert main(["compile", str(MLP), "--report=json", "-o", str(out), "--smt=full"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["schema"] == "streamproof.compile.report" and report["version"] == 1
    assert report["status"] == "proved" and report["failed_pass"] is None
    assert [p["name"] for p in report["passes"]] == list(DEFAULT_PIPELINE)
    for p in report["passes"]:
        assert p["report"]["schema"] == "streamproof.verify.report" and p["report"]["smt"] == "full"
        assert p["transform_ms"] >= 0 and p["verify_ms"] > 0
    assert out.exists()


def test_cli_failed_pass_writes_nothing_but_the_counterexample(breaking_pass: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, trace = tmp_path / "out.mlir", tmp_path / "trace.json"
    out.write_text("// the user's file\n")
    code = main(["compile", str(CORPUS / "cmd_serial_ok.mlir"), f"--pass-pipeline={breaking_pass}", "-o", str(out),
                 "--trace-counterexample", str(trace)])
    err = capsys.readouterr().err
    assert code == 1 and f"introduced by: {breaking_pass}" in err and "witness:" in err
    assert out.read_text() == "// the user's file\n"  # not overwritten
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e.get("ph") == "X" for e in events)


def test_cli_failed_pass_json(breaking_pass: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["compile", str(CORPUS / "cmd_serial_ok.mlir"), f"--pass-pipeline={breaking_pass}", "--report=json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["status"] == "violated" and report["failed_pass"] == breaking_pass
    (failed,) = report["passes"]
    assert {v["class"] for v in failed["report"]["violations"]} >= {"USE_BEFORE_ALLOC"}


def test_cli_smt_dump_writes_the_z3_queries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(DYNAMIC), "-o", str(tmp_path / "d.mlir"), "--smt-dump", str(tmp_path / "q")]) == 0
    queries = sorted((tmp_path / "q").glob("*.smt2"))
    assert queries and all("(set-logic" in q.read_text() for q in queries)


def test_cli_bad_options_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(MLP), "--rlimit", "0"]) == 2
    assert main(["compile", str(MLP), "--pass-pipeline=no-such-pass"]) == 2
    err = capsys.readouterr().err
    assert "compile: error: --rlimit must be a positive integer" in err and "compile: error: unknown pass 'no-such-pass'" in err


def test_cli_print_ir_after_an_unknown_pass_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A misspelled pass used to be accepted and print nothing, as if the pass had not run.
    out = tmp_path / "out.mlir"
    assert main(["compile", str(MLP), "--print-ir-after", "elide-timepoint", "-o", str(out)]) == 2
    assert "--print-ir-after: unknown pass 'elide-timepoint'" in capsys.readouterr().err and not out.exists()
    assert main(["compile", str(MLP), "--print-ir-after", "elide-timepoints", "-o", str(out)]) == 0
    assert "IR Dump After ElideTimepoints (elide-timepoints)" in capsys.readouterr().err


def test_cli_never_overwrites_its_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "mlp.mlir"
    source.write_text(MLP.read_text())
    alias = tmp_path / "sub" / ".." / "mlp.mlir"  # the same file spelled another way
    (tmp_path / "sub").mkdir()
    assert main(["compile", str(source), "-o", str(alias)]) == 2
    assert main(["compile", str(source), "-o", str(tmp_path / "out.mlir"), "--trace-counterexample", str(source)]) == 2
    assert main(["verify", str(source), "--trace-counterexample", str(source)]) == 2
    err = capsys.readouterr().err
    assert err.count("refusing to overwrite it") == 3 and all(line.startswith("streamproof") for line in err.splitlines())
    assert source.read_text() == MLP.read_text() and not (tmp_path / "out.mlir").exists()
    assert main(["compile", str(source), "-o", str(tmp_path / "out.mlir")]) == 0  # another file is fine


def test_summary_parts_add_up_to_the_obligations() -> None:
    # diamond's schedule-allocation output has two LEAK warnings (ARC frees later): the summary
    # counts them, so that reachability + constant ranges + Z3 + warnings = obligations.
    import re

    result = streamproof.compile((ROOT / "examples" / "diamond.mlir").read_text(), filename="diamond.mlir")
    m = re.search(r"(\d+) obligations \((\d+) by reachability, (\d+) by constant ranges, (\d+) by Z3(?:, (\d+) warning\(s\)[^)]*)?\)", result.summary())
    assert m is not None, result.summary()
    total, *parts = (int(g or 0) for g in m.groups())
    assert m.group(5) is not None and sum(parts) == total
    # and the summary says they are gone by the end (ARC frees), so a user need not chase them
    assert "2 warning(s) in intermediate passes, none in the output" in result.summary()


def test_cli_a_violation_the_input_already_has_fails_the_compile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # elide-timepoints introduces nothing here, so its proof holds; but the input's race is still in
    # the output, and the compile said "1 passes proved" with exit 0 and wrote it.
    out = tmp_path / "out.mlir"
    code = main(["compile", str(CORPUS / "cmd_concurrent_raw.mlir"), "--pass-pipeline=elide-timepoints", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and not out.exists()
    assert "the input already has 1 violation(s) that every pass kept" in err and "RACE_READ_AFTER_WRITE" in err
    assert "passes proved" not in err
    assert main(["compile", str(CORPUS / "cmd_concurrent_raw.mlir"), "--pass-pipeline=elide-timepoints", "--report=json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "violated" and report["failed_pass"] is None and report["input_violations"] == 1
    assert [p["status"] for p in report["passes"]] == ["proved"]
    # Asked for, the output is written and the summary says what it keeps.
    assert main(["compile", str(CORPUS / "cmd_concurrent_raw.mlir"), "--pass-pipeline=elide-timepoints",
                 "--allow-input-violations", "-o", str(out)]) == 0
    assert "keeps 1 violation(s) the input already had, so it is not safe" in capsys.readouterr().err and out.exists()
    out.unlink()
    # The same pass on the input's safe twin compiles.
    assert main(["compile", str(CORPUS / "cmd_concurrent_disjoint_ok.mlir"), "--pass-pipeline=elide-timepoints", "-o", str(out)]) == 0

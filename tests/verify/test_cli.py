"""`streamproof verify` and `streamproof prove` on the command line: outputs and exit codes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import CORPUS, IREE, ROOT

from streamproof.cli import main
from verify.schema import validate


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_proved_program_exits_0_with_a_one_line_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["verify", str(IREE / "b_diamond/generic/10_elide_timepoints.generic.mlir")], capsys)
    assert code == 0 and err == ""
    (line,) = out.splitlines()
    assert ": proved: " in line and "by reachability" in line and "by Z3" in line and line.endswith(" s")


def test_violation_exits_1_with_the_counterexample(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["verify", str(CORPUS / "cmd_missing_await.mlir")], capsys)
    assert code == 1
    assert "error: MISSED_WAIT in @missing_await on %tmp" in out and "witness:" in out and "FAILED" in out.splitlines()[-1]


def test_warnings_alone_still_prove(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["verify", str(CORPUS / "cmd_leak.mlir")], capsys)
    assert code == 0 and "warning: LEAK" in out and "1 warning(s)" in out


@pytest.mark.parametrize(
    "text, message",
    [
        ("util.func @f( {", "error:"),
        ("""util.func public @f(%c: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "scf.execute_region"() ({
    "scf.for"(%c0, %n, %c1) ({
    ^bb0(%i: index):
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    "scf.yield"() : () -> ()
  }) : () -> ()
  util.return
}""", "this loop (control flow) is not supported by the verifier"),
    ],
)
def test_bad_input_exits_2_with_a_diagnostic(tmp_path: Path, text: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "bad.mlir"
    f.write_text(text)
    code, out, err = run(["verify", str(f)], capsys)
    assert code == 2 and message in err and "Traceback" not in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["verify", "no/such/file.mlir"], capsys)[0] == 2
    assert run(["verify", str(CORPUS / "cmd_serial_ok.mlir"), "--rlimit", "0"], capsys)[0] == 2
    assert run(["verify", str(CORPUS / "cmd_serial_ok.mlir"), "--smt=half"], capsys)[0] == 2


def test_help_shows_examples() -> None:
    proc = subprocess.run([sys.executable, "-m", "streamproof", "verify", "-h"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0
    assert "examples:" in proc.stdout and "--smt-dump" in proc.stdout and "--trace-counterexample" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "streamproof", "prove", "-h"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and "examples:" in proc.stdout


def test_version_names_streamproof_z3_and_numpy() -> None:
    from importlib.metadata import version

    import numpy
    import z3

    proc = subprocess.run([sys.executable, "-m", "streamproof", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"streamproof {version('streamproof')} (z3-solver {version('z3-solver')}, numpy {numpy.__version__})"
    assert z3.get_version_string() in proc.stdout


def test_json_report_and_trace_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "race.json"
    code, out, _ = run(["verify", str(CORPUS / "cmd_concurrent_raw.mlir"), "--report=json", "--trace-counterexample", str(trace)], capsys)
    assert code == 1
    payload = json.loads(out)
    validate(payload)
    assert payload["violations"][0]["class"] == "RACE_READ_AFTER_WRITE"
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e["ph"] == "X" and e["name"] == "dispatch @consume" for e in events)


def test_stdin_split_input_and_function_filter(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    text = (CORPUS / "cmd_serial_ok.mlir").read_text() + "\n// -----\n" + (CORPUS / "cmd_concurrent_raw.mlir").read_text()
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code, out, _ = run(["verify", "-", "--split-input-file"], capsys)
    assert code == 1 and out.count("<stdin>: ") == 2 and "RACE_READ_AFTER_WRITE" in out
    both = (CORPUS / "cmd_serial_ok.mlir").read_text() + (CORPUS / "cmd_concurrent_raw.mlir").read_text().replace("// EXPECT", "//")
    monkeypatch.setattr(sys, "stdin", io.StringIO(both))
    assert run(["verify", "-", "--function", "serial_ok"], capsys)[0] == 0


def test_refines_uses_the_refinement_checker(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import verify.hook as hook
    from stream.ir.core import Location

    after = CORPUS / "cmd_serial_ok.mlir"
    mismatch = SimpleNamespace(
        function="serial_ok", what="result 0 (%r)", byte_range=("0", "64"), location=Location(str(after), 16, 5),
        op="stream.cmd.dispatch @ex::@consume", before="@ex::@consume#1(...)", after="@ex::@consume#2(...)", message="swapped", example={},
    )
    calls = []

    def fake(before, after_module, function=None, skip_unchanged=False):  # type: ignore[no-untyped-def]
        calls.append(function)
        return SimpleNamespace(mismatches=[mismatch], unknowns=[])

    monkeypatch.setattr(hook, "refinement_checker", lambda: fake)
    code, out, _ = run(["verify", str(after), "--refines", str(after)], capsys)
    assert code == 1 and calls == [None]
    assert "error: VALUE_MISMATCH in @serial_ok: result 0 (%r) differs at bytes [0, 64)" in out
    assert "after:  @ex::@consume#2(...)" in out


def test_prove_reports_surprises(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.mlir"
    good.write_text((CORPUS / "cmd_serial_ok.mlir").read_text())
    assert run(["prove", str(good)], capsys)[0] == 0
    wrong = tmp_path / "wrong.mlir"
    wrong.write_text((CORPUS / "cmd_concurrent_raw.mlir").read_text().replace("EXPECT: RACE_READ_AFTER_WRITE", "EXPECT: proved"))
    code, out, _ = run(["prove", str(wrong)], capsys)
    assert code == 1 and "FAIL corpus wrong.mlir: expected proved" in out and "1 surprise" in out
    lemma = tmp_path / "lemmas" / "wrong_union.py"
    lemma.parent.mkdir()
    lemma.write_text((ROOT / "proofs/lemmas/select_union_refuted.py").read_text().replace(', expect="refuted"', ""))
    code, out, _ = run(["prove", str(lemma.parent)], capsys)
    assert code == 1 and "FAIL lemma select-union: refuted (expected proved)" in out and "counterexample" in out
    broken = tmp_path / "broken" / "truncated.mlir"
    broken.parent.mkdir()
    broken.write_text(good.read_text()[: len(good.read_text()) // 2])
    code, out, _ = run(["prove", str(broken)], capsys)
    assert code == 2 and f"FAIL corpus truncated.mlir: bad input: {broken}:" in out and ": error: " in out
    broken.write_text("util.func @f() {\n  util.return\n}\n")
    code, out, _ = run(["prove", str(broken)], capsys)
    assert code == 2 and "no '// EXPECT:' line" in out
    code, _, err = run(["prove", str(tmp_path / "nothing")], capsys)
    assert code == 2 and err.startswith("streamproof prove: error: no such file or directory")


def _bad_inputs(tmp: Path) -> dict[str, list[str]]:
    good = CORPUS / "cmd_concurrent_raw.mlir"
    text = good.read_text()
    (tmp / "truncated.mlir").write_text(text[: len(text) // 2])
    (tmp / "misspelled.mlir").write_text(text.replace("stream.cmd.dispatch", "stream.cmd.dispatc", 1))
    (tmp / "a_file").write_text("")
    return {
        "truncated file": [str(tmp / "truncated.mlir")],
        "misspelled op": [str(tmp / "misspelled.mlir")],
        "--refines on a missing file": [str(good), "--refines", str(tmp / "missing.mlir")],
        "--refines on a truncated file": [str(good), "--refines", str(tmp / "truncated.mlir")],
        "--rlimit 0": [str(good), "--rlimit", "0"],
        "--rlimit -3": [str(good), "--rlimit", "-3"],
        "--smt-dump onto a file": [str(good), "--smt-dump", str(tmp / "a_file")],
        "--trace-counterexample into a missing directory": [str(good), "--trace-counterexample", str(tmp / "no" / "t.json")],
        "--trace-counterexample onto a directory": [str(good), "--trace-counterexample", str(tmp)],
        "--function that does not exist": [str(good), "--function", "nosuch"],
    }


@pytest.mark.parametrize("case", [
    "truncated file", "misspelled op", "--refines on a missing file", "--refines on a truncated file", "--rlimit 0", "--rlimit -3",
    "--smt-dump onto a file", "--trace-counterexample into a missing directory", "--trace-counterexample onto a directory",
    "--function that does not exist",
])
def test_bad_input_as_a_user_gives_error_and_exit_2(tmp_path: Path, case: str) -> None:
    argv = _bad_inputs(tmp_path)[case]
    proc = subprocess.run([sys.executable, "-m", "streamproof", "verify", *argv], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2, (case, proc.stdout, proc.stderr)
    assert "error:" in proc.stderr and "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    assert not (tmp_path / "no").exists()


def test_refines_on_real_iree_stages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Stage 10 refines stage 07; the same stage 10 reading the wrong slab offset does not.
    before = IREE / "b_diamond/generic/07_schedule_allocation.generic.mlir"
    after = IREE / "b_diamond/10_elide_timepoints.mlir"
    code, out, _ = run(["verify", str(after), "--refines", str(before)], capsys)
    assert code == 0 and ": proved: " in out
    old = "ro %arg11[%c0 for %c16384] : !stream.resource<transient>{%c49152},\n        ro %arg9"
    text = after.read_text()
    assert text.count(old) == 1
    wrong = tmp_path / "wrong.mlir"
    wrong.write_text(text.replace(old, old.replace("%c0 for", "%c16384 for")))
    code, out, _ = run(["verify", str(wrong), "--refines", str(before)], capsys)
    assert code == 1 and "error: VALUE_MISMATCH in @diamond: result 0" in out and "diamond_dispatch_3" in out


def test_json_of_several_chunks_follows_the_reports_schema(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from verify.schema import REPORTS_SCHEMA, SchemaError

    text = (CORPUS / "cmd_serial_ok.mlir").read_text() + "\n// -----\n" + (CORPUS / "cmd_concurrent_raw.mlir").read_text()
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code, out, _ = run(["verify", "-", "--split-input-file", "--report=json"], capsys)
    payload = json.loads(out)
    assert code == 1
    validate(payload, REPORTS_SCHEMA)
    assert [r["status"] for r in payload["reports"]] == ["proved", "violated"]
    payload["reports"][1].pop("violations")
    with pytest.raises(SchemaError):
        validate(payload, REPORTS_SCHEMA)


def test_whole_file_errors_name_the_file_without_a_made_up_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.mlir"
    latin1 = tmp_path / "latin1.mlir"
    latin1.write_bytes(b"// caf\xe9\n")
    for path, message in ((missing, "no such file"), (latin1, "not UTF-8 text"), (tmp_path, "is a directory")):
        code, _, err = run(["verify", str(path)], capsys)
        assert code == 2 and err.startswith(f"{path}: error: {message}"), err

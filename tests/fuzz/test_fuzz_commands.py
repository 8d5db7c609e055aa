"""Fuzz test of the three commands (issue 9, "Keep it true"): mutants of the corpus, the examples
and the IREE dumps (`mutator.py`) go through `streamproof compile`, `verify` and `run` in a
contained child process (`harness.py`); none may hang, show a traceback, exit 3 without an
undecided obligation, or clobber a file.

CI size: `FUZZ_CASES` cases (default 40, a few seconds) from `FUZZ_SEED` (default 0). Long mode:
`FUZZ_CASES=2000 FUZZ_SEED=$RANDOM pytest tests/fuzz/test_fuzz_commands.py -s` (the summary prints
with `-s`); `FUZZ_KEEP=DIR` keeps each failing case's directory to reproduce it, `FUZZ_TIMEOUT` is
the per-case limit in seconds (default 60). `python tests/fuzz/harness.py CASES SEED [KEEP]` runs
the same outside pytest.
"""

from __future__ import annotations

import dataclasses
import os
import random
from pathlib import Path

from harness import KNOWN, Case, Outcome, Worker, check, make_case, run_case, run_fuzz
from mutator import FAMILIES, ROOT, mutate, seeds

CASES = int(os.environ.get("FUZZ_CASES", "40"))
SEED = int(os.environ.get("FUZZ_SEED", "0"))
TIMEOUT = float(os.environ.get("FUZZ_TIMEOUT", "60"))


def test_fuzzed_commands_fail_cleanly() -> None:
    keep = os.environ.get("FUZZ_KEEP")
    result = run_fuzz(CASES, SEED, TIMEOUT, Path(keep) if keep else None)
    print("\n" + result.summary())
    assert len(result.outcomes) == CASES
    assert {o.case.command for o in result.outcomes} == {"compile", "verify", "run"}
    new = result.new()
    assert not new, f"{len(new)} finding(s) (FUZZ_SEED={SEED}, FUZZ_CASES={CASES}):\n" + "\n".join(
        f"{f}\n    {o.case.describe()[:600]}\n    {o.stderr.strip()[-1500:]}" for o, f in new[:10])


def test_the_mutator_is_deterministic_and_covers_every_family() -> None:
    pool = [p.read_text() for p in seeds()]
    assert len(pool) >= 100 and any("proofs/corpus" in str(p) for p in seeds()) and any("/iree/" in str(p) for p in seeds())
    first = [mutate(pool[i % len(pool)], random.Random(i), pool[:3]) for i in range(300)]
    again = [mutate(pool[i % len(pool)], random.Random(i), pool[:3]) for i in range(300)]
    assert first == again
    assert {edit.split(":")[0] for _, edits in first for edit in edits} == set(FAMILIES)
    assert sum(text != pool[i % len(pool)] for i, (text, _) in enumerate(first)) > 250


def _outcome(rc: object, stderr: str = "", command: str = "verify", existing: list[str] | None = None) -> Outcome:
    case = Case(0, "seed.mlir", [], [command, "in.mlir"], b"", ["out.mlir"], existing or [])
    return Outcome(case, rc, "", stderr)


def test_the_checks_flag_what_the_readme_rules_out() -> None:
    same = {"in.mlir": ("a", 0o644)}
    assert check(_outcome(0), same, same, 1) == []
    assert check(_outcome(3, "x.mlir:1:1: error: could not decide RACE_READ_AFTER_WRITE (solver: unknown); not proved"), same, same, 1) == []
    assert check(_outcome(2, "x.mlir:1:2: error: expected '}'"), same, same, 1) == []
    json_undecided = Outcome(_outcome(3).case, 3, '{\n  "status": "unknown",\n  "unknowns": [{"class": "MISSED_WAIT"}]\n}\n', "")
    assert check(json_undecided, same, same, 1) == []
    internal = "streamproof: internal error: KeyError: 'x' (at model.py:12)\nTraceback (most recent call last):\n  File \"m.py\", line 1"
    assert check(_outcome(3, internal), same, same, 1)[0].startswith("traceback: streamproof: internal error: KeyError")
    assert check(_outcome(3, "x: error: something else"), same, same, 1)[0].startswith("exit 3 without an undecided obligation")
    assert check(_outcome(2, ""), same, same, 1) == ["exit 2 without an error diagnostic"]
    assert check(_outcome(-11), same, same, 1) == ["exit code -11"]
    assert check(_outcome("hang"), same, same, 5) == ["hang: no answer in 5 s"]
    assert check(_outcome(0), same, {"in.mlir": ("b", 0o644)}, 1) == ["clobbered: in.mlir changed"]
    assert check(_outcome(0), same, {**same, ".streamproof-x.tmp": ("", 0o600)}, 1) == ["clobbered: unexpected file .streamproof-x.tmp left behind"]
    before = {**same, "out.mlir": ("old", 0o644)}
    assert check(_outcome(1, "error: x", "compile", ["out.mlir"]), before, {**same, "out.mlir": ("new", 0o644)}, 1) == [
        "clobbered: out.mlir replaced although compile failed (exit 1)"]
    assert check(_outcome(0, "", "compile", ["out.mlir"]), before, {**same, "out.mlir": ("new", 0o600)}, 1) == [
        "clobbered: out.mlir mode 644 became 600"]
    fifo = Outcome(Case(0, "seed.mlir", [], ["compile", "in.mlir", "-o", "pipe.out"], b"", ["pipe.out"], [], {"pipe.out": "fifo"}), 0)
    assert check(fifo, {**same, "pipe.out": ("fifo", 0o644)}, {**same, "pipe.out": ("fifo", 0o644)}, 1) == []
    assert check(fifo, {**same, "pipe.out": ("fifo", 0o644)}, {**same, "pipe.out": ("x", 0o644)}, 1) == [
        "clobbered: the FIFO pipe.out was replaced by a regular file"]
    assert all(pattern and "item" in item for pattern, item in KNOWN)


def test_special_outputs_are_made_and_checked(tmp_path: Path) -> None:
    """A FIFO output is drained while the command writes it and must stay a FIFO; an output that
    is a symlink to the input must leave the input as it was (items 15 and 17)."""
    worker = Worker(tmp_path / "worker.log")
    source = (ROOT / "proofs" / "corpus" / "cmd_serial_ok.mlir").read_bytes()
    try:
        fifo = Case(0, "cmd_serial_ok", [], ["compile", "in.mlir", "-o", "pipe.out", "--pass-pipeline="], source, ["pipe.out"], [],
                    {"pipe.out": "fifo"})
        assert run_case(worker, fifo, tmp_path / "a", timeout=120).findings == []
        link = Case(1, "cmd_serial_ok", [], ["compile", "in.mlir", "-o", "alias.out", "--pass-pipeline="], source, ["alias.out"], [],
                    {"alias.out": "link:in.mlir"})
        outcome = run_case(worker, link, tmp_path / "b", timeout=120)
        assert outcome.findings == [] and outcome.rc == 2, outcome.stderr
    finally:
        worker.stop()


def test_a_hung_case_is_killed_and_the_next_case_runs(tmp_path: Path) -> None:
    worker = Worker(tmp_path / "worker.log")
    source = ROOT / "examples" / "diamond.mlir"
    try:
        case = Case(0, "examples/diamond.mlir", [], ["compile", "in.mlir", "-o", "out.mlir"], source.read_bytes(), ["out.mlir"], [])
        hung = run_case(worker, case, tmp_path / "a", timeout=0.05)
        assert hung.rc == "hang" and hung.findings == ["hang: no answer in 0.05 s"]
        assert worker.proc is None  # killed
        ok = run_case(worker, dataclasses.replace(case, index=1), tmp_path / "b", timeout=120)
        assert ok.rc == 0 and ok.findings == [] and "12 passes proved" in ok.stderr
    finally:
        worker.stop()


def test_cases_are_a_function_of_the_seed() -> None:
    pool = [(str(p.relative_to(ROOT)), p.read_text()) for p in seeds()]
    a = [make_case(i, rng, pool) for rng in [random.Random(5)] for i in range(30)]
    b = [make_case(i, rng, pool) for rng in [random.Random(5)] for i in range(30)]
    assert [(c.seed, c.argv, c.data) for c in a] == [(c.seed, c.argv, c.data) for c in b]

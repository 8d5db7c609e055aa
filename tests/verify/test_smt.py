"""SMT-LIB certificates and failing closed.

`--smt-dump DIR` writes every Z3 query as a standalone SMT-LIB 2 file with `set-logic`; cvc5
(an independent solver) must give the same answer as z3 on them, and that answer must match the
verdict (`sat` = the obligation fails). A solver `unknown` or an `rlimit` hit is never "proved":
the report is `unknown` and the command exits 3.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cvc5
import pytest
import z3
from conftest import CORPUS, ROOT, parse

from verify import verify_module

NONLINEAR = """
util.func public @area(%w: index, %h: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c1_i32 = arith.constant 1 : i32
  %n = arith.muli %w, %h : index
  %size = arith.muli %n, %w : index
  %buf, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%size} => !stream.timepoint
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%buf as %b: !stream.resource<external>{%size}) {
    stream.cmd.fill %c1_i32, %b[%c0 for %n] : i32 -> !stream.resource<external>{%size}
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%size}
  util.return %r : !stream.resource<external>
}
"""


def cvc5_answer(path: Path) -> str:
    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    parser = cvc5.InputParser(solver)
    parser.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, str(path))
    symbols = parser.getSymbolManager()
    answers = []
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        out = command.invoke(solver, symbols)
        if out.strip():
            answers.append(out.strip())
    assert len(answers) == 1, answers
    return answers[0]


def z3_answer(path: Path) -> str:
    solver = z3.Solver()
    solver.from_file(str(path))
    return str(solver.check())


@pytest.mark.parametrize("program", ["cmd_symbolic_racy", "cmd_oob_clamped_ok", "cmd_pack_live_at_once", "cmd_missing_await"])
@pytest.mark.parametrize("smt", ["pruned", "full"])
def test_dumped_queries_recheck_with_cvc5(tmp_path: Path, program: str, smt: str) -> None:
    report = verify_module(parse((CORPUS / f"{program}.mlir").read_text()), smt=smt, smt_dump=str(tmp_path))
    files = sorted(tmp_path.glob("*.smt2"))
    assert len(files) == report.stats.z3_queries
    if smt == "full":
        assert len(files) == report.stats.obligations  # no fact-shaped obligations in these programs
    answers = []
    for f in files[:: max(1, len(files) // 12)]:  # a sample keeps the test fast in full mode
        lines = [ln for ln in f.read_text().splitlines() if not ln.startswith(";")]
        assert lines[0].startswith("(set-logic QF_"), f
        theirs, ours = cvc5_answer(f), z3_answer(f)
        assert theirs == ours, f
        answers.append(theirs)
    if smt == "full" and len(answers) == len(files):
        assert ("sat" in answers) == (not report.ok)


def test_nonlinear_sizes_are_dumped_as_nonlinear_arithmetic(tmp_path: Path) -> None:
    report = verify_module(parse(NONLINEAR), smt_dump=str(tmp_path))
    assert report.ok  # n = w*h bytes fit in w*h*w bytes when w >= 1 ... and when w = 0 both are empty
    logics = {next(ln for ln in f.read_text().splitlines() if ln.startswith("(set-logic")) for f in tmp_path.glob("*.smt2")}
    assert "(set-logic QF_NIA)" in logics
    for f in tmp_path.glob("*.smt2"):
        assert cvc5_answer(f) == z3_answer(f) == "unsat"


def test_rlimit_hit_is_unknown_never_proved() -> None:
    module = parse((CORPUS / "cmd_symbolic_safe.mlir").read_text())
    assert verify_module(module).ok
    starved = verify_module(module, rlimit=1)
    assert starved.status == "unknown" and not starved.ok and starved.unknowns
    assert all("canceled" in u.reason or "resource" in u.reason or u.reason for u in starved.unknowns)
    full = verify_module(module, smt="full", rlimit=1)
    assert full.status == "unknown"


def test_cli_exits_3_on_rlimit() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "streamproof", "verify", str(CORPUS / "cmd_symbolic_safe.mlir"), "--rlimit", "1"],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert run.returncode == 3, run.stdout + run.stderr
    assert "not proved" in run.stdout and "NOT PROVED" in run.stdout


def test_queries_under_one_closure_of_facts_share_one_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every range question of this schedule depends on the same few hundred facts (one dynamic
    # dim reaches every size and slab offset). A fresh solver per query re-asserted them each
    # time: 14 s for 400 queries; one incremental solver per closure, each query in a push/pop
    # scope: 0.6 s, the same verdicts.
    import verify.discharge as discharge
    from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline

    source = parse((ROOT / "tests/data/programs/symbolic_slab.mlir").read_text(), "symbolic_slab.mlir")
    scheduled, _ = run_pipeline(source, parse_pipeline(",".join(DEFAULT_PIPELINE[: DEFAULT_PIPELINE.index("schedule-allocation") + 1])), verify="none")
    made: list[z3.Solver] = []

    class CountingSolver(z3.Solver):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            made.append(self)

    monkeypatch.setattr(discharge.z3, "Solver", CountingSolver)
    report = verify_module(scheduled)
    # (Since races between two slices live at once are implied by the pack's layout and each
    # access staying in its slice, about 340 of its 405 queries are no longer asked.)
    assert report.ok and report.stats.unknown == 0 and report.stats.by_z3 > 100
    assert report.stats.z3_queries > 50 and len(made) <= 8


def test_each_function_and_each_refinement_check_has_its_own_z3_context() -> None:
    # Z3 keeps state per context: after one counterexample search (event times, difference
    # constraints) in the process-wide context, every later check there ran up to 10x slower (a
    # 190-line random program compiled in 47 s instead of 9.5 s). Formulas of a function's safety
    # check, its counterexamples and each refinement check live in private contexts.
    from stream.ir.walk import functions
    from verify.refinement.machine import Context as RefinementContext
    from verify.storage import analyze_storage

    module = parse(NONLINEAR, "area.mlir")
    (func,) = functions(module)
    first, second = analyze_storage(func, module).symbols, analyze_storage(func, module).symbols
    assert first.ctx is not z3.main_ctx() and first.ctx is not second.ctx
    w = first.z3(first.expr(func.arguments[0]))
    assert w.ctx is first.ctx
    refinement = RefinementContext.create(1000)
    assert refinement.ints.ctx is not z3.main_ctx() and refinement.facts.solver.ctx is refinement.ints.ctx
    shared = z3.Context()
    cases = [RefinementContext.create(1000, shared) for _ in range(2)]
    assert all(c.ints.ctx is shared and c.facts.solver.ctx is shared for c in cases)  # split conditions carry over

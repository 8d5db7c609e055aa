"""The Python API: the command line's three jobs as functions.

    import streamproof
    result = streamproof.compile(text)                 # every pass proved; raises CompileError
    print(result.text())                               # the cmd-level schedule
    for p in result.passes:                            # per pass: timings and the proof report
        print(p.name, p.transform_seconds, p.verify_seconds, p.report.summary())
    report = streamproof.verify(result.module)         # a verify.report.Report (report.ok)
    run = streamproof.run(text, inputs=[x, w])         # compiles input-level programs first
    run.results                                        # numpy arrays

Programs are given as MLIR text (pretty or generic form) or as a `Module` (from
`streamproof.parse` or `stream.builder`). Bad input raises `stream.ir.DiagnosticError`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from stream.ir.core import Module
from stream.ir.element_types import check_sized
from stream.ir.parser import parse_module
from stream.ir.printer import print_module
from stream.ir.verifier import verify_structure
from stream.ir.walk import functions
from stream.passes import DEFAULT_PIPELINE, PassInfo, PassRecord, PassVerificationError, parse_pipeline, run_pipeline
from verify.discharge import DEFAULT_RLIMIT
from verify.hook import make_hook, refinement_findings
from verify.report import Report

__all__ = ["compile", "verify", "run", "CompileResult", "PassResult", "CompileError", "LEVELS", "COMPILE_SCHEMA_VERSION"]

LEVELS = ("input", "tensor", "async", "cmd", "final")
COMPILE_SCHEMA_VERSION = 1


@dataclass(slots=True)
class PassResult:
    """One pass of a compile: how long it took, how long its proof took, and the proof's report
    (None when verification was off, or deferred to the end with verify="final")."""

    name: str
    transform_seconds: float
    verify_seconds: float
    report: Report | None
    status: str = "proved"  # "proved" | "unverified" | "violated" | "unknown"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "transform_ms": round(1000 * self.transform_seconds, 3),
            "verify_ms": round(1000 * self.verify_seconds, 3),
            "report": self.report.to_json() if self.report is not None else None,
        }


@dataclass(slots=True)
class CompileResult:
    """The output module and what every pass did."""

    module: Module
    passes: list[PassResult] = field(default_factory=list)
    file: str = "<string>"
    verify: str = "each"
    # Violations the input already had and every pass kept (none was introduced by a pass, so each
    # pass is proved, but the output is not safe): a compile with any fails (CompileError).
    input_violations: int = 0
    # The pipeline's wall time (with `jobs`, the passes' own seconds overlap and add up to more).
    wall_seconds: float | None = None

    def text(self, generic: bool = False) -> str:
        return print_module(self.module, generic)

    @property
    def ok(self) -> bool:
        return not self.input_violations and all(p.status in ("proved", "unverified") for p in self.passes)

    def summary(self) -> str:
        """One line: what was proved, by what, in how long."""
        reports = [p.report for p in self.passes if p.report is not None]
        if not reports:
            return f"{self.file}: compiled {len(self.passes)} pass(es), not verified"
        obligations = sum(r.stats.obligations for r in reports)
        reach = sum(r.stats.by_reachability for r in reports)
        const = sum(r.stats.by_constant for r in reports)
        z3 = sum(r.stats.by_z3 for r in reports)
        refined = sum(1 for r in reports if r.refinement is not None)
        seconds = self.wall_seconds if self.wall_seconds is not None else sum(p.transform_seconds + p.verify_seconds for p in self.passes)
        if self.verify == "final":
            what = f"{len(self.passes)} passes, the result proved against the input"
        else:
            what = f"{len(reports)} passes proved"
        # A proved pass may still flag warnings (a LEAK before automatic-reference-counting adds
        # the frees); say so, so that the parts add up to the total.
        warnings = sum(sum(1 for v in r.violations if v.severity == "warning") for r in reports)
        in_output = sum(1 for v in reports[-1].violations if v.severity == "warning")
        flagged = f", {warnings} warning(s)" if warnings else ""
        if warnings and not in_output:
            flagged += " in intermediate passes, none in the output"
        kept = (f"; the output keeps {self.input_violations} violation(s) the input already had, so it is not safe"
                if self.input_violations else "")
        return (f"{self.file}: {what}: {obligations} obligations ({reach} by reachability, {const} by constant ranges, "
                f"{z3} by Z3{flagged}), refinement checked {refined}x, in {seconds:.2f} s{kept}")

    def to_json(self) -> dict[str, Any]:
        """`--report=json` of `streamproof compile`: schema `streamproof.compile.report`,
        version 1: `file`, `status` ("proved", "unverified", "violated", "unknown"),
        `failed_pass` (or null), totals in milliseconds, and `passes` (each `name`, `status`,
        `transform_ms`, `verify_ms`, `report`: a `streamproof.verify.report` or null)."""
        failed = next((p for p in self.passes if p.status in ("violated", "unknown")), None)
        if failed is not None:
            status = failed.status
        elif self.input_violations:
            status = "violated"
        else:  # with verify="final" the last pass's proof covers the whole pipeline
            status = "proved" if self.passes and self.passes[-1].status == "proved" else "unverified"
        return {
            "schema": "streamproof.compile.report",
            "version": COMPILE_SCHEMA_VERSION,
            "file": self.file,
            "status": status,
            "failed_pass": failed.name if failed is not None else None,
            "input_violations": self.input_violations,
            "transform_ms": round(sum(1000 * p.transform_seconds for p in self.passes), 3),
            "verify_ms": round(sum(1000 * p.verify_seconds for p in self.passes), 3),
            "passes": [p.to_json() for p in self.passes],
        }


class CompileError(Exception):
    """A pass produced output that was not proved. `pass_name` names it, `report` holds the
    counterexample (a `verify.report.Report`), `result` what ran before (with the failing pass
    last, status "violated" or "unknown"); `str(e)` is the counterexample text.

    Or (`pass_name` None, `result.input_violations` > 0): every pass was proved, but the input
    already had violations that the output keeps; `report` is the last pass's report."""

    def __init__(self, error: PassVerificationError | None, result: CompileResult, report: Report | None = None) -> None:
        if error is None:
            assert report is not None
            super().__init__(_kept_violations_text(result, report))
            self.pass_name: str | None = None
            self.report: Report = report
            self.exit_code = 1
        else:
            super().__init__(str(error))
            self.pass_name = error.pass_name
            self.report = error.report
            self.exit_code = int(getattr(error.report, "exit_code", 0) or 1)
        self.result = result


def _kept_violations_text(result: CompileResult, report: Report) -> str:
    kept = [v for v in report.violations if v.pre_existing and v.severity == "error"]
    head = (f"{result.file}: error: the input already has {len(kept)} violation(s) that every pass kept "
            f"(no pass introduced one, so each pass is proved, but the output is not safe):")
    return "\n".join([head, *(v.text() for v in kept)])


def _module(program: str | Module, filename: str) -> Module:
    return parse_module(program, filename) if isinstance(program, str) else program


def compile(
    program: str | Module,
    *,
    pipeline: str | None = None,
    compile_to: str = "final",
    verify: str = "each",
    smt: str = "pruned",
    rlimit: int = DEFAULT_RLIMIT,
    smt_dump: str | None = None,
    filename: str = "<string>",
    after_pass: Any = None,
    allow_input_violations: bool = False,
    jobs: int = 1,
) -> CompileResult:
    """Lower `program` through `pipeline` (default: SPEC §4's twelve passes; "" for none),
    proving every pass (`verify="each"`), only the end result ("final") or nothing ("none").
    Stops once `compile_to` ("input", "tensor", "async", "cmd") is reached. Raises CompileError
    when a pass output is not proved, and when the output keeps a violation the input already had
    (unless `allow_input_violations`: then `result.input_violations` counts them and the summary
    says so). `after_pass(name, module)` is called after each pass. `jobs >= 2` proves up to
    `jobs` pass outputs at once in forked processes while the next passes run (the same proofs;
    not with `smt_dump`, whose file names are per process)."""
    if compile_to not in LEVELS:
        raise ValueError(f"compile_to must be one of {', '.join(LEVELS)}, not {compile_to!r}")
    if verify not in ("each", "final", "none"):
        raise ValueError(f"verify must be 'each', 'final' or 'none', not {verify!r}")
    module = _module(program, filename)
    verify_structure(module)
    result = CompileResult(module, file=filename, verify=verify)
    if compile_to == "input":
        return result
    passes = parse_pipeline(",".join(DEFAULT_PIPELINE) if pipeline is None else pipeline)
    if passes:  # the passes store tensors in resources: every element needs a byte size
        check_sized(module)
    hook = make_hook(smt=smt, rlimit=rlimit, smt_dump=smt_dump) if passes and verify != "none" else None

    def stop(info: PassInfo) -> bool:
        return compile_to != "final" and info.produces == compile_to

    start = time.perf_counter()
    try:
        out, records = run_pipeline(module, passes, hook=hook, verify=verify if hook else "none", after_pass=after_pass, stop_after=stop,
                                    keep_outputs=False, jobs=jobs if smt_dump is None else 1)
    except PassVerificationError as e:
        status = "unknown" if getattr(e.report, "exit_code", 1) == 3 else "violated"
        failed = e.failed
        result.passes = [*map(_pass_result, e.records), PassResult(
            e.pass_name, failed.transform_seconds if failed else 0.0, failed.verify_seconds if failed else 0.0, e.report, status)]
        raise CompileError(e, result) from None
    result.wall_seconds = time.perf_counter() - start
    verify_structure(out)
    result.module = out
    result.passes = [_pass_result(r) for r in records]
    # A pass is proved when it introduces no violation; a violation the input already had is kept
    # in each report as pre-existing. The compile as a whole must not call such an output proved.
    last = next((r.report for r in reversed(records) if r.report is not None), None)
    if last is not None:
        result.input_violations = sum(1 for v in last.violations if v.pre_existing and v.severity == "error")
        if result.input_violations and not allow_input_violations:
            raise CompileError(None, result, last)
    return result


def _pass_result(r: PassRecord) -> PassResult:
    return PassResult(r.name, r.transform_seconds, r.verify_seconds, r.report, "proved" if r.report is not None else "unverified")


def verify(
    program: str | Module,
    *,
    refines: str | Module | None = None,
    smt: str = "pruned",
    rlimit: int = DEFAULT_RLIMIT,
    smt_dump: str | None = None,
    function: str | None = None,
    filename: str = "<string>",
) -> Report:
    """Prove `program` (tensor, async or cmd level) free of the hazards of SPEC §3.3; with
    `refines`, also that it computes what `refines` computes (VALUE_MISMATCH otherwise).
    `report.ok` says whether everything was proved; `report.text()` has the counterexamples."""
    from verify import verify_module

    module = _module(program, filename)
    verify_structure(module)
    check_sized(module)
    report = verify_module(module, smt=smt, rlimit=rlimit, smt_dump=smt_dump, function=function, file=filename)
    if refines is not None:
        before = _module(refines, "<before>")
        verify_structure(before)
        found = refinement_findings(before, module, function)
        report.violations.extend(found[0])
        report.unknowns.extend(found[1])
    return report


def run(
    program: str | Module,
    inputs: Sequence[Any] | None = None,
    *,
    function: str | None = None,
    driver: str = "task",
    seed: int = 0,
    check_races: bool = False,
    trace: Any = False,
    verify: str = "each",
    **options: Any,
) -> Any:
    """Run `program` on the numpy runtime and return a `runtime.RunResult` (`.results`,
    `.findings`, `.stats`). An input-level program is compiled first (every pass proved unless
    `verify="none"`); a cmd-level one runs as is. Without `inputs`, random ones are drawn.
    `calls=[inputs0, inputs1, ...]` (instead of `inputs`) calls the function once per list in one
    run, globals carrying state (`runtime.run_module`)."""
    from runtime.api import program_level, random_inputs, run_module, select_function
    from runtime.values import check_holdable

    module = _module(program, "<string>")
    verify_structure(module)
    f = select_function(module, function)
    check_holdable(module, f.name)  # before the compile: a type the executor cannot hold costs nothing
    if program_level(f) not in ("cmd", None):
        module = compile(module, verify=verify).module
    name = f.name if f.name in {g.name for g in functions(module)} else function
    if options.get("calls") is not None:  # several calls in one run (globals carry state): their inputs are given
        return run_module(module, function=name, driver=driver, seed=seed, check_races=check_races, trace=trace, **options)
    args = list(inputs) if inputs is not None else random_inputs(module, name, seed)
    return run_module(module, args, function=name, driver=driver, seed=seed, check_races=check_races, trace=trace, **options)

"""Per-pass verification: the hook the pass manager calls after every pass.

`make_hook(...)` makes the `hook(before, after, pass_name)` that `streamproof compile` passes to
`stream.passes.run_pipeline(module, passes, hook=make_hook())` (there is no process-wide hook: each
pipeline run is given its own, with its own SMT mode and limits). The hook runs, on the pass
output: the structural verifier, the safety properties (SPEC §3.3), and refinement against the
pass input (SPEC §3.4, `verify.refinement`, when available). It returns
the `verify.report.Report` (kept in the pass record) or raises
`stream.passes.PassVerificationError(pass_name, report, message)`; the message is the
counterexample text with `introduced by: <pass>`.

Blame policy (decided here, tested in tests/verify/test_hook.py):
* a violation the pass *input* already has (same class, same function, same ops by source
  location; for allocation-level classes, the same allocation) is **pre-existing**: it is kept
  in the report, marked `pre_existing`, and does not fail the pass; only new violations do;
* the tie rules (reference A2: in-place writes of borrowed imports and constants, tie
  linearity) are established by `materialize-copy-on-write`; in the output of a pass that runs
  before it in the default pipeline they are reported but do not fail the pass;
* an undecided obligation (solver unknown, rlimit) fails the pass (fail closed) unless the
  input had the same undecided obligation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stream.ir.core import Module
from stream.ir.diagnostics import DiagnosticError
from stream.ir.verifier import function_level, structural_diagnostics
from stream.ir.walk import functions
from verify.api import ProvedCache, verify_module
from verify.discharge import DEFAULT_RLIMIT
from verify.properties import PROPERTIES, property_class
from verify.report import OpRef, Report, Unknown, Violation

__all__ = ["make_hook", "refinement_findings", "ALLOCATION_CLASSES"]

# Classes recognised across a pass by their allocation, not their ops (a pass may move the ops).
ALLOCATION_CLASSES = frozenset(p.name for p in PROPERTIES if p.identity == "allocation")
COW_PASS = "materialize-copy-on-write"

Checker = Callable[..., Any]


def refinement_checker() -> Checker:
    """`verify.refinement.check_refinement` (a function, so tests can put a stand-in there)."""
    from verify.refinement import check_refinement

    return check_refinement


def refinement_findings(
    before: Module, after: Module, function: str | None = None, skip_unchanged: bool = False
) -> tuple[list[Violation], list[Unknown]]:
    """VALUE_MISMATCH violations and undecided cases of `after` against `before`.
    `skip_unchanged`: functions a pass left alone are taken as refining themselves (see
    `check_refinement`)."""
    try:
        report = refinement_checker()(before, after, function, skip_unchanged=skip_unchanged)
    except DiagnosticError as e:
        return [], [Unknown(function or "*", "VALUE_MISMATCH", e.diagnostic.location, f"refinement cannot check this input: {e.diagnostic.message}")]
    violations = []
    for m in report.mismatches:
        klass = getattr(m, "klass", "VALUE_MISMATCH")
        where = m.location if m.location is not None else after.location
        span = f" at bytes [{m.byte_range[0]}, {m.byte_range[1]})" if m.byte_range else ""
        v = Violation(
            klass, property_class(klass).severity, m.function, f"{m.what} differs{span}", where,
            [OpRef("first diverging op", m.op or "?", where, "")], symbols=dict(m.example),
        )
        v.notes = [f"after:  {m.after}", f"before: {m.before}"] + ([f"why: {m.message}"] if m.message else [])
        violations.append(v)
    unknowns = [Unknown(u.function, "VALUE_MISMATCH", u.location or after.location, u.reason) for u in report.unknowns]
    return violations, unknowns


def _before_cow(pass_name: str) -> bool:
    from stream.passes import DEFAULT_PIPELINE

    if pass_name not in DEFAULT_PIPELINE or COW_PASS not in DEFAULT_PIPELINE:
        return False
    return DEFAULT_PIPELINE.index(pass_name) < DEFAULT_PIPELINE.index(COW_PASS)


def make_hook(
    smt: str = "pruned", rlimit: int = DEFAULT_RLIMIT, smt_dump: str | None = None, refinement: bool = True
) -> Callable[[Module, Module, str], Report]:
    # Functions proved in an earlier pass's output that a later pass kept (the same op, in the
    # same context): not checked again (`verify.api.reuse_key`). One per pipeline run.
    proved: ProvedCache = {}

    def hook(before: Module, after: Module, pass_name: str) -> Report:
        from stream.passes import PassVerificationError

        diagnostics = structural_diagnostics(after)
        if diagnostics:
            report = Report(after.location.file, smt, module=after, exit_code=1)
            text = "\n".join(d.render() for d in diagnostics[:10])
            raise PassVerificationError(pass_name, report, f"{text}\n  introduced by: {pass_name} (the output is malformed)")
        report = verify_module(after, smt=smt, rlimit=rlimit, smt_dump=smt_dump, reuse=proved)
        if refinement:
            found = refinement_findings(before, after, skip_unchanged=True)
            report.violations.extend(found[0])
            report.unknowns.extend(found[1])
            report.refinement = found
        if not report.errors and not report.unknowns:
            return _released(report)
        prior = _prior(before, smt, rlimit)
        keys = {v.key() for v in prior.violations}
        alloc_keys = {v.alloc_key() for v in prior.violations if v.cls in ALLOCATION_CLASSES}
        prior_unknowns = {(u.cls, str(u.location)) for u in prior.unknowns}
        deferred = _before_cow(pass_name)
        from_input = any(function_level(f.op) == "input" for f in functions(before))
        failing: list[Violation] = []
        for v in report.violations:
            # Copy-on-write establishes the tie rules: what they found in its input was not
            # binding there, so it cannot excuse the same finding in its output.
            excusable = not (v.rule == "A2" and pass_name == COW_PASS)
            if excusable and (v.key() in keys or (v.cls in ALLOCATION_CLASSES and v.alloc_key() in alloc_keys)):
                v.pre_existing = True
            elif v.severity == "error" and deferred and v.rule == "A2":
                v.notes.append(f"not yet binding: {COW_PASS} establishes the in-place rules later in the pipeline")
            else:
                v.introduced_by = pass_name
                if v.cls == "OUT_OF_BOUNDS" and from_input:
                    v.notes.append("the pass keeps the input program's indices as written: check the input op at this location")
                if v.severity == "error":
                    failing.append(v)
        new_unknowns = [u for u in report.unknowns if (u.cls, str(u.location)) not in prior_unknowns]
        if failing or new_unknowns:
            report.exit_code = 1 if failing else 3
            text = "\n".join([*(v.text() for v in failing[:10]), *(u.text() for u in new_unknowns)])
            raise PassVerificationError(pass_name, report, text)
        return _released(report)

    return hook


def _released(report: Report) -> Report:
    """A passing report without its violations' `evidence`: each warning's evidence is the
    whole function model (storage, sites, accesses, ranges) of that module version, and the
    pipeline keeps every pass's report, so a 10k-dispatch compile held a dozen models it never
    reads again (+100 MB). A failing report keeps it (`PassVerificationError.report`)."""
    for v in report.violations:
        v.evidence = None
    return report


def _prior(before: Module, smt: str, rlimit: int) -> Report:
    """The violations of the pass input (nothing when the input cannot be checked, and nothing
    for an input-level program: what is wrong with the user's own program is never excused, the
    first pass output is where compile reports it)."""
    if any(function_level(f.op) == "input" for f in functions(before)):
        return Report(before.location.file, smt)
    try:
        return verify_module(before, smt=smt, rlimit=rlimit)
    except DiagnosticError:
        return Report(before.location.file, smt)


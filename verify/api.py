"""The verifier's Python API.

    from verify import verify_module
    report = verify_module(module)               # every function, pruned mode
    report.ok, report.status                     # "proved" | "violated" | "unknown"
    print(report.text()); report.to_json()

`verify_module` checks every function with a body at the level it is at (tensor, async or cmd;
input-level functions hold value-semantic tensors, and only their tensor indices are checked,
`verify.rules.input_ops`). Per
function: build the model (`verify.model`), decide happens-before (`verify.hb`), list the
obligations (`verify.obligations`), discharge them (`verify.discharge`), and explain each
failure with a Z3-built counterexample (`verify.witness`, `verify.explain`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from stream.ir.core import Module
from stream.ir.diagnostics import DiagnosticError
from stream.ir.gc_pause import paused_gc
from stream.ir.parser import parse_module
from stream.ir.walk import Function, functions
from verify.discharge import DEFAULT_RLIMIT, Decider, Stats
from verify.explain import deadlock_violation, make_violation
from verify.globals import initializers
from verify.hb import HappensBefore
from verify.model import build_model
from verify.obligations import generate
from verify.paths import has_control_flow, paths
from verify.properties import property_class
from verify.report import NOT_CHECKED, FunctionSummary, Namer, Report, Unknown, Violation
from verify.witness import build_witness

__all__ = ["verify_module", "verify_text", "verify_function", "DEFAULT_RLIMIT", "NOTHING_TO_PROVE"]

# The note of a function with no obligation at all: an input-level function without indexed
# tensor ops (value semantics: nothing can race, leak or be waited for), or host ops only.
NOTHING_TO_PROVE = "value-semantic tensors: nothing to prove"


def verify_module(
    module: Module,
    *,
    smt: str = "pruned",
    rlimit: int = DEFAULT_RLIMIT,
    smt_dump: str | None = None,
    function: str | None = None,
    witnesses: int = 10,
    file: str | None = None,
) -> Report:
    """Check every function of `module` (or only `function`) for the safety properties of
    SPEC §3.3. Raises `DiagnosticError` for programs the verifier cannot reason about
    (control flow)."""
    if smt not in ("pruned", "full"):
        raise ValueError(f"smt must be 'pruned' or 'full', not {smt!r}")
    # The model is millions of small acyclic objects: the cyclic collector would rescan them
    # again and again (half the time on large programs). Pause it; it runs again afterwards.
    with paused_gc():
        return _verify_module(module, smt, rlimit, smt_dump, function, witnesses, file)


def _verify_module(
    module: Module, smt: str, rlimit: int, smt_dump: str | None, function: str | None, witnesses: int, file: str | None
) -> Report:
    start = time.perf_counter()
    report = Report(file or module.location.file, smt, module=module)
    names = Namer(module)
    budget = [witnesses]
    # Initializers run before any function (verify.globals); one the verifier cannot model is
    # named in the report as not checked (the report is then not proved), never skipped silently.
    for name, f in initializers(module):
        if function is not None and name != function:
            continue
        try:
            report.functions.append(verify_function(f, module, report, names, smt, rlimit, smt_dump, budget))
        except DiagnosticError as e:
            d = e.diagnostic
            report.functions.append(FunctionSummary(name, NOT_CHECKED, Stats(), 0.0, f"not checked: {d.message}", location=d.location))
    for f in functions(module):
        if function is not None and f.name != function:
            continue
        report.functions.append(verify_function(f, module, report, names, smt, rlimit, smt_dump, budget))
    report.violations.sort(key=lambda v: (v.severity != "error", v.location.line, v.location.col))
    report.seconds = time.perf_counter() - start
    return report


def verify_text(text: str, filename: str = "<string>", **options: object) -> Report:
    return verify_module(parse_module(text, filename), file=filename, **options)  # type: ignore[arg-type]


def verify_function(
    f: Function, module: Module | None, report: Report, names: Namer, smt: str = "pruned", rlimit: int = DEFAULT_RLIMIT,
    smt_dump: str | None = None, budget: list[int] | None = None,
) -> FunctionSummary:
    """Check one function (or initializer); one with branches path by path (`verify.paths`):
    what a path violates is reported once, naming the first path it was found on."""
    if not has_control_flow(f):
        return _verify_straight(f, module, report, names, smt, rlimit, smt_dump, budget)
    start = time.perf_counter()
    budget = budget if budget is not None else [10]
    all_paths = paths(f)
    stats = Stats()
    level = "host"
    notes: list[str] = []
    seen: set[tuple[object, ...]] = set()
    for path in all_paths:
        n_violations, n_unknowns = len(report.violations), len(report.unknowns)
        s = _verify_straight(f.with_body(path.ops), module, report, names, smt, rlimit, smt_dump, budget)
        stats.add(s.stats)
        if level == "host":
            level = s.level
        notes.extend(n for n in s.notes if n not in notes)
        fresh = report.violations[n_violations:]
        del report.violations[n_violations:]
        for v in fresh:
            if v.key() in seen:
                continue
            seen.add(v.key())
            v.notes.append(f"on the path {path.label}")
            report.violations.append(v)
        for u in report.unknowns[n_unknowns:]:
            u.reason = f"{u.reason} (on the path {path.label})"
    note = f"{len(all_paths)} control-flow path(s), each checked"
    return FunctionSummary(f.name, level, stats, time.perf_counter() - start, note, notes=notes)


def _verify_straight(
    f: Function, module: Module | None, report: Report, names: Namer, smt: str = "pruned", rlimit: int = DEFAULT_RLIMIT,
    smt_dump: str | None = None, budget: list[int] | None = None,
) -> FunctionSummary:
    start = time.perf_counter()
    budget = budget if budget is not None else [10]
    model = build_model(f, module)
    if (model.level == "host" and not model.uses) or (model.level == "input" and not model.ranges):
        return FunctionSummary(f.name, model.level, Stats(), time.perf_counter() - start, NOTHING_TO_PROVE)
    hb = HappensBefore(model.graph)
    decider = Decider(model, hb, smt, rlimit, smt_dump)
    if hb.cycle is not None:
        report.violations.append(deadlock_violation(model, hb.cycle))
        decider.stats.obligations += 1
        decider.stats.violated += 1
        return FunctionSummary(f.name, model.level, decider.stats, time.perf_counter() - start, "deadlock: nothing else checked")
    found: dict[tuple[object, ...], Violation] = {}
    for ob in generate(model, full=smt == "full"):
        verdict = decider.decide(ob)
        if verdict.status == "proved":
            continue
        site = ob.first or ob.second
        where = site.op.location if site is not None else (ob.op.location if ob.op else f.op.location)
        if verdict.status == "unknown":
            report.unknowns.append(Unknown(f.name, ob.cls, where, verdict.reason))
            continue
        key = (ob.cls, id(ob.first), id(ob.second), id(ob.alloc), ob.detail if property_class(ob.cls).per_detail else "")
        if key in found:
            found[key].duplicates += 1
            continue
        witness = None
        if budget[0] > 0:
            witness = build_witness(model, ob, verdict, decider.before, rlimit)
            budget[0] -= 1
        found[key] = make_violation(model, ob, verdict, witness, names, decider.before)
        found[key].evidence = (model, ob)
    report.violations.extend(found.values())
    return FunctionSummary(f.name, model.level, decider.stats, time.perf_counter() - start, notes=list(model.notes))


def classes(report: Report) -> set[str]:
    return {v.cls for v in report.violations}


def first(items: Iterable[Violation]) -> Violation | None:
    return next(iter(items), None)

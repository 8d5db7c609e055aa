"""Checking one straight-line program: model, happens-before, obligations, verdicts.

`check_program` is the verifier's core for a function without control flow (and for each
program `verify.control_flow` derives from one with branches and loops): build the model
(`verify.model`), decide happens-before (`verify.hb`), list the obligations
(`verify.obligations`), discharge them (`verify.discharge`), and explain each failure with a
Z3-built counterexample (`verify.witness`, `verify.explain`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from stream.ir.core import Module
from stream.ir.walk import Function
from verify.discharge import DEFAULT_RLIMIT, Decider, Stats, Verdict
from verify.explain import deadlock_violation, make_violation
from verify.hb import HappensBefore
from verify.model import FunctionModel, build_model
from verify.obligations import Obligation, generate
from verify.properties import property_class
from verify.report import FunctionSummary, Namer, Report, Unknown, Violation
from verify.witness import build_witness

__all__ = ["check_program", "Classifier", "NOTHING_TO_PROVE"]

# The note of a function with no obligation at all: an input-level function without indexed
# tensor ops (value semantics: nothing can race, leak or be waited for), or host ops only.
NOTHING_TO_PROVE = "value-semantic tensors: nothing to prove"

Classifier = Callable[[FunctionModel, Obligation], str]


def check_program(
    f: Function, module: Module | None, report: Report, names: Namer, smt: str = "pruned", rlimit: int = DEFAULT_RLIMIT,
    smt_dump: str | None = None, budget: list[int] | None = None, classify: Classifier | None = None,
    failed: list[tuple[Obligation, Verdict]] | None = None, models: list[FunctionModel] | None = None,
) -> FunctionSummary:
    """Check one straight-line program: build its model, decide every obligation and append what
    is violated (with a witness, within `budget`) or undecided to `report`. With `classify`, each
    obligation is first classified: "drop" (not an obligation of this program), "query" (decided,
    and if not proved appended to `failed` instead of reported) or "report" (as usual)."""
    start = time.perf_counter()
    budget = budget if budget is not None else [10]
    model = build_model(f, module)
    if models is not None:
        models.append(model)
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
    for ob in generate(model, full=smt == "full", hb=hb):
        kind = classify(model, ob) if classify is not None else "report"
        if kind == "drop":
            continue
        verdict = decider.decide(ob)
        if verdict.status == "proved":
            continue
        if kind == "query":
            if failed is not None:
                failed.append((ob, verdict))
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



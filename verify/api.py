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

from stream.ir.attributes import SymbolRefAttr
from stream.ir.core import Module, Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.equality import ops_equal
from stream.ir.gc_pause import paused_gc
from stream.ir.parser import parse_module
from stream.ir.walk import FUNCTION_OPS, Function, functions
from verify.calls import CALL_OPS
from verify.checking import NOTHING_TO_PROVE, check_program
from verify.control_flow import check_control_flow
from verify.discharge import DEFAULT_RLIMIT, Stats
from verify.globals import initializers
from verify.paths import has_control_flow
from verify.report import NOT_CHECKED, FunctionSummary, Namer, Report, Violation

__all__ = ["verify_module", "verify_text", "verify_function", "reuse_key", "ProvedCache", "DEFAULT_RLIMIT", "NOTHING_TO_PROVE"]



def verify_module(
    module: Module,
    *,
    smt: str = "pruned",
    rlimit: int = DEFAULT_RLIMIT,
    smt_dump: str | None = None,
    function: str | None = None,
    witnesses: int = 10,
    file: str | None = None,
    reuse: ProvedCache | None = None,
) -> Report:
    """Check every function of `module` (or only `function`) for the safety properties of
    SPEC §3.3. Raises `DiagnosticError` for programs the verifier cannot reason about
    (control flow). `reuse` (one per pipeline run, `verify.hook`): functions proved before, in
    the same context, are not checked again (`reuse_key`)."""
    if smt not in ("pruned", "full"):
        raise ValueError(f"smt must be 'pruned' or 'full', not {smt!r}")
    # The model is millions of small acyclic objects: the cyclic collector would rescan them
    # again and again (half the time on large programs). Pause it; it runs again afterwards.
    with paused_gc():
        return _verify_module(module, smt, rlimit, smt_dump, function, witnesses, file, reuse)


# Per function name: what its last proved verdict depended on (`reuse_key`), and the verdict.
ProvedCache = dict[str, tuple[tuple[Op, tuple[Op, ...]], FunctionSummary]]


def _same_key(a: tuple[Op, tuple[Op, ...]], b: tuple[Op, tuple[Op, ...]]) -> bool:
    """The same function in the same context: the very same ops, or equal ones (a pass often
    rebuilds a function it does not change; `ops_equal` compares up to value renaming)."""
    (fa, ca), (fb, cb) = a, b
    return (len(ca) == len(cb) and (fa is fb or ops_equal(fa, fb))
            and all(x is y or ops_equal(x, y) for x, y in zip(ca, cb)))


def reuse_key(f: Function, module: Module) -> tuple[Op, tuple[Op, ...]]:
    """What a function's verdict depends on: the function op itself (immutable, its body
    included), and the module ops around it: every top-level op that is not a function
    (globals, executables, devices, initializers) and the functions it calls, transitively
    (their summaries; `verify.calls`). Another function changing does not change the verdict."""
    tops = {Function(op).name: op for op in module.ops if op.name in FUNCTION_OPS}
    context = [op for op in module.ops if op.name not in FUNCTION_OPS]
    seen: set[str] = set()
    todo = [f.op]
    while todo:
        for inner in todo.pop().walk():
            callee = inner.properties.get("callee") if inner.name in CALL_OPS else None
            if isinstance(callee, SymbolRefAttr) and callee.root not in seen and callee.root in tops:
                seen.add(callee.root)
                context.append(tops[callee.root])
                todo.append(tops[callee.root])
    return f.op, tuple(context)


def _verify_module(
    module: Module, smt: str, rlimit: int, smt_dump: str | None, function: str | None, witnesses: int, file: str | None,
    reuse: ProvedCache | None = None,
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
        key = reuse_key(f, module) if reuse is not None else None
        hit = reuse.get(f.name) if reuse is not None else None
        if hit is not None and key is not None and _same_key(hit[0], key):
            proved = hit[1]
            report.functions.append(FunctionSummary(f.name, proved.level, Stats(), 0.0, "unchanged: proved before, not checked again",
                                                    notes=list(proved.notes)))
            continue
        errors = (len(report.violations), len(report.unknowns))
        summary = verify_function(f, module, report, names, smt, rlimit, smt_dump, budget)
        report.functions.append(summary)
        if reuse is not None and key is not None and errors == (len(report.violations), len(report.unknowns)) and summary.checked:
            reuse[f.name] = (key, summary)  # only what was proved with nothing to report (reports are mutated later)
    report.violations.sort(key=lambda v: (v.severity != "error", v.location.line, v.location.col))
    report.seconds = time.perf_counter() - start
    return report


def verify_text(text: str, filename: str = "<string>", **options: object) -> Report:
    return verify_module(parse_module(text, filename), file=filename, **options)  # type: ignore[arg-type]


def verify_function(
    f: Function, module: Module | None, report: Report, names: Namer, smt: str = "pruned", rlimit: int = DEFAULT_RLIMIT,
    smt_dump: str | None = None, budget: list[int] | None = None,
) -> FunctionSummary:
    """Check one function (or initializer): straight-line code directly, code with branches and
    loops per path and by induction (`verify.control_flow`)."""
    if has_control_flow(f):
        return check_control_flow(f, module, report, names, smt, rlimit, smt_dump, budget)
    return check_program(f, module, report, names, smt, rlimit, smt_dump, budget)


def classes(report: Report) -> set[str]:
    return {v.cls for v in report.violations}


def first(items: Iterable[Violation]) -> Violation | None:
    return next(iter(items), None)

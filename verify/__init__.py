"""The verifier: happens-before and lifetime constraints checked with Z3 (SPEC §3, §5).

    from verify import verify_module
    report = verify_module(module, smt="pruned")   # or "full": every obligation through Z3
    report.status        # "proved" | "violated" | "unknown"
    print(report.text())  # counterexamples (SPEC §5 text form); report.to_json(), report.trace()

Modules: `storage` (what each resource value names), `symbolic` (index values as affine forms
and Z3 facts), `events` + `model` + `rules/` (the event graph and accesses, by rule tables),
`calls` (what a private callee's returned timepoints promise its caller), `unmodelled` (ops without
a rule make what they touch undecided), `hb` (exact happens-before), `obligations` (what must hold), `discharge` (reachability, constants,
Z3), `witness` (counterexample executions), `report` / `explain` (what users read), `hook`
(per-pass verification for the pass manager).
"""

from __future__ import annotations

from verify.api import DEFAULT_RLIMIT, verify_function, verify_module, verify_text
from verify.report import CLASSES, Report, Violation

__all__ = ["verify_module", "verify_text", "verify_function", "Report", "Violation", "CLASSES", "DEFAULT_RLIMIT"]

"""Refinement (translation validation, SPEC section 3.4): does a pass output compute the same
values as its input?

    from verify.refinement import check_refinement
    report = check_refinement(before_module, after_module)          # every function of BEFORE
    report = check_refinement(before_module, after_module, "main")  # one function
    report.ok, report.status, report.mismatches, report.unknowns
    print(report.render_text()); json.dumps(report.to_json())

Both programs are run symbolically (`machine`, with one rule per op in `rules_*`): resources are
hash-consed byte-string terms (`terms`), kernels are uninterpreted functions of their input
bytes, the cmd level has explicit memory (`memory`), symbolic sizes are polynomials (`ints`)
decided by Z3 (`solver`). `check` says exactly what is compared and what a proof means;
`compare` aligns terms and finds the first op of AFTER where they diverge; `report` renders the
verdict (`VALUE_MISMATCH` findings, `REFINEMENT_UNKNOWN` when the check cannot decide).
"""

from verify.refinement.check import DEFAULT_MAX_CASES, check_refinement
from verify.refinement.report import SCHEMA, Mismatch, RefinementReport, Unknown
from verify.refinement.solver import DEFAULT_RLIMIT

__all__ = [
    "check_refinement",
    "RefinementReport",
    "Mismatch",
    "Unknown",
    "SCHEMA",
    "DEFAULT_RLIMIT",
    "DEFAULT_MAX_CASES",
]

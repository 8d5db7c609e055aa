"""streamproof verify: prove a program free of hazards, use-after-free and missed waits.

Checks a program at the tensor, async or cmd level as given (IREE dumps included) for the
property classes below; VALUE_MISMATCH only with --refines (against BEFORE).

property classes:
{classes}

examples:
  streamproof verify tests/data/iree/b_diamond/generic/10_elide_timepoints.generic.mlir
  streamproof verify prog.mlir --report=json > report.json
  streamproof verify prog.mlir --smt=full --smt-dump queries/       # every obligation through Z3
  streamproof verify prog.mlir --trace-counterexample race.json     # open in ui.perfetto.dev
  streamproof verify after.mlir --refines before.mlir               # translation validation
  streamproof verify cases.mlir --split-input-file

exit codes: 0 proved (warnings allowed), 1 a property fails (counterexample printed),
2 bad input, 3 solver unknown, resource limit (--rlimit) or internal error.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from stream.ir.element_types import check_sized
from stream.ir.verifier import verify_structure
from stream.ir.walk import functions
from streamproof.errors import EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION, UsageError
from streamproof.io import check_dump_dir, check_output, parse_inputs, write_output
from verify.globals import initializers
from verify.properties import help_text

HELP = (__doc__ or "").replace("{classes}", help_text())  # the list comes from the class records


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", metavar="IN.mlir", help="the program to verify ('-' for stdin)")
    p.add_argument("--refines", metavar="BEFORE.mlir", help="also check that IN computes what BEFORE computes")
    p.add_argument("--report", choices=("text", "json"), default="text", help="output format (default: text)")
    p.add_argument("--smt", choices=("pruned", "full"), default="pruned",
                   help="pruned: reachability first, Z3 for the rest (default); full: every obligation through Z3")
    p.add_argument("--smt-dump", metavar="DIR", help="write every Z3 query as an SMT-LIB 2 file in DIR")
    p.add_argument("--trace-counterexample", metavar="FILE", help="write the first counterexample as Chrome/Perfetto trace JSON")
    p.add_argument("--rlimit", type=int, metavar="N", default=None, help="Z3 resource limit per query (deterministic; default 20000000)")
    p.add_argument("--function", metavar="NAME", help="verify only this function")
    p.add_argument("--split-input-file", action="store_true", help="treat '// -----' lines as separate inputs")


def main(args: argparse.Namespace) -> int:
    from verify import DEFAULT_RLIMIT, verify_module
    from verify.hook import refinement_findings

    if args.rlimit is not None and args.rlimit <= 0:
        raise UsageError(f"streamproof verify: error: --rlimit must be a positive integer, not {args.rlimit}")
    _check_output_paths(args)
    before = None
    if args.refines:
        chunks_before = parse_inputs(args.refines)
        before = chunks_before[0].module
        verify_structure(before)
    chunks = parse_inputs(args.input, args.split_input_file)
    if args.function is not None and not any(f.name == args.function for c in chunks for f in functions(c.module)) and not any(
            name == args.function for c in chunks for name, _ in initializers(c.module)):
        raise UsageError(f"streamproof verify: error: {args.input} has no function @{args.function}")
    reports = []
    refined: list[bool] = []  # per chunk: the refinement check ran and found nothing
    for chunk in chunks:
        verify_structure(chunk.module)
        check_sized(chunk.module)
        report = verify_module(
            chunk.module, smt=args.smt, rlimit=args.rlimit or DEFAULT_RLIMIT, smt_dump=args.smt_dump, function=args.function, file=chunk.name
        )
        if before is not None:
            found = refinement_findings(before, chunk.module, args.function)
            report.violations.extend(found[0])
            report.unknowns.extend(found[1])
        refined.append(before is not None and not found[0] and not found[1]
                       and any(args.function in (None, f.name) for f in functions(before)))
        reports.append(report)
    # A refinement that holds is a result even where IN alone has no obligation (an elided copy).
    if not any(refined) and not any(r.stats.obligations or r.unknowns or r.violations or r.unchecked for r in reports):
        raise UsageError(_nothing_checked(args.input, [f for r in reports for f in r.functions]))
    if args.report == "json":
        payload = reports[0].to_json() if len(reports) == 1 else {"schema": "streamproof.verify.reports", "version": 1, "reports": [r.to_json() for r in reports]}
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    else:
        out = []
        for r, holds in zip(reports, refined):
            body = r.text()
            note = f"; refines {args.refines}" if holds else ""
            out.append((body + "\n" if body else "") + r.summary() + note)
        sys.stdout.write("\n".join(out) + "\n")
    if args.trace_counterexample:
        trace: dict[str, Any] = next((r.trace() for r in reports if any(v.witness is not None for v in r.violations)), {"traceEvents": []})
        write_output(args.trace_counterexample, json.dumps(trace, indent=1) + "\n", "--trace-counterexample")
    if any(r.errors for r in reports):
        return EXIT_VIOLATION
    if any(r.unknowns or r.unchecked for r in reports):  # undecided, or a function or initializer not checked
        return EXIT_UNKNOWN
    return EXIT_OK


def _check_output_paths(args: argparse.Namespace) -> None:
    """Refuse unusable output paths before spending time on the proof (exit 2, not a crash)."""
    check_dump_dir(args.smt_dump)
    check_output(args.trace_counterexample, "--trace-counterexample", [args.input, args.refines])


def _nothing_checked(path: str, checked: list[Any]) -> str:
    """Say plainly that nothing was verified (exit 2), instead of "proved: 0 obligations"."""
    if not checked:
        return f"streamproof verify: error: {path}: nothing to verify: no function with a body"
    why = {
        "input": "value-semantic tensors, no tensor slice/update/load/store whose indices could be out of bounds",
        "host": "host ops only",
    }
    parts = [f"@{f.name} ({f.level} level: {why.get(f.level, 'no resource access, allocation or timepoint')})" for f in checked[:5]]
    more = f" and {len(checked) - 5} more" if len(checked) > 5 else ""
    hint = "; `streamproof compile` proves the schedule an input-level program is lowered to" if any(f.level == "input" for f in checked) else ""
    return f"streamproof verify: error: {path}: nothing to verify: {', '.join(parts)}{more}{hint}"

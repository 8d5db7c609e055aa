"""streamproof compile: lower an input-level program to a cmd-level schedule, proving each pass.

examples:
  streamproof compile examples/mlp.mlir -o mlp.cmd.mlir       # the whole verified pipeline
  streamproof compile prog.mlir --pass-pipeline=               # parse, check structure, print (round trip)
  streamproof compile prog.mlir --pass-pipeline= --generic     # print in MLIR's generic form
  streamproof compile prog.mlir --pass-pipeline='schedule-execution,schedule-concurrency{favor=max-concurrency}'
  streamproof compile tests.mlir --split-input-file --pass-pipeline=schedule-execution --no-verify
  streamproof compile examples/mlp.mlir -o mlp.cmd.mlir --timing --report=json > report.json
  cat prog.mlir | streamproof compile - --pass-pipeline=

After a verified compile the proof summary goes to stderr; when a pass output is not proved the
command prints the counterexample (naming the pass), writes nothing to -o (only the witness to
--trace-counterexample), and exits 1 (3 when the solver could not decide). Output targets (-o,
--trace-counterexample, --smt-dump) are checked before any pass runs (exit 2).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from stream.ir.core import Module
from stream.ir.printer import print_module
from streamproof.errors import EXIT_OK, UsageError
from streamproof.io import check_dump_dir, check_output, parse_inputs, write_output

HELP = __doc__ or ""

LEVELS = ("input", "tensor", "async", "cmd", "final")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", metavar="IN.mlir", help="input file ('-' for stdin)")
    p.add_argument("-o", dest="output", metavar="OUT.mlir", help="output file (default: stdout)")
    p.add_argument(
        "--pass-pipeline",
        metavar="PIPELINE",
        default=None,
        help="comma-separated passes, e.g. 'schedule-execution,schedule-concurrency{favor=max-concurrency}'; "
        "empty for a round trip (default: the whole pipeline)",
    )
    p.add_argument("--compile-to", choices=LEVELS, default="final", help="stop once this level is reached")
    p.add_argument("--generic", action="store_true", help="print MLIR's generic op form")
    p.add_argument("--split-input-file", action="store_true", help="treat '// -----' lines as separate inputs")
    p.add_argument("--print-ir-after-all", action="store_true", help="print the IR after every pass (to stderr)")
    p.add_argument("--print-ir-after", metavar="PASS", action="append", default=[], help="print the IR after PASS (to stderr)")
    verify = p.add_mutually_exclusive_group()
    verify.add_argument("--verify", choices=("each", "final"), default="each", help="prove every pass (default) or only the result")
    p.add_argument("--allow-input-violations", action="store_true",
                   help="write the output even when it keeps violations the input already had (no pass introduced them; "
                   "the summary counts them); without it such a compile fails with their counterexamples")
    verify.add_argument("--no-verify", action="store_const", dest="verify", const="none", help="skip the proofs")
    p.add_argument("--smt", choices=("pruned", "full"), default="pruned",
                   help="pruned: reachability first, Z3 for the rest (default); full: every obligation through Z3")
    p.add_argument("--smt-dump", metavar="DIR", help="write every Z3 query as an SMT-LIB 2 file in DIR")
    p.add_argument("--rlimit", type=int, metavar="N", default=None, help="Z3 resource limit per query (deterministic; default 20000000)")
    p.add_argument("--report", choices=("text", "json"), default="text",
                   help="text: the proof summary (or the counterexample) on stderr; json: a per-pass report on stdout "
                   "(then the IR goes only to -o)")
    p.add_argument("--trace-counterexample", metavar="FILE", help="when a pass fails, write its counterexample as Chrome/Perfetto trace JSON")
    p.add_argument("--timing", action="store_true", help="print a per-pass table of transform and verification time (to stderr)")
    p.add_argument("--jobs", "-j", type=int, metavar="N", default=1,
                   help="prove up to N pass outputs at once, in forked processes, while the next passes run (default 1: in order, "
                        "in this process; the proofs are the same)")


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[-_]", name))


def main(args: argparse.Namespace) -> int:
    from stream.passes import PASSES, PipelineError
    from streamproof.api import CompileError, CompileResult, compile
    from verify.discharge import DEFAULT_RLIMIT

    if args.rlimit is not None and args.rlimit <= 0:
        raise UsageError("streamproof compile: error: --rlimit must be a positive integer")
    if args.jobs < 1:
        raise UsageError("streamproof compile: error: --jobs must be a positive integer")
    # Every output is checked before the work: a bad -o is found now, not after the whole compile.
    check_output(args.output, "-o", [args.input])
    check_output(args.trace_counterexample, "--trace-counterexample", [args.input])
    check_dump_dir(args.smt_dump)
    chunks = parse_inputs(args.input, args.split_input_file)
    dump_after = set(args.print_ir_after)
    # A misspelled pass name would otherwise print nothing and look like a pass that never ran.
    unknown = sorted(dump_after - set(PASSES))
    if unknown:
        raise UsageError(f"streamproof compile: error: --print-ir-after: unknown pass '{unknown[0]}' "
                         f"(passes: {', '.join(sorted(PASSES))})")

    def after_pass(name: str, module: Module) -> None:
        if args.print_ir_after_all or name in dump_after:
            sys.stderr.write(f"// -----// IR Dump After {camel(name)} ({name}) //----- //\n")
            sys.stderr.write(print_module(module, generic=args.generic))

    results: list[CompileResult] = []
    failure: CompileError | None = None
    for chunk in chunks:
        try:
            results.append(compile(
                chunk.module, pipeline=args.pass_pipeline, compile_to=args.compile_to, verify=args.verify, smt=args.smt,
                rlimit=args.rlimit or DEFAULT_RLIMIT, smt_dump=args.smt_dump, filename=chunk.name, after_pass=after_pass,
                allow_input_violations=args.allow_input_violations, jobs=args.jobs,
            ))
        except PipelineError as e:
            raise UsageError(f"streamproof compile: error: {e}") from None
        except CompileError as e:
            failure = e
            results.append(e.result)
            break
    if args.timing:
        for r in results:
            _print_timing(r)
    if args.report == "json":
        payload: dict[str, Any] = results[0].to_json() if len(results) == 1 else {
            "schema": "streamproof.compile.reports", "reports": [r.to_json() for r in results]}
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    if failure is not None:
        if args.report == "text":
            sys.stderr.write(str(failure) + "\n")
        if args.trace_counterexample:
            write_output(args.trace_counterexample, json.dumps(failure.report.trace(), indent=1) + "\n", "--trace-counterexample")
        return failure.exit_code
    outputs = "// -----\n".join(r.text(args.generic) for r in results)
    if args.report == "text" or args.output:
        write_output(args.output, outputs)
    if args.report == "text" and args.verify != "none" and any(r.passes for r in results):
        for r in results:
            sys.stderr.write(r.summary() + "\n")
    return EXIT_OK


def _print_timing(result: Any) -> None:
    lines = [f"{'pass':<32} {'transform ms':>13} {'verify ms':>10}"]
    for p in result.passes:
        lines.append(f"{p.name:<32} {1000 * p.transform_seconds:>13.2f} {1000 * p.verify_seconds:>10.2f}")
    total_t = sum(p.transform_seconds for p in result.passes)
    total_v = sum(p.verify_seconds for p in result.passes)
    lines.append(f"{'total':<32} {1000 * total_t:>13.2f} {1000 * total_v:>10.2f}")
    sys.stderr.write("\n".join(lines) + "\n")

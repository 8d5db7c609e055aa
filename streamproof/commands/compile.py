"""streamproof compile: lower an input-level program to a cmd-level schedule, proving each pass.

examples:
  streamproof compile examples/mlp.mlir -o mlp.cmd.mlir       # the whole verified pipeline
  streamproof compile prog.mlir --pass-pipeline=               # parse, check structure, print (round trip)
  streamproof compile prog.mlir --pass-pipeline= --generic     # print in MLIR's generic form
  streamproof compile prog.mlir --pass-pipeline='schedule-execution,schedule-concurrency{favor=max-concurrency}'
  streamproof compile tests.mlir --split-input-file --pass-pipeline=schedule-execution --no-verify
  cat prog.mlir | streamproof compile - --pass-pipeline=
"""

from __future__ import annotations

import argparse
import re
import sys

from stream.ir.core import Module
from stream.ir.printer import print_module
from stream.ir.verifier import verify_structure
from streamproof.io import parse_inputs, write_output

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
    verify.add_argument("--no-verify", action="store_const", dest="verify", const="none", help="skip the proofs")
    p.add_argument("--timing", action="store_true", help="print a per-pass table of transform and verification time (to stderr)")


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[-_]", name))


def _pipeline(text: str | None):  # type: ignore[no-untyped-def]
    from stream.passes import DEFAULT_PIPELINE, PipelineError, parse_pipeline
    from streamproof.cli import UsageError

    try:
        return parse_pipeline(",".join(DEFAULT_PIPELINE) if text is None else text)
    except PipelineError as e:
        raise UsageError(f"streamproof compile: {e}") from None


def _install_verifier(mode: str) -> None:
    if mode == "none":
        return
    from streamproof.cli import UsageError

    try:
        from verify.hook import install  # type: ignore[import-not-found]
    except ImportError:
        raise UsageError("streamproof compile: the verifier is not available in this build; pass --no-verify") from None
    install()


def _stop_level(level: str):  # type: ignore[no-untyped-def]
    if level == "final":
        return None
    return lambda info: info.produces == level


def main(args: argparse.Namespace) -> int:
    from stream.passes import run_pipeline

    chunks = parse_inputs(args.input, args.split_input_file)
    pipeline = _pipeline(args.pass_pipeline)
    if pipeline:
        _install_verifier(args.verify)
    dump_after = set(args.print_ir_after)

    def after_pass(name: str, module: Module) -> None:
        if args.print_ir_after_all or name in dump_after:
            sys.stderr.write(f"// -----// IR Dump After {camel(name)} ({name}) //----- //\n")
            sys.stderr.write(print_module(module, generic=args.generic))

    outputs = []
    for chunk in chunks:
        verify_structure(chunk.module)
        if args.compile_to == "input":
            outputs.append(print_module(chunk.module, generic=args.generic))
            continue
        module, records = run_pipeline(
            chunk.module, pipeline, verify=args.verify if pipeline else "none", after_pass=after_pass, stop_after=_stop_level(args.compile_to)
        )
        verify_structure(module)
        outputs.append(print_module(module, generic=args.generic))
        if args.timing:
            _print_timing(records)
    write_output(args.output, "// -----\n".join(outputs))
    return 0


def _print_timing(records) -> None:  # type: ignore[no-untyped-def]
    lines = [f"{'pass':<32} {'transform ms':>13} {'verify ms':>10}"]
    for r in records:
        lines.append(f"{r.name:<32} {1000 * r.transform_seconds:>13.2f} {1000 * r.verify_seconds:>10.2f}")
    total_t = sum(r.transform_seconds for r in records)
    total_v = sum(r.verify_seconds for r in records)
    lines.append(f"{'total':<32} {1000 * total_t:>13.2f} {1000 * total_v:>10.2f}")
    sys.stderr.write("\n".join(lines) + "\n")

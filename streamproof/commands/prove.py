"""streamproof prove: run the lemmas and the gated corpus in proofs/ (the CI gate).

Lemmas (proofs/lemmas/*.py) are general rules the passes rely on, proved in Z3 (or, for the
union rule of coverage, refuted with a counterexample). Corpus programs (proofs/corpus/*.mlir)
carry `// EXPECT: proved` or `// EXPECT: CLASS ...` lines; the verifier must report exactly those
classes in both SMT modes. Any other outcome is a surprise.

examples:
  streamproof prove                                   # everything under proofs/
  streamproof prove proofs/lemmas/select_union_refuted.py
  streamproof prove proofs/corpus --smt=pruned -q     # only surprises and the summary

exit codes: 0 everything as expected, 1 a surprise, 2 bad usage or a corpus file without an EXPECT line or that does not parse.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from streamproof.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_VIOLATION, UsageError

HELP = __doc__ or ""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="lemma files, corpus files or directories (default: proofs/)")
    p.add_argument("--smt", choices=("both", "pruned", "full"), default="both", help="SMT modes the corpus must pass in (default: both)")
    p.add_argument("-q", "--quiet", action="store_true", help="print only surprises and the summary")


def main(args: argparse.Namespace) -> int:
    from verify.prove import default_root, run

    paths = [Path(p) for p in args.paths] or [default_root()]
    for p in paths:
        if not p.exists():
            raise UsageError(f"streamproof prove: error: no such file or directory: {p}")
    modes = ("pruned", "full") if args.smt == "both" else (args.smt,)
    report = run(paths, modes)
    sys.stdout.write(report.text(verbose=not args.quiet) + "\n")
    if not report.lemmas and not report.programs:
        raise UsageError(f"streamproof prove: error: no lemmas or corpus programs under {', '.join(map(str, paths))}")
    if any(r.unreadable for r in report.programs):
        return EXIT_BAD_INPUT  # a corpus file without an expectation, or that does not parse
    return EXIT_OK if report.ok else EXIT_VIOLATION

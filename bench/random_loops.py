"""How many random input-level loop programs compile with every pass proved.

Draws programs from `tests/input_loop_programs.py` (the strategy the CI property test uses) with
a fixed Hypothesis seed, compiles each through the default pipeline with the verification hook,
and counts the rejections by pass and first line (no shrinking: every rejection is a drawn
program). A rejection is a compile error, never a wrong "proved"; the point is how often the
passes and the verifier's loop argument still fail closed on valid programs.

    python bench/random_loops.py --examples 100 --seeds 1 2 3 4 5 6 7 8
    python bench/random_loops.py --examples 100 --seeds 6 --show 0     # print the first rejected program
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from input_loop_programs import input_loop_programs  # noqa: E402
from strategies import RandomProgram  # noqa: E402

import stream.ir as ir  # noqa: E402
from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline  # noqa: E402
from verify.hook import make_hook  # noqa: E402

PIPELINE = parse_pipeline(",".join(DEFAULT_PIPELINE))


def draw(examples: int, seed_value: int) -> tuple[int, list[tuple[str, str]]]:
    """(programs drawn, [(program text, pass: first line of the error)])."""
    rejected: list[tuple[str, str]] = []
    count = [0]

    @seed(seed_value)
    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(input_loop_programs())
    def one(p: RandomProgram) -> None:
        count[0] += 1
        try:
            run_pipeline(ir.parse_module(p.text, "random_loop.mlir"), PIPELINE, hook=make_hook())
        except Exception as e:  # a rejection (PassVerificationError, DiagnosticError): counted
            rejected.append((p.text, f"{getattr(e, 'pass_name', '?')}: {str(e).splitlines()[0]}"))

    one()
    return count[0], rejected


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=100)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--show", type=int, default=None, help="print the N-th rejected program of the last seed")
    args = parser.parse_args()
    total = bad = 0
    rejected: list[tuple[str, str]] = []
    for s in args.seeds:
        n, rejected = draw(args.examples, s)
        total, bad = total + n, bad + len(rejected)
        print(f"seed {s}: {n} programs, {len(rejected)} rejected")
        for _text, why in rejected:
            print(f"  {why[:160]}")
    print(f"all: {bad} of {total} rejected")
    if args.show is not None and args.show < len(rejected):
        text, why = rejected[args.show]
        print(text)
        print(why)


if __name__ == "__main__":
    main()

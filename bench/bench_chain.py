"""One buffer through a chain of N execute regions: the worst case of pairwise race checking.

Each region awaits the one before and runs one dispatch that reads and writes the whole buffer;
the function awaits the last region and returns the buffer. Every pair of the N dispatches
conflicts, so pairwise race obligations are N(N-1)/2; the frontier check (verify/frontier.py)
needs one per access. Prints, per N: the verdict, obligations and verification seconds (median
of --repeat, parse excluded), in one process per N.

    python bench/bench_chain.py --sizes 800 2000 10000 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def program(n: int) -> str:
    lines = ["util.func public @chain(%arg: !stream.resource<external>) -> !stream.resource<external> {",
             "  %c0 = arith.constant 0 : index", "  %c64 = arith.constant 64 : index",
             "  %t0 = stream.timepoint.immediate => !stream.timepoint"]
    for i in range(n):
        lines.append(f"  %t{i + 1} = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t{i}) => "
                     "with(%arg as %a: !stream.resource<external>{%c64}) {")
        lines.append("    stream.cmd.dispatch @ex::@step {\n      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}\n    }")
        lines.append("  } => !stream.timepoint")
    lines.append(f"  %done = stream.timepoint.await %t{n} => %arg : !stream.resource<external>{{%c64}}")
    lines.append("  util.return %done : !stream.resource<external>\n}")
    return "\n".join(lines) + "\n"


def one(n: int, repeat: int) -> str:
    from stream.ir import parse_module
    from verify import verify_module

    module = parse_module(program(n), "chain.mlir")
    times, report = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        report = verify_module(module)
        times.append(time.perf_counter() - t)
    assert report is not None
    return f"| {n:,} | {report.status} | {report.stats.obligations:,} | {statistics.median(times):.2f} |"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[800, 2000, 10000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one is not None:
        print(one(args.one, args.repeat))
        return 0
    print("| regions | verdict | obligations | verify s (median) |")
    print("|---:|---|---:|---:|")
    for n in args.sizes:
        out = subprocess.run([sys.executable, __file__, "--one", str(n), "--repeat", str(args.repeat)], capture_output=True, text=True)
        print(out.stdout.strip() or out.stderr.strip().splitlines()[-1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

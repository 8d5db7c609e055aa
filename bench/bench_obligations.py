"""Proof obligations per storage access, on every bench family, as the programs grow.

Issue 13 asks for obligations linear in accesses on every bench family. For each family and size
this builds the program, counts the storage accesses the safety model records
(`verify.model.build_model(...).accesses`, summed over the functions) and the obligations
`verify_module` discharges in the default pruned mode, and prints both and their ratio. Linear
means the ratio stays flat as the size grows; a quadratic family would show it growing with N.

Families:

* `chain`: one buffer through N execute regions, each awaiting the one before and running one
  dispatch that reads and writes all of it (`bench/bench_chain.py`): every pair of dispatches
  conflicts, the worst case for pairwise race obligations;
* `waves`: `verify.synth.cmd_program(N, devices=2, width=4, per_region=16)`, the generated
  cmd-level programs of `bench/bench_verify.py`: per device a chain of execute regions, each with
  concurrent waves of 4 dispatches on disjoint slices of a slab;
* `wide`: the same with waves of 64 dispatches (`width=64, per_region=128`): many unordered
  accesses to one slab;
* `symbolic`: `waves` with every slab laid out by a `stream.resource.pack`, so every range is
  symbolic and goes to Z3;
* `dag`: the final output of the default pipeline (transforms only) on `bench_vs_iree.dag(N)`,
  the random 2-device DAG of the side-by-side bench.

    python bench/bench_obligations.py [--sizes 1000 3000 10000] [--families chain waves wide symbolic dag]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

FAMILIES = ("chain", "waves", "wide", "symbolic", "dag")


def family_module(family: str, n: int) -> object:
    """The family's program of size `n`, parsed (for `dag`: compiled to the cmd level)."""
    from stream.ir import parse_module

    if family == "chain":
        import bench_chain

        return parse_module(bench_chain.program(n), "chain.mlir")
    if family in ("waves", "wide", "symbolic"):
        from verify.synth import cmd_program

        shape = {"width": 64, "per_region": 128} if family == "wide" else {"width": 4, "per_region": 16}
        synth = cmd_program(n, devices=2, seed=1, symbolic=family == "symbolic", **shape)
        return parse_module(synth.text, f"{family}.mlir")
    if family == "dag":
        import bench_vs_iree

        from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline

        module = parse_module(bench_vs_iree.streamproof_input(bench_vs_iree.dag(n, 0)), "dag.mlir")
        out, _ = run_pipeline(module, parse_pipeline(",".join(DEFAULT_PIPELINE)), keep_outputs=False)
        return out
    raise ValueError(f"unknown family {family!r} (known: {', '.join(FAMILIES)})")


def measure(family: str, n: int) -> dict[str, object]:
    from stream.ir.walk import functions
    from verify import verify_module
    from verify.model import build_model

    module = family_module(family, n)
    accesses = sum(len(build_model(f, module).accesses) for f in functions(module))  # type: ignore[arg-type]
    start = time.perf_counter()
    report = verify_module(module)  # type: ignore[arg-type]
    seconds = time.perf_counter() - start
    return {"family": family, "n": n, "status": report.status, "accesses": accesses,
            "obligations": report.stats.obligations, "seconds": seconds}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000])
    ap.add_argument("--families", nargs="+", choices=FAMILIES, default=list(FAMILIES))
    args = ap.parse_args(argv)
    load = os.getloadavg()[0]
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load average {load:.2f}")
    print("| family | N | verdict | accesses | obligations | obligations / access | verify s |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for family in args.families:
        for n in args.sizes:
            r = measure(family, n)
            ratio = r["obligations"] / r["accesses"] if r["accesses"] else float("nan")  # type: ignore[operator]
            print(f"| {family} | {n:,} | {r['status']} | {r['accesses']:,} | {r['obligations']:,} | {ratio:.2f} | {r['seconds']:.2f} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

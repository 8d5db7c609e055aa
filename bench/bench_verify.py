"""Verification scaling: generated cmd-level programs of 1k, 10k and 100k dispatches.

Each size runs in its own process (so the peak RSS is that run's): generate the program text
(`verify.synth.cmd_program`: per device a chain of execute regions with a queue-ordered slab,
concurrent waves of dispatches on disjoint slices, deallocas, joins), parse it (reported
separately), verify it in the default pruned mode, and report wall and CPU seconds (medians of
`--repeat` runs), obligations and how they were discharged, peak RSS after parsing and after
verification, and the width of the vector-clock chain cover.

    python bench/bench_verify.py                       # 1k, 10k, 100k; 3 runs each (1 for 100k)
    python bench/bench_verify.py --sizes 1000 10000 --repeat 5
    python bench/bench_verify.py --symbolic            # slab offsets from a stream.resource.pack (Z3)

Goal (issue 3): 10k dispatches verified in under 1 s, 100k in under 15 s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time


def one(n: int, repeat: int, symbolic: bool) -> dict[str, object]:
    from stream.ir.parser import parse_module
    from stream.ir.walk import functions
    from verify import verify_module
    from verify.hb import HappensBefore
    from verify.model import build_model
    from verify.synth import cmd_program

    synth = cmd_program(n, devices=2, width=4, per_region=16, seed=1, symbolic=symbolic)
    t = time.perf_counter()
    module = parse_module(synth.text, "bench.mlir")
    parse_wall = time.perf_counter() - t
    rss_parse = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    walls, cpus = [], []
    report = None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        report = verify_module(module)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    assert report is not None and report.ok, report.text() if report else ""
    f = functions(module)[0]
    hb = HappensBefore(build_model(f, module).graph)
    s = report.stats
    return {
        "dispatches": n, "regions": synth.regions, "bytes": len(synth.text), "parse_s": parse_wall,
        "verify_wall_s": statistics.median(walls), "verify_cpu_s": statistics.median(cpus),
        "obligations": s.obligations, "by_reachability": s.by_reachability, "by_constant": s.by_constant, "by_z3": s.by_z3,
        "z3_queries": s.z3_queries, "rss_after_parse_mb": rss_parse,
        "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "units": hb.n, "chains": hb.width,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--repeat", type=int, default=3, help="verification runs per size (100k and above: 1)")
    ap.add_argument("--symbolic", action="store_true", help="slab offsets from a resource.pack (every range is symbolic)")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one is not None:
        print(json.dumps(one(args.one, args.repeat, args.symbolic)))
        return
    rows = []
    for n in args.sizes:
        cmd = [sys.executable, __file__, "--one", str(n), "--repeat", str(args.repeat if n < 100_000 else 1)]
        if args.symbolic:
            cmd.append("--symbolic")
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    load = os.getloadavg()
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} cores, "
          f"load average {load[0]:.1f}; {time.strftime('%Y-%m-%d')}; mode: pruned{' (symbolic slabs)' if args.symbolic else ''}")
    print()
    print("| dispatches | regions | parse s | verify wall s | verify CPU s | obligations | reachability | constant | Z3 | units / chains | RSS after parse MB | peak RSS MB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['dispatches']:,} | {r['regions']:,} | {r['parse_s']:.2f} | {r['verify_wall_s']:.2f} | {r['verify_cpu_s']:.2f} | "
              f"{r['obligations']:,} | {r['by_reachability']:,} | {r['by_constant']:,} | {r['by_z3']:,} ({r['z3_queries']} queries) | "
              f"{r['units']:,} / {r['chains']} | {r['rss_after_parse_mb']:.0f} | {r['rss_peak_mb']:.0f} |")


if __name__ == "__main__":
    main()

"""The verified compile pipeline: transform and verification time of every pass.

What `streamproof compile --timing` prints, measured through the same machinery:
`verify.hook.install()`, then `stream.passes.run_pipeline(module, DEFAULT_PIPELINE,
verify="each")`, and the `PassRecord`s' `transform_seconds` and `verify_seconds` (the verification
of a pass is the structural verifier, the safety properties and refinement against the pass
input). Inputs:

* the largest program of `bench/programs/` (by op count);
* generated input-level programs of N dispatches (`program` below: chains with fan-out over two
  devices, so about half the uses need a transfer; a third of the dispatches write an operand in
  place; every 16th step slices one value and updates another with it), for each N of `--sizes`.

Each input runs in its own process (so the peak RSS is that input's own): parse once, then
`--repeat` runs of the pipeline; the table shows per-pass medians in milliseconds and the peak
RSS of the process. Parsing is not included.

    python bench/bench_pipeline.py --sizes 1000 10000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def program(n: int, seed: int = 0) -> str:
    """N dispatches over two devices (the shape of `bench_input_to_async.program`, except that an
    in-place dispatch never also reads the operand it writes: see bench/RESULTS.md)."""
    rng = random.Random(seed)
    t = "tensor<16x16xf32>"
    lines = [f"func.func @main(%x: {t}, %y: {t}) -> {t} {{", "  %c0 = arith.constant 0 : index",
             "  %c1 = arith.constant 1 : index", "  %c4 = arith.constant 4 : index", "  %c16 = arith.constant 16 : index"]
    live = ["%x", "%y"]
    for i in range(n):
        aff = f" {{stream.affinity = #hal.device.affinity<@{rng.choice(('dev0', 'dev1'))}>}}"
        a, b = rng.sample(live[-4:], 2) if len(live) >= 2 else (live[0], live[0])
        name = f"%v{i}"
        if i % 16 == 15:
            lines.append(f"  %s{i} = flow.tensor.slice {a}[%c4, %c0 for %c1, %c16] : {t} -> tensor<1x16xf32>")
            lines.append(f"  {name} = flow.tensor.update %s{i}, {b}[%c0, %c0] : tensor<1x16xf32> -> {b} as {t}")
        elif rng.random() < 0.33:
            lines.append(f"  {name} = flow.dispatch @add({a}, {b}){aff} : ({t}, {t}) -> {a}")
        else:
            lines.append(f"  {name} = flow.dispatch @{rng.choice(('relu', 'tanh', 'gelu'))}({a}){aff} : ({t}) -> {t}")
        live.append(name)
    lines += [f"  return {live[-1]} : {t}", "}"]
    return "\n".join(lines) + "\n"


def largest_program() -> Path:
    import stream.ir as ir
    from stream.ir.walk import functions

    def size(path: Path) -> int:
        return sum(len(list(f.op.walk())) for f in functions(ir.parse_module(path.read_text(), str(path))))

    return max(sorted((ROOT / "bench" / "programs").glob("*.mlir")), key=size)


def one(source: str, repeat: int) -> dict[str, object]:
    """Run the verified pipeline `repeat` times on one input (a file path or `gen:N`)."""
    import stream.ir as ir
    from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline
    from verify.hook import install

    if source.startswith("gen:"):
        n = int(source[4:])
        text, name = program(n), f"gen{n}.mlir"
    else:
        text, name = Path(source).read_text(), source
    module = ir.parse_module(text, name)
    ops = sum(1 for top in module.ops for _ in top.walk())
    install()
    pipeline = parse_pipeline(",".join(DEFAULT_PIPELINE))
    transform: dict[str, list[float]] = {p: [] for p in DEFAULT_PIPELINE}
    verify: dict[str, list[float]] = {p: [] for p in DEFAULT_PIPELINE}
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        out, records = run_pipeline(module, pipeline, verify="each")
        walls.append(time.perf_counter() - start)
        for r in records:
            transform[r.name].append(r.transform_seconds)
            verify[r.name].append(r.verify_seconds)
    assert records[-1].report is not None and records[-1].report.ok
    out_ops = sum(1 for top in out.ops for _ in top.walk())
    return {
        "source": source,
        "ops": ops,
        "out_ops": out_ops,
        "transform_ms": {p: 1000 * statistics.median(v) for p, v in transform.items()},
        "verify_ms": {p: 1000 * statistics.median(v) for p, v in verify.items()},
        "wall_s": statistics.median(walls),
        "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def child(source: str, repeat: int) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, __file__, "--one", source, "--repeat", str(repeat)],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{source}: exit {proc.returncode}\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def table(results: list[tuple[str, dict[str, object]]]) -> list[str]:
    from stream.passes import DEFAULT_PIPELINE

    head = "| pass | " + " | ".join(f"{label} transform ms | {label} verify ms" for label, _ in results) + " |"
    rows = [head, "|---|" + "---|---|" * len(results)]
    for p in DEFAULT_PIPELINE:
        cells = []
        for _, r in results:
            cells += [f"{r['transform_ms'][p]:.1f}", f"{r['verify_ms'][p]:.1f}"]  # type: ignore[index]
        rows.append(f"| {p} | " + " | ".join(cells) + " |")
    totals = []
    for _, r in results:
        totals += [f"{sum(r['transform_ms'].values()):.1f}", f"{sum(r['verify_ms'].values()):.1f}"]  # type: ignore[attr-defined]
    rows.append("| **total** | " + " | ".join(totals) + " |")
    rows.append("| input ops / output ops | " + " | ".join(f"{r['ops']} / {r['out_ops']} | " for _, r in results) + " |")
    rows.append("| peak RSS (MB) | " + " | ".join(f"{r['rss_peak_mb']:.0f} | " for _, r in results) + " |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.repeat)))
        return
    load = os.getloadavg()
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d')}, load average {load[0]:.1f} at the start")
    biggest = largest_program()
    results = [(biggest.name, child(str(biggest), args.repeat))]
    for n in args.sizes:
        results.append((f"{n} dispatches", child(f"gen:{n}", args.repeat)))
    print("\n".join(table(results)))
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()

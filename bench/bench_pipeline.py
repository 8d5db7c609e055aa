"""The verified compile pipeline: transform and verification time of every pass.

What `streamproof compile --timing` prints, measured through the same machinery:
`stream.passes.run_pipeline(module, DEFAULT_PIPELINE, hook=verify.hook.make_hook())`, and the
`PassRecord`s' `transform_seconds` and `verify_seconds` (the verification of a pass is the
structural verifier, the safety properties and refinement against the pass input). Inputs:

* the largest program of `bench/programs/` (by op count);
* generated input-level programs of N dispatches (`program` below: chains with fan-out over two
  devices, so about half the uses need a transfer; a third of the dispatches write an operand in
  place; every 16th step slices one value and updates another with it), for each N of `--sizes`.

Each input runs in its own process (so the peak RSS is that input's own): parse once, then
`--repeat` runs of the pipeline; the table shows per-pass medians in milliseconds and the peak
RSS of the process. Parsing is not included.

`--baseline REV` also runs every input with the `stream` and `verify` packages of git revision
REV (unpacked with `git archive`), the two trees alternating input by input so that a change in
load hits both alike, and prints the transform and the verification tables with REV's column next
to the current one and their ratio (baseline / current). `--baseline-paths P...` makes the
baseline HEAD's packages with only the files P from REV: one change measured by itself while
others land elsewhere.

    python bench/bench_pipeline.py --sizes 1000 10000 --repeat 3 [--baseline REV [--baseline-paths P...]]
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
import tarfile
import tempfile
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
    from verify import hook

    # A --baseline tree from before run_pipeline took its hook installed it process-wide.
    if hasattr(hook, "install"):
        hook.install()
        verified: dict[str, object] = {"verify": "each"}
    else:
        verified = {"hook": hook.make_hook()}
    if source.startswith("gen:"):
        n = int(source[4:])
        text, name = program(n), f"gen{n}.mlir"
    else:
        text, name = Path(source).read_text(), source
    module = ir.parse_module(text, name)
    ops = sum(1 for top in module.ops for _ in top.walk())
    pipeline = parse_pipeline(",".join(DEFAULT_PIPELINE))
    transform: dict[str, list[float]] = {p: [] for p in DEFAULT_PIPELINE}
    verify: dict[str, list[float]] = {p: [] for p in DEFAULT_PIPELINE}
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        out, records = run_pipeline(module, pipeline, **verified)  # type: ignore[arg-type]
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


def child(source: str, repeat: int, tree: Path | None = None) -> dict[str, object]:
    """`one` in a fresh process, importing `stream` and `verify` from `tree` (default: this one)."""
    proc = subprocess.run(
        [sys.executable, __file__, "--one", source, "--repeat", str(repeat), *(["--tree", str(tree)] if tree else [])],
        capture_output=True, text=True, check=False, cwd=tree or ROOT,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{source}: exit {proc.returncode}\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def export_tree(rev: str, into: Path, only: list[str] | None = None) -> Path:
    """The `stream` and `verify` packages of git revision `rev`, unpacked under `into`; with
    `only`, those of HEAD with just the files `only` taken from `rev` (to measure one change
    against a HEAD that has moved on elsewhere)."""
    tree = into / "tree"
    for which, paths in ((rev, ["stream", "verify"]),) if only is None else (("HEAD", ["stream", "verify"]), (rev, only)):
        archive = into / "tree.tar"
        with archive.open("wb") as f:
            subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", which, *paths], stdout=f, check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(tree, filter="data")
    return tree


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


def side_by_side(results: list[tuple[str, dict[str, object], dict[str, object]]], rev: str) -> list[str]:
    """Transform and verification tables, REV's median next to the current one per input."""
    from stream.passes import DEFAULT_PIPELINE

    out: list[str] = []
    for key, what in (("transform_ms", "transform"), ("verify_ms", "verification")):
        head = "| pass | " + " | ".join(f"{label} {rev} | {label} now | ratio" for label, _, _ in results) + " |"
        rows = [f"{what} ms, {rev} vs now", "", head, "|---|" + "---|---|---|" * len(results)]
        for p in [*DEFAULT_PIPELINE, "**total**"]:
            cells = []
            for _, base, now in results:
                b = sum(base[key].values()) if p == "**total**" else base[key][p]  # type: ignore[index, attr-defined]
                n = sum(now[key].values()) if p == "**total**" else now[key][p]  # type: ignore[index, attr-defined]
                cells += [f"{b:.1f}", f"{n:.1f}", f"{b / n:.2f}x" if n else "-"]
            rows.append(f"| {p} | " + " | ".join(cells) + " |")
        out += [*rows, ""]
    out.append("| | " + " | ".join(f"{label} {rev} | {label} now | " for label, _, _ in results) + " |")
    out.append("| peak RSS (MB) | " + " | ".join(f"{b['rss_peak_mb']:.0f} | {n['rss_peak_mb']:.0f} | " for _, b, n in results) + " |")
    out.append("| wall s (median run) | " + " | ".join(f"{b['wall_s']:.1f} | {n['wall_s']:.1f} | " for _, b, n in results) + " |")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", metavar="REV", help="also run every input with the stream and verify packages of this git revision")
    parser.add_argument("--baseline-paths", metavar="PATH", nargs="+", help="with --baseline: HEAD's packages with only these files from REV")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        if args.tree:
            sys.path.insert(0, args.tree)
        print(json.dumps(one(args.one, args.repeat)))
        return
    load = os.getloadavg()
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d')}, load average {load[0]:.1f} at the start")
    biggest = largest_program()
    inputs = [(biggest.name, str(biggest))] + [(f"{n} dispatches", f"gen:{n}") for n in args.sizes]
    if args.baseline:
        with tempfile.TemporaryDirectory() as tmp:
            tree = export_tree(args.baseline, Path(tmp), args.baseline_paths)
            pairs = [(label, child(source, args.repeat, tree), child(source, args.repeat)) for label, source in inputs]
        name = args.baseline
        if args.baseline_paths:
            head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
            print(f"base: HEAD ({head}) with {', '.join(args.baseline_paths)} from {args.baseline}")
            name = "base"
        print("\n".join(side_by_side(pairs, name)))
    else:
        print("\n".join(table([(label, child(source, args.repeat)) for label, source in inputs])))
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()

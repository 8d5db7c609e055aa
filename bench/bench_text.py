"""MLIR text speed: parse, pretty print and generic print of generated cmd-level modules.

    python bench/bench_text.py [--ops 1000 10000 100000] [--repeat 3] [--rounds 3] [--baseline REV]
    python bench/bench_text.py --profile parse|pretty|generic|"parse generic" [--ops 10000]

Each module is `verify.synth.cmd_program` (the cmd-level schedule IREE's stage 08 produces: per
region two `resource.alloca`s, a `timepoint.join`, a `cmd.execute` whose body runs waves of
`cmd.dispatch`es with `ro`/`wo` bindings in `cmd.concurrent`, and a `resource.dealloca`), with
enough dispatches for about `--ops` ops (every op counts, nested ones and terminators included).

Every phase runs in fresh worker processes (so that one phase's garbage does not slow the next)
with the garbage collector in its normal state: `--rounds` workers of `--repeat` runs each, the
trees taking turns (a burst of load on the shared machine then hits both). Wall and CPU times
are medians over all runs (freeing the result is not timed), "min cpu" is the fastest run,
kops/s comes from the median wall time, and peak MB is the Python allocation peak of one more
run under tracemalloc (tracing slows Python down, so it is not timed). A worker first checks that
the text reads back: the pretty and generic prints of the parsed module parse to modules that
print identically.

`--baseline REV` measures the `stream` package of git revision REV (exported with `git archive`)
on the same texts and prints CPU-time ratios (baseline / current).
`--profile` prints the top of a cProfile of one phase instead of the table.

The goal (issue 2): parse and print of a 10k-op module under 0.5 s each.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PHASES = ("parse", "pretty", "generic", "parse generic")


def count_ops(module: Any) -> int:
    return sum(1 for _ in module.walk())


def module_text(target_ops: int) -> tuple[str, int, int]:
    """A generated cmd-level module of about `target_ops` ops: (text, ops, dispatches)."""
    import stream.ir as ir
    from verify.synth import cmd_program

    probe = 1000
    per_dispatch = count_ops(ir.parse_module(cmd_program(probe).text, "probe.mlir")) / probe
    n = max(1, round(target_ops / per_dispatch))
    text = cmd_program(n).text
    return text, count_ops(ir.parse_module(text, "synth.mlir")), n


def phase_fn(text: str, phase: str) -> Callable[[], Any]:
    import stream.ir as ir

    if phase == "parse":
        return lambda: ir.parse_module(text, "synth.mlir")
    module = ir.parse_module(text, "synth.mlir")
    if phase == "pretty":
        return lambda: ir.print_module(module)
    if phase == "generic":
        return lambda: ir.print_module(module, generic=True)
    generic = ir.print_module(module, generic=True)
    return lambda: ir.parse_module(generic, "synth.generic.mlir")


def check_round_trip(text: str) -> None:
    import stream.ir as ir

    module = ir.parse_module(text, "synth.mlir")
    for generic in (False, True):
        printed = ir.print_module(module, generic=generic)
        if ir.print_module(ir.parse_module(printed, "printed.mlir"), generic=generic) != printed:
            raise SystemExit(f"{'generic' if generic else 'pretty'} print does not read back identically")


def measure(text: str, phase: str, repeat: int, peak: bool) -> dict[str, Any]:
    fn = phase_fn(text, phase)
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        cpus.append(time.process_time() - c)
        walls.append(time.perf_counter() - w)
        del result  # freeing a parsed module is not part of parsing it
    out: dict[str, Any] = {"walls": walls, "cpus": cpus}
    if peak:
        tracemalloc.start()
        try:
            fn()
            out["peak"] = tracemalloc.get_traced_memory()[1] / 1e6
        finally:
            tracemalloc.stop()
    return out


def worker(args: argparse.Namespace) -> None:
    """Measure one phase on one text with the `stream` package found first on sys.path."""
    import stream.ir as ir

    text = Path(args.text).read_text()
    if args.phase == "parse":
        check_round_trip(text)
    print(json.dumps({**measure(text, args.phase, args.repeat, args.peak), "package": str(Path(ir.__file__).parent)}))


def run_worker(tree: Path, text_file: Path, phase: str, repeat: int, peak: bool) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), str(ROOT)]))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--text", str(text_file), "--phase", phase,
           "--repeat", str(repeat)] + (["--peak"] if peak else [])
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    if not result.pop("package").startswith(str(tree)):
        raise SystemExit(f"the worker did not import stream from {tree}")
    return result


def export_stream(rev: str, into: Path) -> Path:
    """The `stream` package of git revision `rev`, unpacked under `into`."""
    archive = into / "stream.tar"
    with archive.open("wb") as f:
        subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "stream"], stdout=f, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def profile(text: str, phase: str, repeat: int) -> None:
    fn = phase_fn(text, phase)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(repeat):
        fn()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--repeat", type=int, default=3, help="runs per worker process")
    ap.add_argument("--rounds", type=int, default=3, help="worker processes per tree and phase, trees alternating")
    ap.add_argument("--baseline", metavar="REV", help="also measure the stream package of this git revision")
    ap.add_argument("--profile", choices=PHASES)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--text", help=argparse.SUPPRESS)
    ap.add_argument("--phase", choices=PHASES, help=argparse.SUPPRESS)
    ap.add_argument("--peak", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args)
        return
    sys.path.insert(0, str(ROOT))
    if args.profile:
        text, ops, _ = module_text(max(args.ops))
        print(f"profile of {args.profile} on {ops} ops, {args.repeat} run(s)")
        profile(text, args.profile, args.repeat)
        return
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d %H:%M')}, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"current": ROOT}
        if args.baseline:
            trees = {args.baseline: export_stream(args.baseline, Path(tmp)), **trees}
        print(f"{'ops':>7} {'dispatches':>10} {'MB':>5} {'tree':>8} {'phase':>13} {'wall s':>7} {'cpu s':>7} {'min cpu':>7} "
              f"{'kops/s':>7} {'peak MB':>7}" + (f" {'ratio':>6}" if args.baseline else ""))
        for target in args.ops:
            text, ops, n = module_text(target)
            text_file = Path(tmp) / f"synth{target}.mlir"
            text_file.write_text(text)
            for phase in PHASES:
                runs: dict[str, dict[str, Any]] = {name: {"walls": [], "cpus": []} for name in trees}
                for round_ in range(args.rounds):
                    for name, tree in trees.items():
                        r = run_worker(tree, text_file, phase, args.repeat, peak=round_ == 0)
                        runs[name]["walls"] += r["walls"]
                        runs[name]["cpus"] += r["cpus"]
                        runs[name].setdefault("peak", r.get("peak"))
                cpu = {name: statistics.median(r["cpus"]) for name, r in runs.items()}
                for name, r in runs.items():
                    wall = statistics.median(r["walls"])
                    ratio = f" {cpu[args.baseline] / cpu[name]:>5.2f}x" if args.baseline else ""
                    print(f"{ops:>7} {n:>10} {len(text) / 1e6:>5.2f} {name[:8]:>8} {phase:>13} {wall:>7.3f} {cpu[name]:>7.3f} "
                          f"{min(r['cpus']):>7.3f} {ops / wall / 1e3:>7.0f} {r['peak']:>7.1f}{ratio}", flush=True)
        print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

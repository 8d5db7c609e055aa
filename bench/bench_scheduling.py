"""The scheduling passes (schedule-execution, schedule-concurrency, propagate-timepoints):
schedule quality against IREE 3.13, and transform time at scale.

Part 1 schedules IREE's own stage-02 input (`tests/data/iree/*/02_place_transfer_executions`) with
our three passes and compares the result with IREE's stage 06 (the end of its async pipeline):
execution regions, waves, host waits, device-side waits, and the makespan of a simple cost model
next to its critical-path bound. The cost model: every dispatch, transfer, copy, fill, update,
slice, clone and splat takes one unit; a wave takes as long as its longest op; a region runs its
top-level ops one after another; a device runs one region at a time, in issue order, once the
region's awaited timepoints are reached; host ops take no time but a host await blocks issue until
its timepoint is reached. The makespan is when the function returns.

Part 2 times each pass (no verification) on generated async programs: N dispatches on two
devices, in chains of 8 that hand their result to the other device through a transfer, with an
independent side chain per device (work that could overlap). Median of `--repeat` runs and the
peak of Python allocations (tracemalloc) per pass.

    /work/venv/bin/python bench/bench_scheduling.py [--sizes 1000,10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import stream.ir as ir  # noqa: E402
from stream.ir.core import Module, Op, Value  # noqa: E402
from stream.ir.spec import spec_of  # noqa: E402
from stream.ir.walk import functions  # noqa: E402
from stream.passes.propagate_timepoints import propagate_timepoints  # noqa: E402
from stream.passes.schedule_concurrency import schedule_concurrency  # noqa: E402
from stream.passes.schedule_execution import schedule_execution  # noqa: E402

EXAMPLES = ("b_diamond", "d_inplace", "f_multidevice", "i_multidevice_overlap")
PASSES: tuple[tuple[str, Callable[[Module], Module]], ...] = (
    ("schedule-execution", schedule_execution),
    ("schedule-concurrency", schedule_concurrency),
    ("propagate-timepoints", propagate_timepoints),
)
WORK = frozenset(
    "stream.async." + n for n in ("dispatch", "transfer", "copy", "fill", "update", "slice", "clone", "splat")
)


# -- part 1: schedule quality ----------------------------------------------------------------------
def _cost(op: Op) -> int:
    if op.name == "stream.async.concurrent":
        return max((_cost(o) for o in op.regions[0].blocks[0].ops), default=0)
    return 1 if op.name in WORK else 0


def simulate(module: Module) -> int:
    """The makespan of every function, summed, under the cost model above."""
    makespan = 0
    for f in functions(module):
        done: dict[Value, int] = {}  # timepoint -> when it is reached
        device_free: dict[str, int] = {}
        host = 0
        for op in f.body.ops:
            spec = spec_of(op)
            if op.name == "stream.timepoint.join":
                done[op.results[0]] = max((done.get(t, 0) for t in op.operands), default=0)
            elif op.name == "stream.timepoint.await":
                assert spec is not None
                (t,) = spec.operand_group(op, "await_timepoint")
                host = max(host, done.get(t, 0))
            elif op.name == "stream.async.execute":
                assert spec is not None
                device = str(op.properties.get("affinity"))
                awaited = spec.operand_group(op, "await_timepoint")
                start = max(host, device_free.get(device, 0), *(done.get(t, 0) for t in awaited))
                end = start + sum(_cost(o) for o in op.regions[0].blocks[0].ops)
                device_free[device] = end
                done[op.results[-1]] = end
        makespan += host
    return makespan


def critical_path(module: Module) -> int:
    """The longest chain of dependent work in the unscheduled program (a lower bound on any
    schedule's makespan under the cost model)."""
    total = 0
    for f in functions(module):
        depth: dict[Value, int] = {}
        best = 0
        for op in f.body.ops:
            d = max((depth.get(v, 0) for inner in op.walk() for v in inner.operands), default=0) + _cost(op)
            for r in op.results:
                depth[r] = d
            best = max(best, d)
        total += best
    return total


def counts(module: Module) -> dict[str, int]:
    text = ir.print_module(module)
    device_waits = sum(1 for line in text.splitlines() if "stream.async.execute" in line and "await(" in line)
    return {
        "regions": text.count("stream.async.execute"),
        "waves": text.count("stream.async.concurrent"),
        "host waits": text.count("stream.timepoint.await"),
        "device waits": device_waits,
        "makespan": simulate(module),
    }


def part1() -> list[str]:
    rows = [
        "| example | | regions | waves | host waits | regions that wait on the device | makespan | critical path |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in EXAMPLES:
        base = ROOT / "tests" / "data" / "iree" / name
        ours = ir.parse_module((base / "02_place_transfer_executions.mlir").read_text(), name)
        bound = critical_path(ours)
        for _, run in PASSES:
            ours = run(ours)
        theirs = ir.parse_module((base / "06_async_final.mlir").read_text(), name)
        for who, module in (("IREE 3.13", theirs), ("streamproof", ours)):
            c = counts(module)
            rows.append(f"| {name} | {who} | {c['regions']} | {c['waves']} | {c['host waits']} | {c['device waits']} | {c['makespan']} | {bound} |")
    return rows


# -- part 2: scaling -------------------------------------------------------------------------------
def generate(n: int) -> str:
    """N dispatches on two devices: chains of 8 handing over to the other device, plus a side
    chain per device that nothing else waits for until the end."""
    lines = [
        "util.func public @gen(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>) {",
        "  %c0 = arith.constant 0 : index",
        "  %c64 = arith.constant 64 : index",
    ]
    r = "!stream.resource<transient>{%c64}"
    ext = "!stream.resource<external>{%c64}"
    main, side = {"a": "%arg0", "b": "%arg1"}, {"a": "%arg0", "b": "%arg1"}
    kinds = {"a": ext, "b": ext}
    side_kinds = {"a": ext, "b": ext}
    device, k = "a", 0
    for i in range(n):
        if i % 4 == 3:  # one in four dispatches extends the independent side chain
            src, t = side[device], side_kinds[device]
            lines.append(f"  %s{i} = stream.async.dispatch on(#hal.device.affinity<@dev_{device}>) @ex::@side({src}[%c0 to %c64 for %c64]) : ({t}) -> {r}")
            side[device], side_kinds[device] = f"%s{i}", r
            continue
        src, t = main[device], kinds[device]
        lines.append(f"  %d{i} = stream.async.dispatch on(#hal.device.affinity<@dev_{device}>) @ex::@step({src}[%c0 to %c64 for %c64]) : ({t}) -> {r}")
        main[device], kinds[device] = f"%d{i}", r
        k += 1
        if k % 8 == 0:
            other = "b" if device == "a" else "a"
            lines.append(
                f"  %x{i} = stream.async.transfer %d{i} : {r} from(#hal.device.affinity<@dev_{device}>) -> to(#hal.device.affinity<@dev_{other}>) {r}"
            )
            main[other], kinds[other] = f"%x{i}", r
            device = other
    outs = []
    for j, v in enumerate((main[device], side["a"], side["b"])):
        t = r if v.startswith(("%d", "%x", "%s")) else ext
        lines.append(f"  %out{j} = stream.async.transfer {v} : {t} -> !stream.resource<external>{{%c64}}")
        outs.append(f"%out{j}")
    lines.append(f"  util.return {', '.join(outs)} : !stream.resource<external>, !stream.resource<external>, !stream.resource<external>")
    lines.append("}")
    return "\n".join(lines) + "\n"


def part2(sizes: list[int], repeat: int) -> list[str]:
    rows = ["| dispatches | pass | median ms | peak MiB |", "|---|---|---|---|"]
    quality = ["| dispatches | regions | waves | host waits | makespan | critical path |", "|---|---|---|---|---|---|"]
    for n in sizes:
        module = ir.parse_module(generate(n), f"gen{n}.mlir")
        bound = critical_path(module)
        for name, run in PASSES:
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                out = run(module)
                times.append(time.perf_counter() - start)
            tracemalloc.start()
            run(module)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            rows.append(f"| {n} | {name} | {1000 * statistics.median(times):.1f} | {peak / 2**20:.1f} |")
            module = out
        c = counts(module)
        quality.append(f"| {n} | {c['regions']} | {c['waves']} | {c['host waits']} | {c['makespan']} | {bound} |")
    return rows + [""] + quality


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.node()} {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d')}")
    print()
    print("\n".join(part1()))
    print()
    print("\n".join(part2([int(s) for s in args.sizes.split(",")], args.repeat)))


if __name__ == "__main__":
    main()

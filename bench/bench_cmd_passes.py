"""The cmd-level passes (schedule-allocation, automatic-reference-counting, reuse-allocations,
elide-timepoints): schedule quality against IREE 3.13, and transform time at scale.

Part 1 runs our four passes on IREE's own async-level output (`tests/data/iree/*/06_async_final`)
and counts, side by side with IREE's stages 07 (allocation), 08 (slices laid out) and 10 (after
ElideTimepoints): execution regions, queue-ordered allocations and their statically known bytes,
frees, host waits, joins, and the timepoints device ops wait on.

Part 2 times each pass (no verification) on generated async programs: R execution regions on two
devices, each a chain of D dispatches through region-local values, region i waiting for region
i-1 of the same device and reading its result. Median of `--repeat` runs and the peak of Python
allocations (tracemalloc) per pass.

    python bench/bench_cmd_passes.py [--sizes 100,1000,10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import platform
import re
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import stream.ir as ir  # noqa: E402
from stream.ir.core import Module  # noqa: E402
from stream.ir.walk import functions  # noqa: E402
from stream.passes.automatic_reference_counting import automatic_reference_counting  # noqa: E402
from stream.passes.elide_timepoints import elide_timepoints  # noqa: E402
from stream.passes.reuse_allocations import reuse_allocations  # noqa: E402
from stream.passes.schedule_allocation import schedule_allocation  # noqa: E402

EXAMPLES = ("b_diamond", "d_inplace", "f_multidevice", "i_multidevice_overlap")
PASSES: tuple[tuple[str, Callable[[Module], Module]], ...] = (
    ("schedule-allocation", schedule_allocation),
    ("automatic-reference-counting", automatic_reference_counting),
    ("reuse-allocations", reuse_allocations),
    ("elide-timepoints", elide_timepoints),
)


# -- part 1: counts ------------------------------------------------------------------------------
def counts(text: str) -> dict[str, int]:
    """Counts read off a printed module, the same way for IREE's dumps and ours."""
    constants = {m.group(1): int(m.group(2)) for m in re.finditer(r"%(c\d+\w*) = arith.constant (\d+) : index", text)}
    alloca_sizes = re.findall(r"stream\.resource\.alloca .*\{%([\w#]+)\} =>", text)
    awaits_of_device_ops = sum(
        len(re.findall(r"%[\w#]+", m.group(1)))
        for m in re.finditer(r"stream\.(?:cmd\.execute|resource\.alloca|resource\.dealloca)[^\n]*? await\(([^)]*)\)", text)
    )
    return {
        "regions": text.count("stream.cmd.execute"),
        "allocas": len(alloca_sizes),
        "static bytes": sum(constants.get(s, 0) for s in alloca_sizes),
        "dynamic allocas": sum(1 for s in alloca_sizes if s not in constants),
        "deallocas": text.count("stream.resource.dealloca"),
        "host waits": len(re.findall(r"stream\.timepoint\.await", text)),
        "joins": text.count("stream.timepoint.join"),
        "device waits": awaits_of_device_ops,
    }


def ours(example: str) -> dict[str, str]:
    module = ir.parse_module((ROOT / "tests/data/iree" / example / "06_async_final.mlir").read_text(), example)
    stages = {}
    for name, run in PASSES:
        module = run(module)
        stages[name] = ir.print_module(module)
    return stages


def part1() -> str:
    keys = list(counts(""))
    lines = ["| program | stage | " + " | ".join(keys) + " |", "|---|---|" + "---|" * len(keys)]
    for example in EXAMPLES:
        iree = {s: (ROOT / "tests/data/iree" / example / f"{s}.mlir").read_text() for s in ("07_schedule_allocation", "08_cmd_final", "10_elide_timepoints")}
        mine = ours(example)
        rows = [
            ("IREE 07 schedule-allocation", iree["07_schedule_allocation"]),
            ("IREE 08 slices laid out", iree["08_cmd_final"]),
            ("IREE 10 elide-timepoints", iree["10_elide_timepoints"]),
            ("streamproof schedule-allocation", mine["schedule-allocation"]),
            ("streamproof all four passes", mine["elide-timepoints"]),
        ]
        for stage, text in rows:
            c = counts(text)
            lines.append(f"| {example} | {stage} | " + " | ".join(str(c[k]) for k in keys) + " |")
    return "\n".join(lines)


# -- part 2: timing ------------------------------------------------------------------------------
def generated(dispatches: int, per_region: int = 10) -> str:
    """`dispatches` dispatches in regions of `per_region`, alternating between two devices."""
    regions = max(1, dispatches // per_region)
    out = ["util.func public @big(%in0: !stream.resource<external>, %in1: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>) {",
           "  %c0 = arith.constant 0 : index", "  %c4096 = arith.constant 4096 : index"]
    last = {0: ("%in0", None), 1: ("%in1", None)}
    for r in range(regions):
        device = r % 2
        source, tp = last[device]
        await_ = f"await({tp}) => " if tp else ""
        out.append(f"  %r{r}, %t{r} = stream.async.execute on(#hal.device.affinity<@dev{device}>) {await_}with({source} as %a{r}: !stream.resource<external>{{%c4096}}) -> !stream.resource<external>{{%c4096}} {{")
        prev, ptype = f"%a{r}", "external"
        for d in range(per_region):
            rtype = "external" if d == per_region - 1 else "transient"
            out.append(f"    %v{r}_{d} = stream.async.dispatch @ex::@k{d}({prev}[%c0 to %c4096 for %c4096]) : (!stream.resource<{ptype}>{{%c4096}}) -> !stream.resource<{rtype}>{{%c4096}}")
            prev, ptype = f"%v{r}_{d}", rtype
        out.append(f"    stream.yield {prev} : !stream.resource<external>{{%c4096}}")
        out.append("  } => !stream.timepoint")
        last[device] = (f"%r{r}", f"%t{r}")
    results = [last[0], last[1]]
    for i, (value, tp) in enumerate(results):
        out.append(f"  %o{i} = stream.timepoint.await {tp} => {value} : !stream.resource<external>{{%c4096}}" if tp else f"  %o{i} = stream.timepoint.await %t0 => {value} : !stream.resource<external>{{%c4096}}")
    out.append("  util.return %o0, %o1 : !stream.resource<external>, !stream.resource<external>")
    out.append("}")
    return "\n".join(out)


def part2(sizes: list[int], repeat: int) -> str:
    lines = ["| dispatches | regions | " + " | ".join(f"{n} ms" for n, _ in PASSES) + " | " + " | ".join(f"{n} peak MB" for n, _ in PASSES) + " |",
             "|---|---|" + "---|" * (2 * len(PASSES))]
    for size in sizes:
        text = generated(size)
        base = ir.parse_module(text, "generated.mlir")
        times: dict[str, list[float]] = {n: [] for n, _ in PASSES}
        peaks: dict[str, float] = {}
        for _ in range(repeat):
            module = base
            for name, run in PASSES:
                start = time.perf_counter()
                module = run(module)
                times[name].append(time.perf_counter() - start)
        module = base
        for name, run in PASSES:
            tracemalloc.start()
            module = run(module)
            peaks[name] = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        regions = sum(op.name == "stream.cmd.execute" for op in functions(module)[0].body.ops)
        lines.append(f"| {size} | {regions} | " + " | ".join(f"{1000 * statistics.median(times[n]):.1f}" for n, _ in PASSES)
                     + " | " + " | ".join(f"{peaks[n]:.1f}" for n, _ in PASSES) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}")
    print("\n### Against IREE 3.13 on IREE's own async output\n")
    print(part1())
    print("\n### Transform time (no verification)\n")
    print(part2([int(s) for s in args.sizes.split(",")], args.repeat))


if __name__ == "__main__":
    main()

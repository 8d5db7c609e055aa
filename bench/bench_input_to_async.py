"""Transform time of convert-to-stream .. refine-usage on generated programs of 1k and 10k dispatches.

The programs are chains with fan-out over two devices: each step applies a kernel to one of the
last few values, on @dev0 or @dev1 (so about half the uses need a transfer), a third of the
dispatches write in place (ties: copy-on-write and copy elision have work to do), and every 16th
step slices and updates. Prints a table (median of `--repeat` runs per pass, the total with the
cyclic garbage collector off, peak memory of the whole chain) for the sizes asked.

    python bench/bench_input_to_async.py --sizes 1000 10000 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
import tracemalloc

import stream.ir as ir
from stream.ir.gc_pause import paused_gc
from stream.passes import PASSES

PASSES_A = ("convert-to-stream", "encode-tensors", "materialize-copy-on-write", "elide-async-copies", "refine-usage")


def program(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    lines = ["func.func @main(%x: tensor<16x16xf32>, %y: tensor<16x16xf32>) -> tensor<16x16xf32> {",
             "  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index", "  %c4 = arith.constant 4 : index",
             "  %c16 = arith.constant 16 : index"]
    live = ["%x", "%y"]
    t = "tensor<16x16xf32>"
    for i in range(n):
        device = rng.choice(("dev0", "dev1"))
        aff = f" {{stream.affinity = #hal.device.affinity<@{device}>}}"
        a, b = rng.choice(live[-4:]), rng.choice(live[-4:])
        name = f"%v{i}"
        if i % 16 == 15:
            lines.append(f"  %s{i} = flow.tensor.slice {a}[%c4, %c0 for %c1, %c16] : {t} -> tensor<1x16xf32>")
            lines.append(f"  {name} = flow.tensor.update %s{i}, {b}[%c0, %c0] : tensor<1x16xf32> -> {b} as {t}")
        elif rng.random() < 0.33:
            lines.append(f"  {name} = flow.dispatch @add({a}, {b}){aff} : ({t}, {t}) -> {a}")
        else:
            kernel = rng.choice(("relu", "tanh", "gelu"))
            lines.append(f"  {name} = flow.dispatch @{kernel}({a}){aff} : ({t}) -> {t}")
        live.append(name)
    lines.append(f"  return {live[-1]} : {t}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def run(n: int, repeat: int) -> list[tuple[str, float]]:
    text = program(n)
    times: dict[str, list[float]] = {p: [] for p in PASSES_A}
    for _ in range(repeat):
        module = ir.parse_module(text, f"chain{n}.mlir")
        for name in PASSES_A:
            start = time.perf_counter()
            module = PASSES[name].run(module)
            times[name].append(time.perf_counter() - start)
    return [(name, statistics.median(times[name])) for name in PASSES_A]


def total_without_gc(n: int, repeat: int) -> float:
    """The whole chain with Python's cyclic garbage collector off (it scans the live module
    again and again, which is most of the growth from 1k to 10k)."""
    with paused_gc():
        return sum(t for _, t in run(n, repeat))


def peak_memory(n: int) -> float:
    module = ir.parse_module(program(n), f"chain{n}.mlir")
    tracemalloc.start()
    for name in PASSES_A:
        module = PASSES[name].run(module)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {platform.node()} {platform.processor() or platform.machine()} {os.cpu_count()} cores, load {load:.1f}, "
          f"python {platform.python_version()} {time.strftime('%Y-%m-%d')}")
    rows = {n: run(n, args.repeat) for n in args.sizes}
    header = "| pass | " + " | ".join(f"{n} dispatches (ms)" for n in args.sizes) + " |"
    print(header)
    print("|" + "---|" * (len(args.sizes) + 1))
    for i, name in enumerate(PASSES_A):
        print(f"| {name} | " + " | ".join(f"{1000 * rows[n][i][1]:.0f}" for n in args.sizes) + " |")
    print("| total | " + " | ".join(f"{1000 * sum(t for _, t in rows[n]):.0f}" for n in args.sizes) + " |")
    print("| total, cyclic GC off | " + " | ".join(f"{1000 * total_without_gc(n, args.repeat):.0f}" for n in args.sizes) + " |")
    print("| peak memory, whole chain (MiB) | " + " | ".join(f"{peak_memory(n):.0f}" for n in args.sizes) + " |")


if __name__ == "__main__":
    main()

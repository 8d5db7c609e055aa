"""streamproof's verified compile next to IREE 3.13's compile to stream, on the same random DAGs.

One DAG description (`dag` below) is written out twice, so both compilers get the same graph: the
same ops, shapes, device placement and transfers.

* The DAG: N dispatches, each a `matmul`, an `add` or a `relu` of `tensor<16x16xf32>` values,
  placed at random on one of two devices (as `bench_pipeline.program`: an op takes its operands
  from the last 4 values, so about half the uses cross devices). A value about to leave that
  window unused becomes the next op's first operand, so every value but the last few is used
  (IREE would delete dead dispatches) and no two ops compute the same thing (IREE would CSE
  them). A use on the other device reads an explicit transfer, one per value and device, made
  just before its first use; the unused values are returned, those on the second device
  transferred back first. The two function arguments live on the first device.
* streamproof input (`streamproof_input`): `flow.dispatch @matmul/@add/@relu` with
  `stream.affinity = #hal.device.affinity<@dev0|@dev1>`, `flow.tensor.transfer ... to
  #hal.device.affinity<@dev1>`; no in-place dispatches (linalg on tensors has none).
* IREE input (`iree_input`): linalg on tensors in a `func.func` whose arguments and results carry
  `iree.abi.affinity = #hal.device.promise<@device_a>`: `linalg.matmul` into a zero
  `linalg.fill`, the add and the relu as `linalg.generic` (`arith.addf`, `arith.maximumf` with 0;
  IREE 3.13 has no `linalg.add`), `flow.tensor.transfer ... to #hal.device.promise<@device_b>`.
  IREE places an op on the device of its operands, which the transfers decide. Compiled with
  `iree-compile --compile-to=stream --iree-hal-target-device=device_a=local[0]
  --iree-hal-target-device=device_b=local[1] --iree-hal-local-target-device-backends=llvm-cpu`
  (the flags of `bench/iree_dumps.py --two-devices`) and `--mlir-print-op-generic`, so that
  streamproof's parser reads the output for the counts.

Measured, each run in its own process, the tools taking turns (streamproof first in the 1st,
3rd, ... repeat, IREE first in the others), medians of `--repeat` runs:

* streamproof: `stream.ir.parse_module`, `run_pipeline(module, DEFAULT_PIPELINE,
  hook=verify.hook.make_hook())` (every pass proved) and `print_module`: what `streamproof
  compile` does; "wall s" is all three, "verify s" the hook's part; peak RSS is the process's
  (`resource.getrusage(RUSAGE_SELF)`).
* IREE: the `iree-compile` process, run by a Python process that does nothing else: its wall
  time (its process start and reading and writing files included; Python's start and imports
  are not in streamproof's), and its peak RSS and CPU time from `getrusage(RUSAGE_CHILDREN)`.
  iree-compile may run passes on several threads (MLIR's default), streamproof runs on one:
  "cpu s" is user + system time.

Counted in each output (streamproof's `Module`, IREE's output read by `stream.ir.parse_module`,
the same code): execute regions (`stream.cmd.execute` / `stream.async.execute`), dispatches
(`stream.cmd.dispatch` / `stream.async.dispatch`; IREE fuses elementwise ops into their producers
so it has fewer), timepoints (`!stream.timepoint` values: op results and block arguments),
`stream.timepoint.*` ops, joins, host awaits, allocations and copies; per dispatch of the DAG
(the same denominator for both) and per dispatch emitted.

Schedule quality (issue 13, item 4), each output simulated by `bench/bench_schedule.py`'s
`measure` (the same code for both; see its docstring for the model: a region runs its commands in
order and a `stream.cmd.concurrent` wave as long as its longest command, a device runs one region
at a time, a region starts once its awaited timepoints are reached, host awaits block the host):

* simulated makespan, the DAG's work costed alike on both sides: a copy or fill takes 0.25, and a
  dispatch 1 unit per DAG op it computes (`dispatch_ops`: streamproof's dispatches compute one op
  each, an IREE dispatch the matmuls, adds and relus of its executable, at least 1), so a
  dispatch into which IREE fused a relu after a matmul takes 2: fusion saves dispatches and
  timepoints here, not work. "makespan, 1 per dispatch" is the same simulation with every
  dispatch taking 1 unit, fused or not (the most fusion could save);
* critical path: the longest chain of dependent steps of the DAG's flow program
  (`bench_schedule.critical_path` of `streamproof_input`: an op 1, a transfer 0.25, the transfers
  of the results back to the first device included). No schedule that runs every op and transfer
  can finish sooner, with one exception: an argument used only on the second device may be
  imported there (streamproof's input does not pin arguments to a device; IREE's does), saving
  at most one transfer (0.25) of the chain. It is the only makespan bound here: the model lets a
  `stream.cmd.concurrent` wave run any number of dispatches on one device at once, so the ops
  placed on a device bound nothing;
* makespan / critical path, and streamproof's makespan / IREE's (the same DAG);
* cross-device region pairs that may overlap: pairs of regions on different devices with no
  happens-before path between them (`bench_schedule`), of all such pairs;
* peak bytes (sim): the most bytes allocated at once in the simulation (from an alloca reached to
  its dealloca reached; imported arguments are not allocations);
* max-live lower bound (`live_bounds`): every value of the DAG and every transferred copy is 1 KiB
  (`tensor<16x16xf32>`); while a step w runs, its operands and result are live, and so is every
  value produced by a strict ancestor of w and read by a strict descendant of w: in any schedule
  it was written before w started and is read after w ends. The largest such set over the steps
  (the return reading the results is one) is a lower bound on any correct schedule's peak, given
  that no dispatch writes over an operand (none here: linalg on tensors is not in place, and the
  flow input has no tied operands) and a transfer makes a copy. The arguments and their copies
  are left out (the arguments are the caller's, and an argument's copy may be elided as above);
* program-order live: the peak of the same values when the steps run one at a time in program
  order (`Dag.steps`), each value freed after its last use. That schedule exists, so the least
  possible peak lies between the lower bound and this; it is a reference, not a bound on the
  compilers' (parallel) schedules.

    python bench/bench_vs_iree.py [--sizes 1000 3000 10000] [--repeat 3] [--json OUT.json] [--no-iree]

`--repeat` defaults to 3, and 1 for sizes of 10000 and more. The simulation runs in each tool's
process after its timed part (`simulate_s` in the JSON, not in "wall s"); the bounds are computed
once per DAG, in the parent. JSON version 2 adds `bounds` (`critical_path`, `live_lower_bytes`,
`live_program_order_bytes`) to each result and `schedule` (`makespan`, `makespan_unit_dispatch`,
`peak_bytes`, `overlap_pairs`, `cross_pairs`, `allocated_bytes`) and `simulate_s` to each tool.
Without `iree-compile` (PATH or `$IREE_COMPILE`; `pip install -e '.[iree]'`) the IREE columns say
so and streamproof still runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))
if str(BENCH) not in sys.path:  # `bench_schedule`, also when this file is loaded by path (tests)
    sys.path.insert(1, str(BENCH))

TENSOR = "tensor<16x16xf32>"
VALUE_BYTES = 16 * 16 * 4
KINDS = ("matmul", "add", "relu")
ARITY = {"matmul": 2, "add": 2, "relu": 1}
WINDOW = 4
STREAMPROOF_DEVICES = ("dev0", "dev1")
IREE_DEVICES = ("device_a", "device_b")
IREE_FLAGS = (
    "--iree-hal-target-device=device_a=local[0]",
    "--iree-hal-target-device=device_b=local[1]",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--compile-to=stream",
    "--mlir-print-op-generic",
)
TOOLS = ("streamproof", "iree")
FORKED = "streamproof-forked"  # `--jobs N`: the same verified compile, pass outputs proved in forked processes


@dataclass(frozen=True, slots=True)
class Node:
    kind: str
    device: int
    operands: tuple[int, ...]  # value ids: 0 and 1 are the arguments, 2 + i is node i's result


@dataclass(frozen=True, slots=True)
class Dag:
    nodes: tuple[Node, ...]
    results: tuple[int, ...]  # the values nothing uses

    def device(self, value: int) -> int:
        return 0 if value < 2 else self.nodes[value - 2].device

    def steps(self) -> list[tuple[str, int, int]]:
        """Program order, shared by both printers: ("transfer", value, device) just before the
        first use of `value` on `device`, ("node", i, device), and at the end ("transfer", v, 0)
        for the results on the second device, then ("return", 0, 0)."""
        moved: set[tuple[int, int]] = set()
        out: list[tuple[str, int, int]] = []
        for i, node in enumerate(self.nodes):
            for v in node.operands:
                if self.device(v) != node.device and (v, node.device) not in moved:
                    moved.add((v, node.device))
                    out.append(("transfer", v, node.device))
            out.append(("node", i, node.device))
        out += [("transfer", v, 0) for v in self.results if self.device(v) != 0]
        out.append(("return", 0, 0))
        return out

    def transfers(self) -> int:
        return sum(1 for kind, _, _ in self.steps() if kind == "transfer")


def dag(n: int, seed: int = 0) -> Dag:
    """N matmul/add/relu dispatches over two devices, every value but the last few used, no two
    ops alike (module docstring)."""
    rng = random.Random(seed)
    live = [0, 1]
    used: set[int] = set()
    seen: set[tuple[str, int, tuple[int, ...]]] = set()
    nodes: list[Node] = []
    for _ in range(n):
        window = live[-WINDOW:]
        leaving = window[0] if len(live) > WINDOW and window[0] not in used else None
        while True:
            kind = rng.choice(KINDS)
            device = rng.randrange(2)
            first = leaving if leaving is not None else rng.choice(window)
            operands = (first, rng.choice([v for v in window if v != first])) if ARITY[kind] == 2 else (first,)
            key = (kind, device, operands if kind == "matmul" else tuple(sorted(operands)))
            if key not in seen:
                break
        seen.add(key)
        used.update(operands)
        nodes.append(Node(kind, device, operands))
        live.append(len(live))
    results = tuple(v for v in live[2:] if v not in used)
    return Dag(tuple(nodes), results)


def _name(value: int, device: int | None = None) -> str:
    return f"%v{value}" if device is None else f"%v{value}_d{device}"


def _operand(d: Dag, value: int, device: int) -> str:
    """The name of `value` as seen on `device` (its transfer when it lives elsewhere)."""
    return _name(value) if d.device(value) == device else _name(value, device)


def streamproof_input(d: Dag) -> str:
    t = TENSOR
    lines = [f"func.func @main(%v0: {t}, %v1: {t}) -> ({', '.join([t] * len(d.results))}) {{"]
    for kind, index, device in d.steps():
        dev = STREAMPROOF_DEVICES[device]
        if kind == "transfer":
            lines.append(f"  {_name(index, device)} = flow.tensor.transfer {_name(index)} : {t} to #hal.device.affinity<@{dev}>")
        elif kind == "node":
            node = d.nodes[index]
            args = ", ".join(_operand(d, v, device) for v in node.operands)
            types = ", ".join([t] * len(node.operands))
            lines.append(f"  {_name(index + 2)} = flow.dispatch @{node.kind}({args}) {{stream.affinity = #hal.device.affinity<@{dev}>}}"
                         f" : ({types}) -> {t}")
    returned = ", ".join(_operand(d, v, 0) for v in d.results)
    lines += [f"  return {returned} : {', '.join([t] * len(d.results))}", "}"]
    return "\n".join(lines) + "\n"


def _iree_node(node: Node, out: str, args: list[str]) -> list[str]:
    t = TENSOR
    e = f"{out}_init"
    lines = [f"  {e} = tensor.empty() : {t}"]
    if node.kind == "matmul":
        lines += [f"  {out}_zero = linalg.fill ins(%zero : f32) outs({e} : {t}) -> {t}",
                  f"  {out} = linalg.matmul ins({args[0]}, {args[1]} : {t}, {t}) outs({out}_zero : {t}) -> {t}"]
        return lines
    maps = ", ".join(["#id"] * (len(args) + 1))
    block = ", ".join([f"%in{k}: f32" for k in range(len(args))] + ["%o: f32"])
    body = "%r = arith.addf %in0, %in1 : f32" if node.kind == "add" else "%r = arith.maximumf %in0, %zero : f32"
    lines += [
        f'  {out} = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel", "parallel"]}}'
        f" ins({', '.join(args)} : {', '.join([t] * len(args))}) outs({e} : {t}) {{",
        f"  ^bb0({block}):",
        f"    {body}",
        "    linalg.yield %r : f32",
        f"  }} -> {t}",
    ]
    return lines


def iree_input(d: Dag) -> str:
    t = TENSOR
    a = f"{{iree.abi.affinity = #hal.device.promise<@{IREE_DEVICES[0]}>}}"
    results = ", ".join([f"{t} {a}"] * len(d.results))
    lines = [
        "#id = affine_map<(i, j) -> (i, j)>",
        f"func.func public @main(%v0: {t} {a}, %v1: {t} {a}) -> ({results}) {{",
        "  %zero = arith.constant 0.0 : f32",
    ]
    for kind, index, device in d.steps():
        if kind == "transfer":
            lines.append(f"  {_name(index, device)} = flow.tensor.transfer {_name(index)} : {t} to #hal.device.promise<@{IREE_DEVICES[device]}>")
        elif kind == "node":
            node = d.nodes[index]
            lines += _iree_node(node, _name(index + 2), [_operand(d, v, device) for v in node.operands])
    returned = ", ".join(_operand(d, v, 0) for v in d.results)
    lines += [f"  return {returned} : {', '.join([t] * len(d.results))}", "}"]
    return "\n".join(lines) + "\n"


def dag_ops(op: Any) -> int:
    """How many of the DAG's ops `op` computes: a `linalg.matmul` is one, and so is each
    `arith.addf` (an add) and `arith.maximumf` (a relu) outside a matmul's body; IREE merges
    fused elementwise ops into one `linalg.generic`, so counting linalg ops would not do."""
    if op.name == "linalg.matmul":
        return 1
    own = 1 if op.name in ("arith.addf", "arith.maximumf") else 0
    return own + sum(dag_ops(inner) for region in op.regions for block in region.blocks for inner in block.ops)


def kernel_ops(module: Any) -> dict[tuple[str, ...], int]:
    """For each `@executable::@export` of the module, how many of the DAG's ops its function
    computes (`dag_ops`)."""
    out: dict[tuple[str, ...], int] = {}
    for top in module.ops:
        if top.name != "stream.executable":
            continue
        exe = str(top.attr("sym_name").value)
        functions = {str(op.attr("sym_name").value): op for op in top.walk() if op.name == "func.func"}
        for op in top.walk():
            if op.name == "stream.executable.export":
                body = functions.get(op.attr("function_ref").root)
                out[(exe, str(op.attr("sym_name").value))] = dag_ops(body) if body else 0
    return out


def dispatch_ops(op: Any, kernels: dict[tuple[str, ...], int]) -> int:
    """How many of the DAG's ops a `stream.cmd.dispatch` / `stream.async.dispatch` computes: its
    entry points' `kernels` (`kernel_ops`), one op for an entry point without an executable
    (streamproof's dispatches name the DAG op itself). One entry point each here."""
    return sum(kernels.get((entry.root, *entry.nested), 1) for entry in op.attr("entry_points").elements)


def census(module: Any) -> dict[str, Any]:
    """Schedule counts of a stream-level module (streamproof's output or IREE's, parsed).
    `ops_per_device`: the DAG ops each device's dispatches compute (a dispatch without an
    executable, streamproof's, is one op), keyed by device name without IREE's names."""
    from stream.ir.types import TimepointType

    kernels = kernel_ops(module)
    names: Counter[str] = Counter()
    timepoints = 0
    per_device: Counter[str] = Counter()
    ops_per_device: Counter[str] = Counter()
    for op in module.walk():
        names[op.name] += 1
        timepoints += sum(isinstance(r.type, TimepointType) for r in op.results)
        for region in op.regions:
            for block in region.blocks:
                timepoints += sum(isinstance(a.type, TimepointType) for a in block.arguments)
        if op.name in ("stream.cmd.execute", "stream.async.execute"):
            device = str(op.attr("affinity"))
            for inner in op.walk():
                if inner.name in ("stream.cmd.dispatch", "stream.async.dispatch"):
                    per_device[device] += 1
                    ops_per_device[device] += dispatch_ops(inner, kernels)
    return {
        "regions": names["stream.cmd.execute"] + names["stream.async.execute"],
        "dispatches": names["stream.cmd.dispatch"] + names["stream.async.dispatch"],
        "dispatches_per_device": dict(sorted(per_device.items())),
        "ops_per_device": dict(sorted(ops_per_device.items())),
        "timepoints": timepoints,
        "timepoint_ops": sum(c for name, c in names.items() if name.startswith("stream.timepoint.")),
        "joins": names["stream.timepoint.join"],
        "host_awaits": names["stream.timepoint.await"],
        "allocas": names["stream.resource.alloca"] + names["stream.resource.alloc"],
        "deallocas": names["stream.resource.dealloca"],
        "copies": names["stream.cmd.copy"] + names["stream.async.copy"] + names["stream.async.transfer"],
    }


def simulate(module: Any) -> dict[str, Any]:
    """`bench_schedule.measure` of a cmd-level output, with each dispatch costed by the DAG ops it
    computes (module docstring), and again with every dispatch costed 1 (`makespan_unit_dispatch`).
    Deterministic: the same module gives the same numbers."""
    import bench_schedule

    kernels = kernel_ops(module)
    # A dispatch computing none of the DAG's ops (none seen) still runs: it costs one dispatch.
    weighted = bench_schedule.measure(module, lambda op: bench_schedule.DISPATCH * max(dispatch_ops(op, kernels), 1))
    unit = bench_schedule.measure(module)
    return {
        "makespan": weighted.makespan,
        "makespan_unit_dispatch": unit.makespan,
        "peak_bytes": weighted.peak,
        "overlap_pairs": weighted.overlap_pairs,
        "cross_pairs": weighted.cross_pairs,
        "allocated_bytes": weighted.allocated,
    }


def live_bounds(d: Dag) -> tuple[int, int]:
    """(max-live lower bound, program-order live peak) of the DAG, in bytes (module docstring).

    The located values are the DAG's values on their own device and the copies the transfers make,
    each `VALUE_BYTES`; the arguments and their copies are not counted. Step s of `d.steps()`
    produces a value (an op's result, a transfer's copy) and reads others (an op its operands on
    its device, a transfer its source, the return the results on the first device). The lower
    bound counts, for each step w, the values that every schedule holds while w runs: those w
    reads or produces, and those produced by a strict ancestor of w and read by a strict
    descendant of w (ancestry along the reads). Reachability is kept as bit sets over the steps.
    """
    steps = d.steps()
    producer: dict[tuple[int, int], int] = {}  # located value (value, device) -> step
    reads: list[list[tuple[int, int]]] = []
    for s, (kind, index, device) in enumerate(steps):
        if kind == "node":
            reads.append([(v, device) for v in dict.fromkeys(d.nodes[index].operands)])
            producer[(index + 2, device)] = s
        elif kind == "transfer":
            reads.append([(index, d.device(index))])
            producer[(index, device)] = s
        else:
            reads.append([(v, 0) for v in d.results])
    readers: dict[tuple[int, int], list[int]] = {}
    for s, values in enumerate(reads):
        for x in values:
            readers.setdefault(x, []).append(s)
    ancestors: list[int] = []  # bit p of ancestors[s]: step p is a strict ancestor of step s
    for values in reads:
        bits = 0
        for x in values:
            if x in producer:
                p = producer[x]
                bits |= ancestors[p] | (1 << p)
        ancestors.append(bits)
    descendants = [0] * len(steps)
    for s in reversed(range(len(steps))):
        for x in reads[s]:
            if x in producer:
                p = producer[x]
                descendants[p] |= descendants[s] | (1 << s)
    must = [0] * len(steps)  # values every schedule holds while the step runs
    order = [0] * (len(steps) + 1)  # +1 / -1 at the first / after the last step of a value's life
    for x, p in producer.items():
        if x[0] < 2:  # an argument's copy (module docstring)
            continue
        after = 0
        read = readers.get(x, [])
        for r in read:
            after |= ancestors[r]
        held = ((descendants[p] & after) | (1 << p)) >> p
        for r in read:
            held |= 1 << (r - p)
        while held:
            low = held & -held
            must[p + low.bit_length() - 1] += 1
            held ^= low
        order[p] += 1
        order[max(read, default=p) + 1] -= 1
    level, peak = 0, 0
    for delta in order:
        level += delta
        peak = max(peak, level)
    return max(must) * VALUE_BYTES, peak * VALUE_BYTES


def bounds(d: Dag) -> dict[str, Any]:
    """The DAG's own bounds: its critical path under the simulation's costs (on the flow program
    `streamproof_input`, by `bench_schedule.critical_path`) and `live_bounds`. (The ops on one
    device are no makespan bound: the simulation runs a `stream.cmd.concurrent` wave of dispatches
    on one device as long as its longest one.)"""
    from bench_schedule import critical_path

    import stream.ir as ir

    lower, order = live_bounds(d)
    return {
        "critical_path": critical_path(ir.parse_module(streamproof_input(d), "dag.mlir")),
        "live_lower_bytes": lower,
        "live_program_order_bytes": order,
    }


def iree_compile() -> str | None:
    return os.environ.get("IREE_COMPILE") or shutil.which("iree-compile")


def iree_version(tool: str) -> str:
    proc = subprocess.run([tool, "--version"], capture_output=True, text=True, check=False)
    for line in proc.stdout.splitlines():
        if "compiler version" in line:
            return line.strip()
    return "unknown version"


def run_streamproof(n: int, seed: int, jobs: int = 1) -> dict[str, Any]:
    """One verified compile of the N-dispatch DAG, in this process (`jobs >= 2`: its pass
    outputs proved in forked children; their CPU time is counted, and their peak RSS next to
    this process's)."""
    import stream.ir as ir
    from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline
    from verify.hook import make_hook

    text = streamproof_input(dag(n, seed))
    pipeline = parse_pipeline(",".join(DEFAULT_PIPELINE))
    hook = make_hook()
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    module = ir.parse_module(text, f"dag{n}.mlir")
    out, records = run_pipeline(module, pipeline, hook=hook, jobs=jobs, keep_outputs=False)
    printed = ir.print_module(out)
    wall = time.perf_counter() - start
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = records[-1].report
    assert report is not None and report.ok, "the verified compile did not prove its output"
    start = time.perf_counter()
    schedule = simulate(out)
    simulate_s = time.perf_counter() - start
    return {
        "wall_s": wall,
        "cpu_s": (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
        + (kids1.ru_utime - kids0.ru_utime) + (kids1.ru_stime - kids0.ru_stime),
        **({"verify_s": sum(r.verify_seconds for r in records)} if jobs < 2 else {}),  # children's seconds overlap
        "transform_s": sum(r.transform_seconds for r in records),
        "rss_peak_mb": cpu1.ru_maxrss / 1024,
        **({"children_rss_peak_mb": kids1.ru_maxrss / 1024} if jobs >= 2 else {}),
        "output_bytes": len(printed),
        **census(out),
        "schedule": schedule,
        "simulate_s": simulate_s,
    }


def run_iree(n: int, seed: int) -> dict[str, Any]:
    """One `iree-compile --compile-to=stream` of the N-dispatch DAG, in a child process."""
    import stream.ir as ir

    tool = iree_compile()
    if tool is None:
        raise SystemExit("iree-compile not found")
    with tempfile.TemporaryDirectory() as tmp:
        source, target = Path(tmp) / f"dag{n}.mlir", Path(tmp) / f"dag{n}.stream.mlir"
        source.write_text(iree_input(dag(n, seed)))
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run([tool, str(source), *IREE_FLAGS, "-o", str(target)], capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"iree-compile failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
        printed = target.read_text()
    module = ir.parse_module(printed, f"iree{n}.mlir")
    start = time.perf_counter()
    schedule = simulate(module)
    simulate_s = time.perf_counter() - start
    return {
        "wall_s": wall,
        "cpu_s": (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime),
        "rss_peak_mb": cpu1.ru_maxrss / 1024,
        "output_bytes": len(printed),
        **census(module),
        "schedule": schedule,
        "simulate_s": simulate_s,
    }


def child(tool: str, n: int, seed: int, jobs: int = 1) -> dict[str, Any]:
    """`run_streamproof` or `run_iree` in a fresh process."""
    proc = subprocess.run(
        [sys.executable, __file__, "--one", tool, str(n), "--seed", str(seed), "--jobs", str(jobs)],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{tool} at {n} dispatches: exit {proc.returncode}\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def device_counts(per_device: dict[str, int]) -> list[int]:
    """`ops_per_device` as a list indexed by device (dev0 / device_a first)."""
    counts = [0, 0]
    for key, count in per_device.items():
        name = key.rsplit("@", 1)[-1].rstrip(">")
        counts[(STREAMPROOF_DEVICES + IREE_DEVICES).index(name) % 2] += count
    return counts


TIMED = ("wall_s", "cpu_s", "verify_s", "transform_s", "rss_peak_mb", "children_rss_peak_mb", "simulate_s")


def measure(n: int, repeat: int, seed: int, tools: tuple[str, ...], jobs: int = 1) -> dict[str, Any]:
    """`repeat` runs of each tool on the N-dispatch DAG, alternating (the first tool changes every
    repeat); medians of the timings, the counts of the first run (they are the same every run)."""
    runs: dict[str, list[dict[str, Any]]] = {tool: [] for tool in tools}
    for turn in range(repeat):
        for tool in tools if turn % 2 == 0 else tuple(reversed(tools)):
            runs[tool].append(child(tool, n, seed, jobs))
    d = dag(n, seed)
    placement = [sum(1 for node in d.nodes if node.device == k) for k in range(2)]
    out: dict[str, Any] = {"dispatches": n, "transfers": d.transfers(), "results": len(d.results), "repeat": repeat,
                           "ops_per_device": placement, "bounds": bounds(d)}
    for tool, rs in runs.items():
        summary = {k: v for k, v in rs[0].items() if k not in TIMED}
        for r in rs[1:]:
            assert {k: v for k, v in r.items() if k not in TIMED} == summary, f"{tool}: the counts changed between runs"
        summary["placement_matches"] = device_counts(summary["ops_per_device"]) == placement
        for key in TIMED:
            if key in rs[0]:
                summary[key] = statistics.median(r[key] for r in rs)
        summary["wall_s_runs"] = [r["wall_s"] for r in rs]
        out[tool] = summary
    return out


def _fmt(x: float) -> str:
    return f"{x:.2f}" if x < 10 else f"{x:.1f}"


def tables(results: list[dict[str, Any]]) -> list[str]:
    """The markdown tables: cost, then schedule counts, then per-dispatch ratios, then schedule
    quality (`quality_table`)."""
    label = {"streamproof": "streamproof (verified)", "iree": "IREE 3.13",
             FORKED: f"streamproof (verified, --jobs {results[0].get('jobs', 2) if results else 2})"}
    rows = [
        "| DAG dispatches | transfers | compiler | runs | wall s | cpu s | of which verify s | peak RSS MB | dispatches | regions |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for res in results:
        for tool in (TOOLS[0], FORKED, *TOOLS[1:]):
            s = res.get(tool)
            if s is None and tool == FORKED:
                continue
            if s is None:
                rows.append(f"| {res['dispatches']} | {res['transfers']} | {label[tool]} | - | not run | | | | | |")
                continue
            verify = _fmt(s["verify_s"]) if "verify_s" in s else "-"
            rss = f"{s['rss_peak_mb']:.0f}" + (f" + children {s['children_rss_peak_mb']:.0f}" if "children_rss_peak_mb" in s else "")
            rows.append(f"| {res['dispatches']} | {res['transfers']} | {label[tool]} | {res['repeat']} | {_fmt(s['wall_s'])} "
                        f"| {_fmt(s['cpu_s'])} | {verify} | {rss} | {s['dispatches']} | {s['regions']} |")
    rows += [
        "",
        "| DAG dispatches | compiler | DAG ops on device 0 / 1 | dispatches | regions | timepoints | timepoint ops | joins "
        "| host awaits | allocas | deallocas | copies |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for res in results:
        for tool in TOOLS:
            s = res.get(tool)
            if s is not None:
                ops = " / ".join(map(str, device_counts(s["ops_per_device"])))
                ops += "" if s["placement_matches"] else " (the DAG: " + " / ".join(map(str, res["ops_per_device"])) + ")"
                rows.append(f"| {res['dispatches']} | {label[tool]} | {ops} | {s['dispatches']} | {s['regions']} | {s['timepoints']} "
                            f"| {s['timepoint_ops']} | {s['joins']} | {s['host_awaits']} | {s['allocas']} | {s['deallocas']} | {s['copies']} |")
    rows += [
        "",
        "| DAG dispatches | compiler | regions / DAG dispatch | timepoints / DAG dispatch | dispatches / region "
        "| regions / dispatch emitted | timepoints / dispatch emitted |",
        "|---|---|---|---|---|---|---|",
    ]
    for res in results:
        n = res["dispatches"]
        for tool in TOOLS:
            s = res.get(tool)
            if s is not None:
                emitted = max(s["dispatches"], 1)
                rows.append(f"| {n} | {label[tool]} | {s['regions'] / n:.3f} | {s['timepoints'] / n:.3f} "
                            f"| {s['dispatches'] / max(s['regions'], 1):.2f} | {s['regions'] / emitted:.3f} | {s['timepoints'] / emitted:.3f} |")
    return rows + [""] + quality_table(results)


def quality_table(results: list[dict[str, Any]]) -> list[str]:
    """The schedule quality table (module docstring): per DAG and compiler, regions and timepoints
    per DAG dispatch, simulated makespan against the critical path and against IREE's, and the
    simulated peak against the max-live lower bound and the program-order live peak."""
    label = {"streamproof": "streamproof (verified)", "iree": "IREE 3.13"}
    rows = [
        "| DAG dispatches | compiler | regions / DAG dispatch | timepoints / DAG dispatch | makespan (sim) | critical path "
        "| makespan / critical path | makespan / IREE's | makespan, 1 per dispatch | cross-device region pairs that may overlap "
        "| peak KiB (sim) | max-live lower bound KiB | program-order live KiB | peak / lower bound |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for res in results:
        n, b = res["dispatches"], res["bounds"]
        theirs = res.get("iree", {}).get("schedule")
        for tool in TOOLS:
            s = res.get(tool)
            if s is None:
                continue
            q = s["schedule"]
            vs_iree = f"{q['makespan'] / theirs['makespan']:.3f}" if theirs and theirs["makespan"] else "-"
            overlap = f"{q['overlap_pairs']} of {q['cross_pairs']}" if q["cross_pairs"] else "-"
            rows.append(
                f"| {n} | {label[tool]} | {s['regions'] / n:.3f} | {s['timepoints'] / n:.3f} | {q['makespan']:g} | {b['critical_path']:g} "
                f"| {q['makespan'] / b['critical_path']:.3f} | {vs_iree} | {q['makespan_unit_dispatch']:g} | {overlap} "
                f"| {q['peak_bytes'] / 1024:g} | {b['live_lower_bytes'] / 1024:g} | {b['live_program_order_bytes'] / 1024:g} "
                f"| {q['peak_bytes'] / b['live_lower_bytes']:.1f} |"
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000], help="DAG sizes in dispatches")
    parser.add_argument("--repeat", type=int, help="runs per tool and size (default 3; 1 for 10000 dispatches and more)")
    parser.add_argument("--seed", type=int, default=0, help="the DAG generator's seed")
    parser.add_argument("--json", metavar="OUT.json", help="also write the results as JSON ('-': to stdout, instead of the tables)")
    parser.add_argument("--no-iree", action="store_true", help="run streamproof only")
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="also run streamproof with --jobs N (N >= 2: pass outputs proved in forked processes)")
    parser.add_argument("--one", nargs=2, metavar=("TOOL", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        tool, n = args.one[0], int(args.one[1])
        if tool == "iree":
            result = run_iree(n, args.seed)
        else:
            result = run_streamproof(n, args.seed, args.jobs if tool == FORKED else 1)
        print(json.dumps(result))
        return 0
    iree = None if args.no_iree else iree_compile()
    tools = ("streamproof", *((FORKED,) if args.jobs >= 2 else ()), *(("iree",) if iree else ()))
    say = sys.stderr if args.json == "-" else sys.stdout
    load_start = os.getloadavg()
    header = {
        "machine": f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "iree": iree_version(iree) if iree else ("not run (--no-iree)" if args.no_iree else "iree-compile not found: pip install -e '.[iree]'"),
        "load_start": [round(x, 2) for x in load_start],
    }
    print(f"machine: {header['machine']}, {header['date']}, load average {load_start[0]:.2f} {load_start[1]:.2f} "
          f"{load_start[2]:.2f} at the start; IREE: {header['iree']}", file=say, flush=True)
    results = []
    for n in args.sizes:
        repeat = args.repeat or (1 if n >= 10000 else 3)
        results.append({**measure(n, repeat, args.seed, tools, args.jobs), "jobs": args.jobs})
        print(f"  {n} dispatches done, load average {os.getloadavg()[0]:.2f}", file=sys.stderr, flush=True)
    load_end = os.getloadavg()
    header["load_end"] = [round(x, 2) for x in load_end]
    document = {"schema": "streamproof.bench_vs_iree", "version": 2, **header, "results": results}
    if args.json == "-":
        print(json.dumps(document, indent=1))
        return 0
    if args.json:
        Path(args.json).write_text(json.dumps(document, indent=1) + "\n")
    print()
    print("\n".join(tables(results)))
    print(f"\nload average {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())

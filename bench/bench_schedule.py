"""Schedule quality of the whole pipeline against IREE 3.13's final Stream output.

`bench/programs/*.mlir` are flow-level versions (written for streamproof) of the four IREE example
programs, one dispatch per dispatch IREE formed (the fused kernels are in
`bench/programs/kernels.py`). Each is compiled by the default pipeline with **every pass
verified** (the script stops if any pass is not proved); IREE's side is its output after
ElideTimepoints (`tests/data/iree/<prog>/10_elide_timepoints.mlir`), the same stage. Both cmd-level
modules are measured by the same code:

* regions: `stream.cmd.execute` ops; host waits: `stream.timepoint.await` ops;
* allocations: `resource.alloca` / `alloc` / `constants`; allocated bytes: their sizes summed;
  slab bytes: the part of that in `transient` allocations (region-local values packed into slabs,
  plus transient buffers that carry values between regions);
* device overlap: pairs of regions on different devices with no happens-before path between them
  in either direction (SPEC §3.1: awaits, joins, and host awaits before an issue), i.e. regions
  that may run at the same time;
* makespan: a simulation with a per-dispatch cost model: a dispatch takes 1 unit (`measure`'s
  `dispatch_cost` can say otherwise, e.g. per fused op), a copy or fill 0.25, cache control
  (flush/invalidate/discard) nothing; a region runs its top-level commands one
  after another and a `cmd.concurrent` wave as long as its longest command; a device runs one
  region at a time (the earliest gap after the region is ready, so queues are not FIFO); a
  region is ready once the host issued it and its awaited timepoints are reached; allocations,
  frees and joins take no time; a host await blocks the host until its timepoint is reached. The
  makespan is the time the function returns; the critical path of the flow program under the
  same costs (dispatch 1, transfer 0.25) is the lower bound;
* peak bytes: the most bytes allocated at once in that simulation (an allocation counts from
  when its alloca is reached to when its dealloca is; the larger of the functions' peaks);
* verifier: `verify_module` on the final module (proved, or the violation classes).

    python bench/bench_schedule.py
"""

from __future__ import annotations

import os
import platform
import sys
import time
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import stream.ir as ir  # noqa: E402
from stream.ir.core import Block, Module, Op, Value  # noqa: E402
from stream.ir.spec import spec_of  # noqa: E402
from stream.ir.types import ResourceType, TimepointType  # noqa: E402
from stream.ir.walk import constant_int, defining_ops, functions  # noqa: E402
from stream.passes import DEFAULT_PIPELINE, parse_pipeline, run_pipeline  # noqa: E402
from verify.api import verify_module  # noqa: E402
from verify.hook import make_hook  # noqa: E402

PROGRAMS = {
    "b_diamond": "diamond.mlir",
    "d_inplace": "inplace.mlir",
    "f_multidevice": "multidevice.mlir",
    "i_multidevice_overlap": "overlap.mlir",
}
DISPATCH, COPY = 1.0, 0.25
COMMAND_COST = {"stream.cmd.dispatch": DISPATCH, "stream.cmd.copy": COPY, "stream.cmd.fill": COPY}
ALLOCATING = ("stream.resource.alloca", "stream.resource.alloc", "stream.resource.constants")
FLOW_COST = {"flow.dispatch": DISPATCH, "flow.tensor.transfer": COPY}


def awaited(op: Op) -> tuple[Value, ...]:
    if op.name == "stream.timepoint.join":
        return op.operands
    spec = spec_of(op)
    if spec is None:
        return ()
    for group in ("await_timepoint", "await_timepoints"):
        if group in spec._operand_index:
            return spec.operand_group(op, group)
    return ()


DispatchCost = Callable[[Op], float]
"""The time a `stream.cmd.dispatch` takes, for callers whose dispatches are not all alike (a fused
dispatch doing the work of several); without one a dispatch takes `DISPATCH`."""


def region_cost(op: Op, dispatch_cost: DispatchCost | None = None) -> float:
    """Serial bodies add up; a concurrent wave takes as long as its longest child."""
    if op.name == "stream.cmd.concurrent":
        return max((region_cost(c, dispatch_cost) for c in op.regions[0].blocks[0].ops), default=0.0)
    if op.regions and op.regions[0].blocks:
        return sum(region_cost(c, dispatch_cost) for c in op.regions[0].blocks[0].ops)
    if dispatch_cost is not None and op.name == "stream.cmd.dispatch":
        return dispatch_cost(op)
    return COMMAND_COST.get(op.name, 0.0)


@dataclass(slots=True)
class Device:
    """The intervals a device is busy, sorted by (start, end). They never overlap (each is placed
    in a gap), so their ends are sorted too (`ends`, kept beside them for bisection)."""

    busy: list[tuple[float, float]] = field(default_factory=list)
    ends: list[float] = field(default_factory=list)

    def place(self, ready: float, length: float) -> float:
        """The earliest start >= ready of a gap of `length` between the busy intervals (the first
        fit in start order)."""
        # An interval ending at or before `ready` can neither end the search (`start + length <=
        # lo` with lo <= ready <= start holds only for an empty region at `ready`, which then
        # starts at `ready` either way) nor push the start later: skipping them keeps the first
        # fit the same and makes a placement near the end of a long timeline cheap.
        start = ready
        busy = self.busy
        for k in range(bisect_right(self.ends, ready), len(busy)):
            lo, hi = busy[k]
            if start + length <= lo:
                break
            start = max(start, hi)
        interval = (start, start + length)
        at = bisect_right(busy, interval)
        busy.insert(at, interval)
        self.ends.insert(at, interval[1])
        return start


@dataclass(slots=True)
class Shape:
    regions: int = 0
    host_waits: int = 0
    allocations: int = 0
    allocated: int = 0
    slab: int = 0
    overlap_pairs: int = 0
    cross_pairs: int = 0
    makespan: float = 0.0
    peak: int = 0

    def add(self, other: Shape) -> None:
        """Functions run one after another: counts and times add up, the peak is the larger one."""
        for name in self.__slots__:  # type: ignore[attr-defined]
            combine = max if name == "peak" else (lambda a, b: a + b)
            setattr(self, name, combine(getattr(self, name), getattr(other, name)))


def measure_function(body: Block, dispatch_cost: DispatchCost | None = None) -> Shape:
    """The `Shape` of one function body (module docstring), its dispatches timed by
    `dispatch_cost` (`DISPATCH` each without one)."""
    shape = Shape()
    defs = defining_ops(body)
    reach: dict[Value, float] = {}
    # The execute regions reached with a timepoint, as a bit set (bit k: the k-th execute): IREE's
    # 10k-dispatch output has 24k timepoints over 4k regions, too many for sets of positions.
    covers: dict[Value, int] = {}
    host_time, host_covers = 0.0, 0
    devices: dict[str, Device] = {}
    executed = 0  # bits of all execute regions so far
    on_device: dict[str, int] = {}  # bits of the execute regions so far on each device
    live: list[tuple[float, int]] = []  # (time, +bytes / -bytes)
    sizes: dict[Value, int] = {}
    for op in body.ops:
        waits = awaited(op)
        ready = max([host_time, *(reach.get(t, 0.0) for t in waits)])
        before = host_covers
        for t in waits:
            before |= covers.get(t, 0)
        timepoints = [r for r in op.results if isinstance(r.type, TimepointType)]
        if op.name == "stream.timepoint.await":
            shape.host_waits += 1
            host_time, host_covers = ready, before
            continue
        if op.name == "stream.cmd.execute":
            shape.regions += 1
            device = str(op.properties.get("affinity"))
            cost = region_cost(op, dispatch_cost)
            start = devices.setdefault(device, Device()).place(ready, cost)
            ready = start + cost
            # Every earlier region on another device pairs with this one; the pair may overlap
            # unless the earlier one happens before this one. (This one cannot happen before an
            # earlier one: what a region starts after was all issued before it, in one block.)
            others = executed & ~on_device.get(device, 0)
            shape.cross_pairs += others.bit_count()
            shape.overlap_pairs += (others & ~before).bit_count()
            bit = 1 << (shape.regions - 1)
            executed |= bit
            on_device[device] = on_device.get(device, 0) | bit
            before |= bit
        elif op.name in ALLOCATING:
            shape.allocations += 1
            for r in op.results:
                if isinstance(r.type, ResourceType):
                    spec = spec_of(op)
                    size_group = next((g for g in ("storage_size", "result_sizes", "result_size") if spec and g in spec._operand_index), None)
                    values = spec.operand_group(op, size_group) if spec and size_group else ()
                    known = [constant_int(v, defs) for v in values]
                    n = sum(k for k in known if k is not None)
                    sizes[r] = n
                    shape.allocated += n
                    if r.type.lifetime.value == "transient":
                        shape.slab += n
                    live.append((ready, n))
        elif op.name == "stream.resource.dealloca":
            live.append((ready, -sizes.get(op.operands[0], 0)))
        for t in timepoints:
            reach[t], covers[t] = ready, before
        if op.name in ("func.return", "util.return"):
            shape.makespan = host_time
    level = 0
    for _, delta in sorted(live, key=lambda e: (e[0], e[1])):  # frees first at equal times
        level += delta
        shape.peak = max(shape.peak, level)
    return shape


def measure(module: Module, dispatch_cost: DispatchCost | None = None) -> Shape:
    """The `Shape` of a cmd-level module: its functions run one after another (`Shape.add`)."""
    total = Shape()
    for f in functions(module):
        total.add(measure_function(f.body, dispatch_cost))
    return total


def critical_path(module: Module) -> float:
    """The longest chain of dependent work of the flow program (a lower bound on the makespan)."""
    total = 0.0
    for f in functions(module):
        depth: dict[Value, float] = {}
        best = 0.0
        for op in f.body.ops:
            d = max((depth.get(v, 0.0) for v in op.operands), default=0.0) + FLOW_COST.get(op.name, 0.0)
            for r in op.results:
                depth[r] = d
            best = max(best, d)
        total += best
    return total


def verdict(module: Module) -> str:
    report = verify_module(module)
    if report.ok:
        return "proved"
    counts: dict[str, int] = {}
    for v in report.errors:
        counts[v.cls] = counts.get(v.cls, 0) + 1
    return ", ".join(f"{c} x{n}" for c, n in sorted(counts.items())) or report.status


def compile_verified(path: Path) -> tuple[Module, Module, float]:
    source = ir.parse_module(path.read_text(), str(path.relative_to(ROOT)))
    start = time.perf_counter()
    out, records = run_pipeline(source, parse_pipeline(",".join(DEFAULT_PIPELINE)), hook=make_hook())
    seconds = time.perf_counter() - start
    # The hook raised if a pass introduced a violation; before materialize-copy-on-write the
    # in-place rules are reported but not yet binding, so only the end result must be clean.
    assert [r.name for r in records] == list(DEFAULT_PIPELINE) and all(r.report is not None for r in records)
    assert records[-1].report.ok, records[-1].report.status
    return source, out, seconds


def table() -> list[str]:
    rows = [
        "| program | compiler | regions | host waits | allocations | allocated bytes | transient bytes | peak bytes (sim) "
        "| cross-device region pairs that may overlap | makespan (sim) | critical path | verifier |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, file in PROGRAMS.items():
        source, ours, seconds = compile_verified(ROOT / "bench" / "programs" / file)
        theirs = ir.parse_module((ROOT / "tests" / "data" / "iree" / name / "10_elide_timepoints.mlir").read_text(), name)
        bound = critical_path(source)
        for who, module in (("IREE 3.13", theirs), (f"streamproof ({seconds:.2f} s verified)", ours)):
            s = measure(module)
            overlap = f"{s.overlap_pairs} of {s.cross_pairs}" if s.cross_pairs else "-"
            rows.append(
                f"| {name} | {who} | {s.regions} | {s.host_waits} | {s.allocations} | {s.allocated} | {s.slab} | {s.peak} "
                f"| {overlap} | {s.makespan:g} | {bound:g} | {verdict(module)} |"
            )
    return rows


def main() -> None:
    load = os.getloadavg()
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d')}, load average {load[0]:.1f}")
    print()
    print("\n".join(table()))


if __name__ == "__main__":
    main()

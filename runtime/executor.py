"""Running a cmd-level function: the devices, the driver and the host program.

A `Session` is one run: it owns the driver (runtime.drivers), one memory pool per device, and every
allocation made; `call` interprets a function's body op by op, in order, on the host thread
(SPEC section 3.1: host ops run in program order), by the rules of `runtime.host_ops`, following
its branches and `scf` regions (`runtime.control_flow`: a loop runs its body once per iteration,
each op's rule again, so every iteration issues its own submissions); `initialize` runs the
module's initializers first, the same way; `close`
waits for outstanding device work, reports leaks, stops the driver and releases all memory.

Placement: an op's `affinity` (or `stream.affinity`) names its device - the first device of a
`#hal.device.optimal<[...]>` set, the lowest queue of a queue mask - else the module's
`stream.affinity.default`, else `@dev0`.

Every submission signals a fresh semaphore to 1; a `!stream.timepoint` at run time is the `Fence`
of the semaphores it stands for, so `join` is a fence union and nothing relies on queue order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.control_flow import run_blocks
from runtime.gates import RunGates
from runtime.host_ops import Frame, Return
from runtime.kernels import KernelRegistry
from runtime.memory import Allocation, DevicePool
from runtime.program import prepared
from runtime.races import RaceDetector
from runtime.scheduler import Scheduler, Submission, WorkContext
from runtime.semaphore import Fence
from runtime.status import MAX_CALL_DEPTH, call_depth_exceeded
from runtime.values import InputError
from stream.dialect.abi import wait_fences
from stream.dialect.awaits import PURE_HOST_USERS, TIMELINE_USERS
from stream.ir.attributes import AffinityAttr, AnyAffinity, Attribute, OptimalAttr, PromiseAttr
from stream.ir.core import Module, Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.spec import affinity_of
from stream.ir.walk import Function, function

__all__ = ["Session", "DEFAULT_DEVICE"]

DEFAULT_DEVICE = "dev0"

class Session:
    """The devices, driver and bookkeeping of one run. `call` runs a function; `close` shuts the
    driver down, checks for leaks and releases every allocation."""

    def __init__(self, module: Module, scheduler: Scheduler, kernels: KernelRegistry, *, races: RaceDetector | None = None,
                 device_memory: int | None = None) -> None:
        self.module = module
        # What the runtime works out once per op of this module, shared by its runs.
        self.program = prepared(module)
        self._places = self.program.places
        self.sched = scheduler
        self.kernels = kernels
        self.races = races
        self.tracer = scheduler.tracer
        self.device_memory = device_memory
        self.pools: dict[str, DevicePool] = scheduler.pools
        self.allocations: list[Allocation] = []
        self.default_device = _default_device(module)
        self._default_devices = _devices(module.attributes.get("stream.affinity.default"))
        self.semaphores = 0
        # What the program wrote to parameters, (scope, key) -> [(offset, bytes)] (runtime.parameter_ops).
        self.parameters: dict[tuple[bytes, bytes], list[tuple[int, bytes]]] = {}
        self.external_signals: list[Submission] = []  # chain_external submissions (async ABI)
        self.return_location = ""  # where the function run last returned
        # Awaited timepoints the next submission also waits on (a pure await chained into the
        # timeline op that uses its result: stream.dialect.awaits); set only around one rule.
        self.extra_waits: Fence | None = None
        self.call_stack: list[str] = []  # the functions being run, outermost first
        self.globals: dict[str, Any] = {}  # util.global name -> its value in this run (runtime.host_ops)

    # -- devices and memory ----------------------------------------------------------------------
    def pool(self, device: str) -> DevicePool:
        pool = self.pools.get(device)
        if pool is None:
            pool = self.pools[device] = DevicePool(device, self.device_memory)
        return pool

    def device_of(self, op: Op) -> tuple[str, int]:
        return self._place(op)[:2]  # type: ignore[return-value]

    def _place(self, op: Op) -> tuple[str, int, str]:
        """(device, queue, location text) of an op; what the op itself says is computed once per
        op (ops are immutable) in the prepared program, so that running a module again, or a
        function with thousands of submissions, does not redo it."""
        hit = self._places.get(op)
        if hit is None:
            aff = affinity_of(op) or op.attributes.get("stream.affinity")
            hit = self._places[op] = (_placement(aff), str(op.location))
        placed = hit[0]
        if placed is None:
            return self.default_device, 0, hit[1]
        return placed[0], placed[1], hit[1]

    def location(self, op: Op) -> str:
        return self._place(op)[2]

    def devices_of(self, op: Op) -> frozenset[str] | None:
        """Every device an op may run on (all options of an `optimal` set), else the module's
        default; None when the program does not say (then any device may be meant)."""
        found = _devices(affinity_of(op) or op.attributes.get("stream.affinity"))
        return found if found is not None else self._default_devices

    def counter(self, device: str) -> None:
        if self.tracer is not None:
            self.tracer.counter(device, self.pool(device).live)

    def submit(self, op: Op, kind: str, waits: Fence, work: Callable[[WorkContext], None] | None, *, memory: int = 0,
               component: int = 0, final_local: dict[int, float] | None = None) -> tuple[Fence, Submission]:
        device, queue, location = self._place(op)
        if self.extra_waits is not None:
            waits = Fence.join((waits, self.extra_waits))
        if device not in self.pools:
            self.pool(device)
        label = f"{kind} on @{device} at {location}"
        self.semaphores += 1
        sem = self.sched.create_semaphore(0, label, external=False)
        signals = ((sem, 1),)
        fence = Fence(signals)
        sub = Submission(kind, device, queue, waits, signals, work, label, memory=memory, component=component,
                         final_local=final_local)
        self.sched.submit(sub)
        return fence, sub

    # -- running -----------------------------------------------------------------------------------
    def call(self, name: str, args: list[Any], where: str = "") -> list[Any]:
        """Run function `name` on `args`; `where` is the calling op (for a call from the program).
        The body may have several blocks and `scf` ops (runtime.control_flow); it ends at a return."""
        f = function(self.module, name)
        if f is None:
            raise DiagnosticError.at(self.module.location, f"no function @{name} in the module")
        if f.is_declaration:
            raise DiagnosticError.at(f.op.location, f"@{name} is only declared: it has no body to run")
        if len(self.call_stack) >= MAX_CALL_DEPTH:
            raise call_depth_exceeded(self.call_stack, name, where)
        # Await purity matters only to the race detector (runtime.gates).
        frame = Frame(self, f, gates=RunGates() if self.races is not None else None)
        if len(args) != len(f.arguments):
            raise InputError(f"@{name} takes {len(f.arguments)} argument(s), {len(args)} given")
        for arg, value in zip(f.arguments, args):
            frame.env[arg] = value
        if self.races is not None:  # inputs are guarded from the start, even if never awaited
            for fence in wait_fences(f):
                self.races.input_guard(fence)
        self.call_stack.append(name)
        try:
            out = run_blocks(frame, f.op.regions[0], f"@{name}", f.op.location)
        except Return as r:
            return r.values
        finally:
            self.call_stack.pop()
        raise DiagnosticError.at(out.op.location, f"@{name} ends with '{out.op.name}', not a return")

    def initialize(self) -> None:
        """Run the module's `util.initializer`s, in module order, as IREE does when it loads the
        module: on the host, on this run's devices and globals, before any function."""
        for op in self.module.ops:
            if op.name != "util.initializer" or not op.regions:
                continue
            frame = Frame(self, Function(op), gates=RunGates() if self.races is not None else None)
            what = f"the util.initializer at {op.location}"
            self.call_stack.append(what)
            try:
                out = run_blocks(frame, op.regions[0], what, op.location)
            except Return:
                continue
            finally:
                self.call_stack.pop()
            raise DiagnosticError.at(out.op.location, f"{what} ends with '{out.op.name}', not a return")

    def gated(self, frame: Frame, op: Op, rule: Callable[[Frame, Op], None], gates: RunGates) -> None:
        """Run `op` for the race detector with `stream.timepoint.await` pure (stream.dialect.awaits):
        the host blocks at every await, but the detector orders after an awaited timepoint only
        the ops using values that carry it: a timeline op (execute, alloca, dealloca) waits on it,
        a pure host op (an export) accesses on a component of its own, any other host op joins its
        clock into the host's (from there on host program order carries it)."""
        fence = gates.step(op, frame.value)
        if fence is not None and op.name in TIMELINE_USERS:
            self.extra_waits = fence
            try:
                rule(frame, op)
            finally:
                self.extra_waits = None
            return
        if fence is not None and self.races is not None and op.name in PURE_HOST_USERS:
            self.races.detach(fence)  # a pure host op: only it (and what uses its results) is ordered
            try:
                rule(frame, op)
            finally:
                self.races.reattach()
            return
        if fence is not None and self.races is not None:
            self.races.host_await(fence)
        rule(frame, op)
        if op.name == "stream.timepoint.barrier":
            carried = gates.barrier_carried(op)
            if carried is not None:  # its timepoint covers the awaits its resource comes through
                tp = op.results[-1]
                frame.env[tp] = Fence.join([_as_fence(frame.value(tp)), carried])

    def close(self, where: str, drained: Callable[[], None] | None = None) -> None:
        """Wait for outstanding work, call `drained` (while every allocation still holds its
        storage), report leaks, shut down, release all memory."""
        try:
            self.sched.drain(where)
            if drained is not None:
                drained()
        finally:
            if self.races is not None:
                for alloc in self.allocations:
                    if alloc.kind == "alloca" and alloc.state != "freed" and alloc.lifetime == "transient":
                        self.races.leak(alloc, where)
            self.sched.shutdown()
            self.release_all()

    def release_all(self) -> None:
        for alloc in self.allocations:
            if alloc.state == "live" and alloc.kind in ("alloca", "alloc", "constant"):
                self.pool(alloc.device).release(alloc.size)
            alloc.data = None
            if alloc.state != "freed":
                alloc.state = "released"
        for device in self.pools:
            self.counter(device)  # the run is over: its storage went back to the pools


def _as_fence(value: Any) -> Fence:
    return value if isinstance(value, Fence) else Fence()


def _default_device(module: Module) -> str:
    found = _placement(module.attributes.get("stream.affinity.default"))
    return found[0] if found else DEFAULT_DEVICE


def _devices(aff: Attribute | None) -> frozenset[str] | None:
    if isinstance(aff, AnyAffinity):
        devices = aff.devices()
        return frozenset(devices) if devices else None
    return None


def _placement(aff: Attribute | None) -> tuple[str, int] | None:
    """(device, queue) of an affinity attribute: the first device of an `optimal` set, the lowest
    queue of a queue mask."""
    if isinstance(aff, (AffinityAttr, PromiseAttr)):
        return aff.device, (min(aff.queues) if aff.queues else 0)
    if isinstance(aff, OptimalAttr):
        for option in aff.options:
            found = _placement(option)
            if found:
                return found
    if isinstance(aff, AnyAffinity):
        devices = aff.devices()
        if devices:
            return devices[0], 0
    return None

"""Running a cmd-level function: the host program and its device submissions.

The host interprets the function body op by op, in order (SPEC section 3.1: host ops run in program
order on one host thread). Per-op behaviour lives in `HOST_RULES`, keyed by op name:

* scalar ops (`arith.*`, `hal.element_type`, `hal.encoding_type`, `hal.buffer_view.assert`);
* the ABI: `stream.tensor.import` wraps a caller's buffer view as an external allocation (no copy;
  without `consume` the program may only read it), `stream.tensor.export` hands a resource back as a
  buffer view over the same bytes;
* timepoints: `immediate`, `join`, `await` (blocks the host), `barrier`, `import`/`export` and
  `chain_external` for the coarse-fences ABI;
* resources: queue-ordered `alloca`/`dealloca` (submissions), synchronous `alloc`, `subview`,
  `size`, `pack` (a layout in which slices with intersecting lifetimes get disjoint bytes),
  `constants` (an upload submission), `load`/`store` (host access), `retain`/`release`;
* `stream.cmd.execute`: records the command buffer (runtime.commands) and submits it.

Every submission signals a fresh semaphore to 1; a `!stream.timepoint` at run time is the `Fence`
of the semaphores it stands for, so `join` is a fence union and nothing relies on queue order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from runtime.commands import Recorder, run_commands
from runtime.kernels import KernelRegistry
from runtime.memory import Allocation, DevicePool, MemoryFault, ResourceRef, dtype_of
from runtime.races import RaceDetector
from runtime.scheduler import Scheduler, Submission, WorkContext, WorkFailure
from runtime.semaphore import Fence
from runtime.status import ExecutionError, Status, StatusCode
from runtime.values import BufferView, InputError, dense_to_numpy, element_type_code
from stream.ir.attributes import (
    AffinityAttr,
    AnyAffinity,
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseAttr,
    FloatAttr,
    IntegerAttr,
    OptimalAttr,
    PromiseAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
)
from stream.ir.core import Module, Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.spec import view
from stream.ir.types import FloatType, IntegerType, ResourceType, TensorType, Type
from stream.ir.walk import Function, function

__all__ = ["Session", "HOST_RULES", "host_value_of_constant"]

DEFAULT_DEVICE = "dev0"
PACK_ALIGNMENT = 64


class _Return(Exception):
    def __init__(self, values: list[Any]) -> None:
        self.values = values


@dataclass
class Frame:
    """One function activation: SSA values to run-time values."""

    session: Session
    function: Function
    env: dict[Value, Any] = field(default_factory=dict)

    def value(self, v: Value) -> Any:
        try:
            return self.env[v]
        except KeyError:
            raise DiagnosticError.at(self.function.op.location, f"value {v} used before it is defined at run time") from None


class Session:
    """The devices, driver and bookkeeping of one run. `call` runs a function; `close` shuts the
    driver down, checks for leaks and releases every allocation."""

    def __init__(self, module: Module, scheduler: Scheduler, kernels: KernelRegistry, *, races: RaceDetector | None = None,
                 device_memory: int | None = None) -> None:
        self.module = module
        self.sched = scheduler
        self.kernels = kernels
        self.races = races
        self.tracer = scheduler.tracer
        self.device_memory = device_memory
        self.pools: dict[str, DevicePool] = scheduler.pools
        self.allocations: list[Allocation] = []
        self.default_device = _default_device(module)
        self.semaphores = 0

    # -- devices and memory ----------------------------------------------------------------------
    def pool(self, device: str) -> DevicePool:
        pool = self.pools.get(device)
        if pool is None:
            pool = self.pools[device] = DevicePool(device, self.device_memory)
        return pool

    def device_of(self, op: Op) -> tuple[str, int]:
        aff = op.properties.get("affinity") or op.attributes.get("stream.affinity")
        return _placement(aff) or (self.default_device, 0)

    def counter(self, device: str) -> None:
        if self.tracer is not None:
            self.tracer.counter(device, self.pool(device).live)

    def new_timepoint(self, label: str) -> tuple[Fence, tuple[Any, ...]]:
        self.semaphores += 1
        sem = self.sched.create_semaphore(0, label, external=False)
        return Fence(((sem, 1),)), ((sem, 1),)

    def submit(self, op: Op, kind: str, waits: Fence, work: Callable[[WorkContext], None] | None, *, memory: int = 0,
               component: int = 0, extra: dict[str, Any] | None = None) -> tuple[Fence, Submission]:
        device, queue = self.device_of(op)
        self.pool(device)
        label = f"{kind} on @{device} at {op.location}"
        fence, signals = self.new_timepoint(label)
        sub = Submission(kind, device, queue, waits, signals, work, label, memory=memory, component=component)
        if extra:
            sub.extra.update(extra)
        self.sched.submit(sub)
        return fence, sub

    # -- running -----------------------------------------------------------------------------------
    def call(self, name: str, args: list[Any]) -> list[Any]:
        f = function(self.module, name)
        if f is None:
            raise DiagnosticError.at(self.module.location, f"no function @{name} in the module")
        frame = Frame(self, f)
        if len(args) != len(f.arguments):
            raise InputError(f"@{name} takes {len(f.arguments)} argument(s), {len(args)} given")
        for arg, value in zip(f.arguments, args):
            frame.env[arg] = value
        try:
            for op in f.body.ops:
                rule = HOST_RULES.get(op.name)
                if rule is None:
                    raise DiagnosticError.at(op.location, _unsupported(op))
                rule(frame, op)
        except _Return as r:
            return r.values
        raise DiagnosticError.at(f.op.location, f"@{name} ends without a return")

    def close(self, where: str) -> None:
        """Wait for outstanding work, report leaks, shut down, release all memory."""
        try:
            self.sched.drain(where)
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


def _unsupported(op: Op) -> str:
    level = ""
    if op.name.startswith(("flow.", "stream.tensor.", "stream.async.")):
        level = " (it belongs to an earlier level: compile the program to the cmd level first)"
    return f"'{op.name}' cannot be executed by the runtime{level}"


def _default_device(module: Module) -> str:
    found = _placement(module.attributes.get("stream.affinity.default"))
    return found[0] if found else DEFAULT_DEVICE


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


# -- scalars -----------------------------------------------------------------------------------
def host_value_of_constant(attr: Attribute, t: Type) -> Any:
    """The run-time value of an `arith.constant`."""
    if isinstance(attr, BoolAttr):
        return attr.value
    if isinstance(attr, IntegerAttr):
        return _wrap(attr.value, t) if isinstance(t, IntegerType) else attr.value
    if isinstance(attr, FloatAttr):
        return np.array(attr.value, dtype=dtype_of(attr.type))[()] if isinstance(attr.type, FloatType) else attr.value
    if isinstance(attr, DenseAttr):
        return dense_to_numpy(attr)
    raise TypeError(f"cannot evaluate constant {attr}")


def _wrap(v: int, t: Type) -> int | bool:
    """Two's-complement wrap of an integer to the width of `t` (index: unbounded)."""
    if isinstance(t, IntegerType):
        if t.width == 1:
            return bool(v & 1)
        mask = (1 << t.width) - 1
        v &= mask
        if t.signedness != "u" and v >> (t.width - 1):
            v -= 1 << t.width
    return v


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _unsigned(v: int, t: Type) -> int:
    return v & ((1 << t.width) - 1) if isinstance(t, IntegerType) else v


_INT_BINARY: dict[str, Callable[[int, int, Type], int]] = {
    "arith.addi": lambda a, b, t: a + b,
    "arith.subi": lambda a, b, t: a - b,
    "arith.muli": lambda a, b, t: a * b,
    "arith.divui": lambda a, b, t: _unsigned(a, t) // _unsigned(b, t),
    "arith.divsi": lambda a, b, t: _tdiv(a, b),
    "arith.ceildivui": lambda a, b, t: _cdiv(_unsigned(a, t), _unsigned(b, t)),
    "arith.ceildivsi": lambda a, b, t: -_tdiv(-a, b) if (a % b) else _tdiv(a, b),
    "arith.floordivsi": lambda a, b, t: a // b,
    "arith.remui": lambda a, b, t: _unsigned(a, t) % _unsigned(b, t),
    "arith.remsi": lambda a, b, t: a - _tdiv(a, b) * b,
    "arith.andi": lambda a, b, t: a & b,
    "arith.ori": lambda a, b, t: a | b,
    "arith.xori": lambda a, b, t: a ^ b,
    "arith.shli": lambda a, b, t: a << b,
    "arith.shrui": lambda a, b, t: _unsigned(a, t) >> b,
    "arith.shrsi": lambda a, b, t: a >> b,
    "arith.maxui": lambda a, b, t: max(_unsigned(a, t), _unsigned(b, t)),
    "arith.maxsi": lambda a, b, t: max(a, b),
    "arith.minui": lambda a, b, t: min(_unsigned(a, t), _unsigned(b, t)),
    "arith.minsi": lambda a, b, t: min(a, b),
}
_FLOAT_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply, "arith.divf": np.divide,
    "arith.maximumf": np.maximum, "arith.minimumf": np.minimum, "arith.maxnumf": np.fmax, "arith.minnumf": np.fmin,
}


def eval_arith(op: Op, args: list[Any]) -> Any:
    """Evaluate an arith op on run-time scalars (shared with the reference interpreter)."""
    t = op.results[0].type if op.results else None
    if op.name in _INT_BINARY:
        if any(b == 0 for b in args[1:2]) and op.name in ("arith.divui", "arith.divsi", "arith.ceildivui", "arith.ceildivsi",
                                                            "arith.floordivsi", "arith.remui", "arith.remsi"):
            raise ZeroDivisionError(f"'{op.name}' divides by zero")
        return _wrap(_INT_BINARY[op.name](int(args[0]), int(args[1]), t), t)  # type: ignore[arg-type]
    if op.name in _FLOAT_BINARY:
        return _FLOAT_BINARY[op.name](args[0], args[1])
    if op.name == "arith.select":
        return args[1] if args[0] else args[2]
    if op.name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.trunci"):
        return _wrap(int(args[0]), t) if isinstance(t, IntegerType) else int(args[0])
    if op.name == "arith.extui":
        return _wrap(_unsigned(int(args[0]), op.operands[0].type), t)  # type: ignore[arg-type]
    if op.name in ("arith.sitofp", "arith.uitofp", "arith.extf", "arith.truncf"):
        return np.array(args[0], dtype=dtype_of(t))[()]  # type: ignore[arg-type]
    if op.name in ("arith.fptosi", "arith.fptoui"):
        return _wrap(int(args[0]), t)  # type: ignore[arg-type]
    if op.name == "arith.bitcast":
        return np.array(args[0], dtype=dtype_of(op.operands[0].type)).view(dtype_of(t))[()]  # type: ignore[arg-type]
    raise DiagnosticError.at(op.location, f"'{op.name}' cannot be evaluated at run time")


ARITH_OPS = frozenset({*_INT_BINARY, *_FLOAT_BINARY, "arith.select", "arith.index_cast", "arith.index_castui", "arith.extsi",
                       "arith.trunci", "arith.extui", "arith.sitofp", "arith.uitofp", "arith.extf", "arith.truncf",
                       "arith.fptosi", "arith.fptoui", "arith.bitcast"})


# -- host rules ------------------------------------------------------------------------------------
Rule = Callable[[Frame, Op], None]
HOST_RULES: dict[str, Rule] = {}


def rule(*names: str) -> Callable[[Rule], Rule]:
    def wrap(fn: Rule) -> Rule:
        for n in names:
            HOST_RULES[n] = fn
        return fn

    return wrap


@rule("arith.constant")
def _constant(fr: Frame, op: Op) -> None:
    fr.env[op.results[0]] = host_value_of_constant(op.properties["value"], op.results[0].type)


def _arith(fr: Frame, op: Op) -> None:
    try:
        fr.env[op.results[0]] = eval_arith(op, [fr.value(v) for v in op.operands])
    except ZeroDivisionError as e:
        raise ExecutionError(Status(StatusCode.INVALID_ARGUMENT, str(e), f"{op.name} at {op.location}")) from None


for _name in ARITH_OPS:
    HOST_RULES[_name] = _arith


@rule("hal.element_type")
def _element_type(fr: Frame, op: Op) -> None:
    t = op.properties["type"]
    fr.env[op.results[0]] = element_type_code(t.type if isinstance(t, TypeAttr) else t)  # type: ignore[arg-type]


@rule("hal.encoding_type")
def _encoding_type(fr: Frame, op: Op) -> None:
    fr.env[op.results[0]] = 1  # IREE_HAL_ENCODING_TYPE_DENSE_ROW_MAJOR


@rule("hal.buffer_view.assert")
def _buffer_view_assert(fr: Frame, op: Op) -> None:
    v = view(op)
    bv = fr.value(v.buffer_view)
    msg = op.properties.get("message")
    name = msg.value if isinstance(msg, StringAttr) else "buffer view"
    if not isinstance(bv, BufferView):
        raise InputError(f"{name}: expected a tensor, got {type(bv).__name__} ({op.location})")
    shape = tuple(int(fr.value(d)) for d in v.shape)
    etype = fr.value(v.element_type)
    if bv.shape != shape or element_type_code(bv.element_type) != etype:
        want = "x".join(map(str, shape))
        raise InputError(f"{name}: expected a {want}x tensor of element type code 0x{etype:08x}, got {bv} "
                         f"(hal.buffer_view.assert at {op.location})")


@rule("hal.buffer_view.dim")
def _buffer_view_dim(fr: Frame, op: Op) -> None:
    bv = fr.value(op.operands[0])
    index = op.attr("index")
    fr.env[op.results[0]] = bv.shape[index.value if isinstance(index, IntegerAttr) else 0]


@rule("stream.tensor.import")
def _import(fr: Frame, op: Op) -> None:
    v = view(op)
    s = fr.session
    bv = fr.value(v.source)
    size = int(fr.value(v.result_size))
    if isinstance(bv, ResourceRef):
        fr.env[op.results[0]] = bv
        return
    if not isinstance(bv, BufferView):
        raise InputError(f"stream.tensor.import at {op.location} needs a tensor argument, got {type(bv).__name__}")
    data = bv.byte_view()
    if data.size != size:
        raise InputError(f"stream.tensor.import at {op.location}: the input {bv} has {data.size} bytes but the program "
                         f"imports {size} ({op.properties.get('result_encoding')})")
    device, _ = s.device_of(op)
    args = fr.function.arguments
    source = f"argument {args.index(op.operands[0])}" if op.operands[0] in args else _name(op.operands[0], "a buffer view")
    label = f"{source} (import at {op.location})"
    alloc = Allocation(size, device, "import", label, _lifetime(op.results[0].type), data=data, state="live",
                       consumed="consume" in op.properties)
    s.allocations.append(alloc)
    fr.env[op.results[0]] = ResourceRef(alloc, 0, size)


@rule("stream.tensor.export")
def _export(fr: Frame, op: Op) -> None:
    v = view(op)
    ref = _ref(fr, v.source, op)
    enc = op.properties["source_encoding"]
    t = enc.type if isinstance(enc, TypeAttr) else enc
    if not isinstance(t, TensorType):
        raise DiagnosticError.at(op.location, f"cannot export a resource as {t}")
    dims = [int(fr.value(d)) for d in v.source_encoding_dims]
    shape = tuple(d if d is not None else dims.pop(0) for d in t.shape or ())
    dtype = dtype_of(t.element)
    nbytes = dtype.itemsize * int(np.prod(shape, dtype=np.int64))
    raw = _host_access(fr, op, ref, 0, nbytes, False, f"stream.tensor.export of {ref.allocation.label}")
    fr.env[op.results[0]] = BufferView(raw.view(dtype).reshape(shape), t.element)


def _ref(fr: Frame, v: Value, op: Op) -> ResourceRef:
    r = fr.value(v)
    if not isinstance(r, ResourceRef):
        raise DiagnosticError.at(op.location, f"expected a resource at run time, got {type(r).__name__}")
    return r


def _name(v: Value, fallback: str) -> str:
    return f"%{v.name_hint}" if v.name_hint else fallback


def _named(v: Value, kind: str, op: Op) -> str:
    """A label for an allocation: "%result_0 (alloca at prog.mlir:14:5)", or "alloca at ..."."""
    return f"%{v.name_hint} ({kind} at {op.location})" if v.name_hint else f"{kind} at {op.location}"


def _lifetime(t: Type) -> str:
    return t.lifetime.value if isinstance(t, ResourceType) else ""


def _host_access(fr: Frame, op: Op, ref: ResourceRef, offset: int, length: int, write: bool, what: str) -> np.ndarray:
    s = fr.session
    if offset < 0 or offset + length > ref.length:
        raise ExecutionError(Status(StatusCode.OUT_OF_RANGE, f"OUT_OF_BOUNDS: {what} accesses [{offset}, {offset + length}) of a "
                                    f"{ref.length}-byte resource", f"{op.name} at {op.location}"))
    if s.races is not None:
        site = s.races.host_site(f"host {what}", str(op.location))
        s.races.access(ref.allocation, ref.offset + offset, ref.offset + offset + length, write, site, None)
    try:
        return ref.allocation.bytes(ref.offset + offset, length, what)
    except MemoryFault as e:
        raise ExecutionError(Status(StatusCode.DATA_LOSS, str(e), f"{op.name} at {op.location}")) from None


@rule("func.return", "util.return")
def _return(fr: Frame, op: Op) -> None:
    raise _Return([fr.value(v) for v in op.operands])


@rule("func.call", "util.call")
def _call(fr: Frame, op: Op) -> None:
    callee = op.properties["callee"]
    name = callee.root if isinstance(callee, SymbolRefAttr) else str(callee)
    results = fr.session.call(name, [fr.value(v) for v in op.operands])
    for r, value in zip(op.results, results):
        fr.env[r] = value


# -- timepoints ------------------------------------------------------------------------------------
def _fence(fr: Frame, v: Value | None) -> Fence:
    if v is None:
        return Fence()
    f = fr.value(v)
    if not isinstance(f, Fence):
        raise DiagnosticError.at(fr.function.op.location, f"expected a timepoint at run time, got {type(f).__name__}")
    return f


@rule("stream.timepoint.immediate")
def _immediate(fr: Frame, op: Op) -> None:
    fr.env[op.results[0]] = Fence()


@rule("stream.timepoint.join")
def _join(fr: Frame, op: Op) -> None:
    fr.env[op.results[0]] = Fence.join(_fence(fr, v) for v in op.operands)


@rule("stream.timepoint.await")
def _await(fr: Frame, op: Op) -> None:
    v = view(op)
    fence = _fence(fr, v.await_timepoint)
    host_wait(fr.session, fence, f"stream.timepoint.await at {op.location}")
    for r, operand in zip(op.results, v.resource_operands):
        fr.env[r] = fr.value(operand)


def host_wait(s: Session, fence: Fence, what: str) -> None:
    tracer = s.tracer
    start = tracer.now() if tracer is not None else 0.0
    s.sched.host_wait(fence, what)
    if s.races is not None:
        s.races.host_await(fence)
    if tracer is not None:
        end = tracer.now()
        track = tracer.track(None, "host")
        tracer.slice(track, "await", start, end, cat="host", args={"op": what})
        for sem, value in fence.points:
            record = sem.signal_for(value)
            if record is not None and record[2] is not None:
                tracer.flow(record[2], track, max(start, end - 0.001))


@rule("stream.timepoint.barrier")
def _barrier(fr: Frame, op: Op) -> None:
    fr.env[op.results[0]] = fr.value(op.operands[0])
    fr.env[op.results[1]] = Fence()


@rule("stream.timepoint.import")
def _tp_import(fr: Frame, op: Op) -> None:
    values = [fr.value(v) for v in op.operands]
    if len(values) == 1 and isinstance(values[0], Fence):
        fr.env[op.results[0]] = values[0]
    elif len(values) == 2 and hasattr(values[0], "reached"):
        fr.env[op.results[0]] = Fence(((values[0], int(values[1])),))
    else:
        raise InputError(f"stream.timepoint.import at {op.location} needs a fence (or a semaphore and a value)")


@rule("stream.timepoint.export")
def _tp_export(fr: Frame, op: Op) -> None:
    fence = _fence(fr, op.operands[0])
    if len(op.results) == 1:
        fr.env[op.results[0]] = fence
        return
    # (semaphore, value): one semaphore reached when the whole fence is.
    out, sub = fr.session.submit(op, "barrier", fence, None)
    (sem, value), = out.points
    fr.env[op.results[0]], fr.env[op.results[1]] = sem, value


@rule("stream.timepoint.chain_external")
def _chain_external(fr: Frame, op: Op) -> None:
    v = view(op)
    fence = _fence(fr, v.await_timepoint)
    targets = [fr.value(x) for x in v.external_values]
    s = fr.session
    points = []
    for t in targets:
        if not isinstance(t, Fence):
            raise InputError(f"stream.timepoint.chain_external at {op.location} signals fences; got {type(t).__name__}")
        points.extend(t.points)
    device, queue = s.device_of(op)
    label = f"chain_external on @{device} at {op.location}"
    s.sched.submit(Submission("barrier", device, queue, fence, tuple(points), None, label))


# -- resources ---------------------------------------------------------------------------------------
@rule("stream.resource.alloca")
def _alloca(fr: Frame, op: Op) -> None:
    v = view(op)
    s = fr.session
    size = int(fr.value(v.storage_size))
    device, _ = s.device_of(op)
    alloc = Allocation(size, device, "alloca", _named(op.results[0], "alloca", op),
                       _lifetime(op.results[0].type))
    s.allocations.append(alloc)

    def work(ctx: WorkContext) -> None:
        alloc.materialize(s.sched.poison)
        s.counter(device)

    component = s.races.new_component() if s.races is not None else 0
    fence, sub = s.submit(op, "alloca", _fence(fr, v.await_timepoint), work, memory=size, component=component)
    if s.races is not None:
        s.races.on_alloca(alloc, sub)
    fr.env[op.results[0]] = ResourceRef(alloc, 0, size)
    fr.env[op.results[1]] = fence


@rule("stream.resource.dealloca")
def _dealloca(fr: Frame, op: Op) -> None:
    v = view(op)
    s = fr.session
    ref = _ref(fr, v.operand, op)
    alloc = ref.allocation
    races = s.races
    component = races.new_component() if races is not None else 0
    site = None
    if races is not None:
        from runtime.races import AccessSite

        site = AccessSite(f"stream.resource.dealloca of {alloc.label}", str(op.location), component, None, (races.next_seq(), 0), 0)
        if alloc.kind in ("import", "constant"):
            races.double_free(alloc, site, f"{alloc.label} is not a queue-ordered allocation of this program and must not be freed")
        elif alloc.deallocas:
            races.double_free(alloc, site, f"{alloc.label} is deallocated a second time")
    alloc.deallocas += 1
    label = f"dealloca on @{s.device_of(op)[0]} at {op.location}"

    def work(ctx: WorkContext) -> None:
        if races is not None and site is not None:
            races.on_dealloca(alloc, site, ctx.submission.start_clock)
        if alloc.kind != "alloca" and alloc.kind != "alloc":
            return  # not pool storage: IREE treats the dealloca as a barrier
        if alloc.state == "freed":
            raise WorkFailure(Status(StatusCode.FAILED_PRECONDITION, f"DOUBLE_FREE: {alloc.label} was already freed by {alloc.freed_by}", label))
        if alloc.state == "live":
            s.pool(alloc.device).release(alloc.size)
        alloc.data = None
        alloc.state = "freed"
        alloc.freed_by = label
        s.counter(alloc.device)
        with s.sched.lock:
            s.sched.retry_parked()

    fence, _ = s.submit(op, "dealloca", _fence(fr, v.await_timepoint), work, component=component)
    fr.env[op.results[0]] = fence


@rule("stream.resource.alloc")
def _alloc(fr: Frame, op: Op) -> None:
    s = fr.session
    size = int(fr.value(op.operands[0]))
    device, _ = s.device_of(op)
    pool = s.pool(device)
    if not pool.reserve(size):
        raise ExecutionError(Status(StatusCode.RESOURCE_EXHAUSTED, f"@{device} has {pool.live} of {pool.capacity} bytes in use; "
                                    f"cannot allocate {size} more", f"stream.resource.alloc at {op.location}"))
    alloc = Allocation(size, device, "alloc", _named(op.results[0], "alloc", op),
                       _lifetime(op.results[0].type))
    alloc.materialize(s.sched.poison)
    s.allocations.append(alloc)
    s.counter(device)
    fr.env[op.results[0]] = ResourceRef(alloc, 0, size)


@rule("stream.resource.subview")
def _subview(fr: Frame, op: Op) -> None:
    v = view(op)
    ref = _ref(fr, v.source, op)
    try:
        fr.env[op.results[0]] = ref.subview(int(fr.value(v.source_offset)), int(fr.value(v.result_size)))
    except MemoryFault as e:
        raise ExecutionError(Status(StatusCode.OUT_OF_RANGE, f"OUT_OF_BOUNDS: {e}", f"stream.resource.subview at {op.location}")) from None


@rule("stream.resource.size")
def _size(fr: Frame, op: Op) -> None:
    fr.env[op.results[0]] = _ref(fr, op.operands[0], op).length


@rule("stream.resource.load")
def _load(fr: Frame, op: Op) -> None:
    v = view(op)
    ref = _ref(fr, v.source, op)
    dtype = dtype_of(op.results[0].type)
    raw = _host_access(fr, op, ref, int(fr.value(v.source_offset)), dtype.itemsize, False, f"stream.resource.load of {ref.allocation.label}")
    fr.env[op.results[0]] = raw.view(dtype)[0].item()


@rule("stream.resource.store")
def _store(fr: Frame, op: Op) -> None:
    v = view(op)
    ref = _ref(fr, v.target, op)
    dtype = dtype_of(v.value.type)
    raw = _host_access(fr, op, ref, int(fr.value(v.target_offset)), dtype.itemsize, True, f"stream.resource.store to {ref.allocation.label}")
    raw.view(dtype)[0] = fr.value(v.value)


@rule("stream.resource.retain")
def _retain(fr: Frame, op: Op) -> None:
    _ref(fr, op.operands[0], op).allocation.refcount += 1


@rule("stream.resource.release")
def _release(fr: Frame, op: Op) -> None:
    alloc = _ref(fr, op.operands[0], op).allocation
    alloc.refcount -= 1
    fr.env[op.results[0]] = alloc.refcount <= 0


@rule("stream.resource.is_terminal")
def _is_terminal(fr: Frame, op: Op) -> None:
    fr.env[op.results[0]] = _ref(fr, op.operands[0], op).allocation.refcount <= 1


@rule("stream.resource.pack")
def _pack(fr: Frame, op: Op) -> None:
    v = view(op)
    sizes = [int(fr.value(x)) for x in v.dynamic_slice_sizes]
    bounds = op.properties["lifetime_intervals"]
    flat = [e.value for e in bounds.elements] if isinstance(bounds, ArrayAttr) else []  # type: ignore[attr-defined]
    intervals = [(flat[2 * i], flat[2 * i + 1]) for i in range(len(sizes))]
    base = int(fr.value(v.offset)) if v.offset is not None else 0
    total, offsets = pack_slices(sizes, intervals)
    fr.env[op.results[0]] = base + total
    for r, off in zip(op.results[1:], offsets):
        fr.env[r] = base + off


def pack_slices(sizes: list[int], intervals: list[tuple[int, int]], alignment: int = PACK_ALIGNMENT) -> tuple[int, list[int]]:
    """Offsets for slices with inclusive lifetime intervals: slices whose intervals intersect get
    disjoint byte ranges; others may share bytes. Greedy: largest slice first, each at the lowest
    aligned offset that clears every already-placed slice it is live with. Returns (total, offsets)."""
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    placed: list[tuple[int, int, int]] = []  # (offset, end, index)
    offsets = [0] * len(sizes)
    for i in order:
        lo, hi = intervals[i]
        live = sorted((o, e) for o, e, j in placed if intervals[j][0] <= hi and lo <= intervals[j][1])
        offset = 0
        for o, e in live:
            if offset + sizes[i] <= o:
                break
            offset = max(offset, _align(e, alignment))
        offsets[i] = offset
        placed.append((offset, offset + sizes[i], i))
    total = _align(max((e for _, e, _ in placed), default=0), alignment)
    return total, offsets


def _align(n: int, a: int) -> int:
    return -(-n // a) * a


@rule("stream.resource.constants")
def _constants(fr: Frame, op: Op) -> None:
    v = view(op)
    s = fr.session
    values = op.properties["values"]
    attrs = values.elements if isinstance(values, ArrayAttr) else ()
    sizes = [int(fr.value(x)) for x in v.result_sizes]
    device, _ = s.device_of(op)
    allocs: list[Allocation] = []
    blobs: list[bytes] = []
    for i, (r, size) in enumerate(zip(v.results, sizes)):
        attr = attrs[i] if i < len(attrs) else None
        if not isinstance(attr, DenseAttr):
            raise DiagnosticError.at(op.location, f"constant {i} is not a dense<...> value the runtime can upload ({attr})")
        blob = dense_to_numpy(attr).tobytes()
        if len(blob) > size:
            raise DiagnosticError.at(op.location, f"constant {i} has {len(blob)} bytes but its resource only {size}")
        alloc = Allocation(size, device, "constant", f"constant {i} (constants at {op.location})", _lifetime(r.type))
        s.allocations.append(alloc)
        allocs.append(alloc)
        blobs.append(blob)
        fr.env[r] = ResourceRef(alloc, 0, size)

    def work(ctx: WorkContext) -> None:
        for alloc, blob in zip(allocs, blobs):
            alloc.materialize(s.sched.poison)
            assert alloc.data is not None
            alloc.data[: len(blob)] = np.frombuffer(blob, dtype=np.uint8)
        s.counter(device)

    component = s.races.new_component() if s.races is not None else 0
    fence, sub = s.submit(op, "constants", Fence(), work, memory=sum(sizes), component=component)
    if s.races is not None:
        for alloc in allocs:
            s.races.on_alloca(alloc, sub)
    fr.env[v.result_timepoint] = fence


@rule("stream.cmd.execute")
def _execute(fr: Frame, op: Op) -> None:
    v = view(op)
    s = fr.session
    body = op.regions[0].blocks[0]
    captures: dict[Value, Any] = {}
    for arg, operand in zip(body.arguments, v.resource_operands):
        captures[arg] = _ref(fr, operand, op)

    def value(x: Value) -> Any:
        return captures[x] if x in captures else fr.value(x)

    device, _ = s.device_of(op)
    races = s.races
    component = races.new_component() if races is not None else 0
    index = races.next_seq() if races is not None else 0
    tracer = s.tracer
    start = tracer.now() if tracer is not None else 0.0
    recorder = Recorder(value, s.kernels, device, f"execute at {op.location}", races, component, index)
    commands = recorder.record_block(body.ops, component)
    if tracer is not None:
        tracer.slice(tracer.track(None, "host"), "record execute", start, tracer.now(), cat="host", args={"op": str(op.location)})
    fence, _ = s.submit(op, "execute", _fence(fr, v.await_timepoint), lambda ctx: run_commands(commands, ctx),
                        component=component, extra={"final_local": recorder.local if races is not None else None})
    fr.env[v.result_timepoint] = fence

"""The Python entry points: `run_module` (execute a cmd-level function) and `run_reference`.

    from runtime import run_module
    result = run_module(module, [x, w], function="mlp", driver="task", check_races=True)
    result.results        # numpy arrays (and Python scalars), one per function result
    result.findings       # race/lifetime findings (with check_races=True)
    result.stats          # submissions, peak bytes per device, wall time

    # Several calls in one run (one loaded module): globals carry state from call to call.
    result = run_module(module, calls=[[x0, 0], [x1, 1]], function="step", check_races=True)
    result.calls          # the results of each call, in order (result.results is the last)

Inputs follow the function's ABI (docs/CONVENTIONS.md): a `!hal.buffer_view` argument takes a
numpy array (copied, so the caller's array is never written), an `index`/integer/float argument a
Python number, a `!hal.fence` argument a `Fence` (or None: an immediate wait fence, or a fresh
signal fence when the program signals it with `stream.timepoint.chain_external`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from runtime.drivers import make_driver
from runtime.executor import Session
from runtime.kernels import DEFAULT_REGISTRY, KernelRegistry
from runtime.memory import Allocation, ResourceRef, dtype_of
from runtime.program import prepared, program_level
from runtime.races import Finding, RaceDetector
from runtime.reference import run_reference, run_reference_calls
from runtime.scheduler import Scheduler
from runtime.semaphore import Fence
from runtime.trace import Tracer
from runtime.values import DEFAULT_MAX_INPUT_BYTES, BufferView, InputError, check_holdable, check_size, ir_element_type
from stream.ir.core import Module
from stream.ir.diagnostics import DiagnosticError
from stream.ir.gc_pause import paused_gc
from stream.ir.types import FloatType, IndexType, IntegerType, OpaqueType, ResourceType, TensorType
from stream.ir.walk import Function, constant_int, defining_ops, functions

__all__ = ["run_module", "run_reference", "run_reference_calls", "RunResult", "RunStats", "select_function", "random_inputs", "argument_types",
           "program_level"]


@dataclass
class RunStats:
    driver: str
    submissions: int = 0
    seconds: float = 0.0
    peak_bytes: dict[str, int] = field(default_factory=dict)
    allocations: dict[str, int] = field(default_factory=dict)


@dataclass
class RunResult:
    function: str
    results: list[Any]
    findings: list[Finding]
    stats: RunStats
    tracer: Tracer | None = None
    result_types: list[Any] = field(default_factory=list)  # the function's declared result types
    calls: list[list[Any]] = field(default_factory=list)  # every call's results, in order (the last is `results`)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def select_function(module: Module, name: str | None) -> Function:
    """The function to run: `name`, or the only public function."""
    fns = functions(module)
    if name is not None:
        name = name.lstrip("@")
        for f in fns:
            if f.name == name:
                return f
        known = ", ".join("@" + f.name for f in fns) or "none"
        raise DiagnosticError.at(module.location, f"no function @{name} in the module (functions: {known})")
    public = [f for f in fns if getattr(f.op.properties.get("sym_visibility"), "value", "public") == "public"]
    if len(public) == 1:
        return public[0]
    names = ", ".join("@" + f.name for f in (public or fns)) or "none"
    raise DiagnosticError.at(module.location, f"the module has {len(public)} public functions ({names}); choose one with --function")


def run_module(
    module: Module,
    inputs: list[Any] | None = None,
    *,
    function: str | None = None,
    driver: str | Scheduler = "task",
    seed: int = 0,
    check_races: bool = False,
    trace: bool | str | Path | Tracer = False,
    kernels: KernelRegistry | None = None,
    device_memory: int | None = None,
    poison: bool = True,
    calls: list[list[Any]] | None = None,
    **driver_options: Any,
) -> RunResult:
    """Run a cmd-level function (the output of `streamproof compile`, or an IREE stage-07..10 dump)
    on `inputs` with the given driver: a name ('sync', 'task', 'chaos'), or a driver made with
    `make_driver` whose semaphores the caller used for `!hal.fence` arguments (the run shuts it
    down when it ends). Raises ExecutionError when the program fails while running,
    DeadlockError when it cannot make progress, InputError for inputs that do not fit, and
    DiagnosticError for programs the runtime cannot execute. The module's `util.initializer`s run
    first, in the same run; host control flow (blocks, branches, `scf`) runs as
    `runtime.control_flow` says. With `calls` (a list of input lists, instead of `inputs`) the
    function is called once per list, in order, in one run: the initializers run once and the
    module's globals keep what one call stored for the next (a stateful program: a KV cache in a
    `util.global`); nothing waits for the device between calls beyond what the program itself
    waits for, and `--check-races` checks each call's completion when it returns."""
    if calls is not None and inputs is not None:
        raise ValueError("run_module takes `inputs` or `calls`, not both")
    if calls is not None and not calls:
        raise ValueError("run_module: `calls` is empty")
    f = select_function(module, function)
    program = prepared(module)
    level = program.level(f)
    if level not in ("cmd", None):
        raise DiagnosticError.at(f.op.location, f"@{f.name} is at the {level} level; the executor runs cmd-level programs. Compile it "
                               "first (`streamproof run` does that for input files) or run it with runtime.run_reference")
    if f.name not in program.holdable:  # a walk of every function it calls: once per module
        check_holdable(module, f.name)
        program.holdable.add(f.name)
    tracer = trace if isinstance(trace, Tracer) else (Tracer() if trace else None)
    races = RaceDetector() if check_races else None
    if isinstance(driver, Scheduler):
        sched = driver
        sched.tracer, sched.races = tracer, races
    else:
        sched = make_driver(driver, seed=seed, tracer=tracer, races=races, **driver_options)
    sched.poison = poison
    session = Session(module, sched, kernels if kernels is not None else DEFAULT_REGISTRY, races=races,
                      device_memory=device_memory)
    every_args = [_arguments(f, list(a), session) for a in (calls if calls is not None else [list(inputs or [])])]
    start = time.perf_counter()
    results: list[Any] = []
    earlier: list[list[Any]] = []
    checked: set[int] = set()  # allocations whose completion an earlier call's return checked
    try:
        # A run allocates thousands of short-lived objects (commands, views, submissions,
        # semaphores) that reference counting frees; collections would walk the whole module.
        with paused_gc():
            session.initialize()  # the module's util.initializers, before the function (as IREE loads a module)
            for args in every_args[:-1]:
                raw = session.call(f.name, args)
                observer = dict(races.host_clock) if races is not None else None
                if session.program.async_abi(f):
                    session.sched.drain(f"the return of @{f.name}")  # its results are read once its fences are reached
                earlier.append([_result(r) for r in raw])  # the caller reads them when the call returns
                if races is not None and observer is not None:
                    _completion(session, races, f, observer, checked)
            raw = session.call(f.name, every_args[-1])
            observer = dict(races.host_clock) if races is not None else None

            def drained() -> None:
                # Results are copied out before the run releases its memory.
                results.extend(_result(r) for r in raw)
                if races is not None and observer is not None:
                    _completion(session, races, f, observer, checked)

            session.close(f"the end of @{f.name}", drained)
    except BaseException as e:
        _abort(session)
        if races is not None:
            e.findings = list(races.findings)  # type: ignore[attr-defined]  # what --check-races saw before the failure
        raise
    seconds = time.perf_counter() - start
    stats = RunStats(sched.name, sched.all_submissions, seconds,
                     {d: p.peak for d, p in session.pools.items()}, {d: p.allocations for d, p in session.pools.items()})
    if isinstance(trace, (str, Path)) and tracer is not None:
        tracer.write(trace)
    return RunResult(f.name, results, list(races.findings) if races is not None else [], stats, tracer, list(f.type.results),
                     [*earlier, results])


def _completion(session: Session, races: RaceDetector, f: Function, host_at_return: dict[int, float], checked: set[int]) -> None:
    """The caller's view: its own storage (imports, resource arguments) and what it got back
    (exports, returned resources) must be finished when it may look - at the return with the
    synchronous ABI, at a signalled fence with the async ABI (runtime.races.completion). Each
    allocation is checked once, at the return of the call that made it visible (`checked`)."""
    visible = [a for a in session.allocations if (a.kind == "import" or a.escaped) and id(a) not in checked]
    checked.update(id(a) for a in visible)
    if not visible:
        return
    if session.program.async_abi(f):
        subs = session.external_signals
        observers = [s.start_clock for s in subs if s.start_clock is not None]
        where = subs[-1].label if subs else f"@{f.name}"
        races.completion(visible, observers, f"once the fences chained at {where} are signalled",
                         where.rsplit(" at ", 1)[-1])
    else:
        location = session.return_location or str(f.op.location)
        races.completion(visible, [host_at_return], f"when @{f.name} returns at {location}", location)


def _abort(session: Session) -> None:
    """After an error: let running work finish, stop the workers, free every allocation."""
    sched = session.sched
    deadline = time.monotonic() + 30.0
    with sched.lock:
        while sched.inflight and time.monotonic() < deadline:
            sched.changed.wait(0.05)
    sched.shutdown()
    session.release_all()


def _arguments(f: Function, inputs: list[Any], session: Session) -> list[Any]:
    types = f.type.inputs
    if len(inputs) != len(types):
        raise InputError(f"@{f.name} takes {len(types)} argument(s) ({', '.join(map(str, types))}), {len(inputs)} given")
    used_as_signal = _signal_fences(f)
    out: list[Any] = []
    for i, (t, value) in enumerate(zip(types, inputs)):
        arg = f.arguments[i]
        if isinstance(t, OpaqueType) and t.text == "!hal.buffer_view":
            if isinstance(value, BufferView):
                value = value.array
            if not isinstance(value, np.ndarray):
                if isinstance(value, (int, float, bool, np.generic)):
                    value = np.asarray(value)
                else:
                    raise InputError(f"argument {i} of @{f.name} is a tensor (!hal.buffer_view); got {type(value).__name__}")
            arr = np.array(value, copy=True, order="C")
            out.append(BufferView(arr, ir_element_type(arr.dtype)))
        elif isinstance(t, OpaqueType) and t.text == "!hal.fence":
            if value is None:
                if arg in used_as_signal:
                    sem = session.sched.create_semaphore(0, f"signal fence of argument {i}", external=True)
                    value = Fence(((sem, 1),))
                else:
                    value = Fence()
            if not isinstance(value, Fence):
                raise InputError(f"argument {i} of @{f.name} is a !hal.fence; got {type(value).__name__}")
            out.append(value)
        elif isinstance(t, (IndexType, IntegerType, FloatType)):
            out.append(_scalar_argument(f, i, t, value))
        elif isinstance(t, ResourceType):
            arr = np.ascontiguousarray(np.array(value, copy=True))
            data = arr.reshape(-1).view(np.uint8)
            alloc = Allocation(data.size, session.default_device, "import", f"argument {i} of @{f.name}", t.lifetime.value,
                               data=data, state="live", consumed=True)
            session.allocations.append(alloc)
            out.append(ResourceRef(alloc, 0, data.size))
        else:
            out.append(value)
    return out


def _scalar_argument(f: Function, i: int, t: Any, value: Any) -> int | float | bool:
    """A scalar argument: a number (or a 0-d array) that fits `t`, else InputError."""
    if isinstance(value, BufferView):
        value = value.array
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise InputError(f"argument {i} of @{f.name} is a scalar {t}; got a {'x'.join(map(str, value.shape))}x{_type_name(value.dtype)} tensor")
        value = value.item()
    elif isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, (int, float, bool)):
        raise InputError(f"argument {i} of @{f.name} is a scalar {t}; got {type(value).__name__}")
    if isinstance(t, FloatType):
        return float(value)
    if isinstance(value, float) and not value.is_integer():
        raise InputError(f"argument {i} of @{f.name} is {t}; got {value}")
    if isinstance(t, IntegerType) and t.width == 1:
        if value not in (0, 1):
            raise InputError(f"argument {i} of @{f.name} is i1; got {value} (0, 1, true or false)")
        return bool(value)
    info = np.iinfo(dtype_of(t))
    if not info.min <= int(value) <= info.max:
        raise InputError(f"argument {i} of @{f.name} is {t}; {int(value)} is out of range [{info.min}, {info.max}]")
    return int(value)


def _type_name(dtype: np.dtype) -> str:
    try:
        return str(ir_element_type(dtype))
    except InputError:
        return str(dtype)


def _signal_fences(f: Function) -> set[Any]:
    return {v for op in f.op.walk() if op.name == "stream.timepoint.chain_external" for v in op.operands[1:]}


def _result(value: Any) -> Any:
    if isinstance(value, BufferView):
        return np.array(value.array, copy=True)
    if isinstance(value, ResourceRef):
        data = value.allocation.data
        return None if data is None else np.array(data[value.offset : value.offset + value.length], copy=True)
    return value


def argument_types(module: Module, function: str | None = None) -> list[Any]:
    """What each argument of a function expects: a TensorType with a concrete shape for tensors
    (from the function type at the input level, from the `stream.tensor.import` of the buffer view
    at the cmd level), else the scalar type. Raises InputError when a shape depends on run-time
    values (dynamic dims), which only explicit inputs can provide."""
    f = select_function(module, function)
    defs = defining_ops(f.body)
    imports = {op.operands[0]: op for op in f.op.walk() if op.name == "stream.tensor.import"}
    out: list[Any] = []
    for i, (arg, t) in enumerate(zip(f.arguments, f.type.inputs)):
        if isinstance(t, OpaqueType) and t.text == "!hal.buffer_view":
            imp = imports.get(arg)
            enc = imp.properties.get("result_encoding") if imp is not None else None
            tt = getattr(enc, "type", None)
            if imp is None or not isinstance(tt, TensorType):
                raise InputError(f"cannot tell the shape of argument {i} of @{f.name} (no stream.tensor.import of it); pass --input")
            dims = [constant_int(d, defs) for d in imp.operands[1 : 1 + tt.dynamic_dims]]
            if any(d is None for d in dims):
                raise InputError(f"argument {i} of @{f.name} has a dynamic shape ({tt}); pass --input")
            it = iter(dims)
            out.append(TensorType(tuple(d if d is not None else next(it) for d in tt.shape or ()), tt.element))
        elif isinstance(t, TensorType):
            if not t.is_static:
                raise InputError(f"argument {i} of @{f.name} has a dynamic shape ({t}); pass --input")
            out.append(t)
        else:
            out.append(t)
    return out


def random_inputs(module: Module, function: str | None = None, seed: int = 0,
                  max_bytes: int | None = DEFAULT_MAX_INPUT_BYTES) -> list[Any]:
    """Random inputs for a function: standard-normal floats, small integers, random booleans,
    drawn directly in each argument's element type (a 1 GiB f16 tensor costs 1 GiB, not 4 of
    float64). Refused (InputError) before anything is drawn when they need more than `max_bytes`
    in all. Index and other scalar arguments cannot be guessed (they usually are sizes): InputError."""
    if seed < 0:
        raise InputError(f"the seed must be >= 0, not {seed}")
    rng = np.random.default_rng(seed)
    f = select_function(module, function)
    plan: list[tuple[tuple[int, ...], np.dtype] | None] = []
    for i, t in enumerate(argument_types(module, function)):
        if isinstance(t, TensorType):
            plan.append((tuple(d for d in t.shape or () if d is not None), dtype_of(t.element)))
        elif isinstance(t, OpaqueType) and t.text == "!hal.fence":
            plan.append(None)
        else:
            raise InputError(f"argument {i} of @{f.name} is {t}, which cannot be generated at random; pass --input for every argument")
    sizes = [math.prod(p[0]) * p[1].itemsize for p in plan if p is not None]
    check_size(f"the random inputs of @{f.name} ({len(sizes)} tensor(s))", sum(sizes), max_bytes, ", or pass --input")
    return [None if p is None else _draw(rng, *p) for p in plan]


_CHUNK = 1 << 20  # elements drawn at a time when the target type is not one numpy draws in directly


def _draw(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    out = np.empty(shape, dtype=dtype)
    flat = out.reshape(-1)
    if dtype.kind == "b":
        flat[...] = rng.integers(0, 2, flat.size, dtype=np.bool_)
    elif dtype.kind == "u":
        flat[...] = rng.integers(0, 8, flat.size, dtype=dtype)
    elif dtype.kind == "i":
        flat[...] = rng.integers(-4, 5, flat.size, dtype=dtype)
    elif dtype in (np.dtype(np.float32), np.dtype(np.float64)):
        rng.standard_normal(flat.size, dtype=dtype, out=flat)
    else:  # f16, complex, ...: float32 draws a chunk at a time, so the peak stays near the result's size
        parts = 2 if dtype.kind == "c" else 1
        for start in range(0, flat.size, _CHUNK):
            n = min(_CHUNK, flat.size - start)
            draws = rng.standard_normal((n, parts), dtype=np.float32)
            flat[start:start + n] = draws[:, 0] if parts == 1 else draws[:, 0] + 1j * draws[:, 1]
    return out

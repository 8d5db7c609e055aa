"""The host side of a cmd-level program: one rule per op, in `HOST_RULES` (keyed by op name).

* scalar ops: `arith.*` and the comparisons (runtime.scalars), `hal.element_type`,
  `hal.encoding_type`, `hal.buffer_view.assert`, `hal.buffer_view.dim`;
* control flow: the `scf` region ops (runtime.control_flow's `REGION_RULES`); branches and
  `scf.yield` are terminators the block runner follows (`TRANSFER_RULES`), not host rules;
* the ABI: `stream.tensor.import` wraps a caller's buffer view as an external allocation (no copy;
  without `consume` the program may only read it), `stream.tensor.export` hands a resource back as a
  buffer view over the same bytes. With the synchronous ABI an export and a returned resource are
  host reads (the producer must be awaited); with the async ABI (the function signals fences with
  `chain_external`) they are hand-offs the caller reads once the fences are signalled;
* timepoints: `immediate`, `join`, `await` (blocks the host; for the race detector a pure op,
  `runtime.executor.Session.gated`), `barrier`, `import`/`export` and
  `chain_external` for the coarse-fences ABI;
* resources: `stream.resource.*`, in runtime.resource_ops;
* globals: `util.global.load` / `util.global.store` read and write the run's globals
  (`Session.globals`, set by the module's initializers, which run before the function); a global
  never stored reads its `initial_value`; one without is refused when it is loaded (exit 2);
* `stream.cmd.execute`: records the command buffer (runtime.commands) and submits it.

A rule reads its operands from the `Frame` and binds its results there; device work goes through
`Session.submit` (runtime.executor).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from runtime.commands import Recorder, run_commands
from runtime.control_flow import REGION_RULES
from runtime.frame import HOST_RULES, Frame, rule
from runtime.frame import fence as _fence
from runtime.frame import host_access as _host_access
from runtime.frame import lifetime as _lifetime
from runtime.frame import name as _name
from runtime.frame import ref as _ref
from runtime.memory import Allocation, ResourceRef, dtype_of
from runtime.parameter_ops import parameter_bytes  # noqa: F401  (its parameter rules are in HOST_RULES too)
from runtime.resource_ops import pack_slices  # its stream.resource.* rules are in HOST_RULES too
from runtime.scalars import ARITH_OPS, COMPARE_OPS, eval_arith, eval_compare, host_value_of_constant
from runtime.scheduler import Submission
from runtime.semaphore import Fence, TimelineSemaphore
from runtime.status import ExecutionError, Status, StatusCode
from runtime.values import BufferView, InputError, element_type_code
from stream.dialect.abi import wait_fences
from stream.dialect.awaits import is_sync_await
from stream.ir.attributes import IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr
from stream.ir.core import Module, Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.spec import view
from stream.ir.types import TensorType

if TYPE_CHECKING:
    from runtime.executor import Session

__all__ = ["HOST_RULES", "Frame", "Return", "host_wait", "pack_slices"]

class Return(Exception):
    """Raised by a return op to end the function with its values."""

    def __init__(self, values: list[Any]) -> None:
        self.values = values




# -- host rules ------------------------------------------------------------------------------------
@rule("arith.constant")
def _constant(fr: Frame, op: Op) -> None:
    constants = fr.session.program.constants
    if op in constants:
        fr.env[op.results[0]] = constants[op]
        return
    value = host_value_of_constant(op.properties["value"], op.results[0].type)
    if not isinstance(value, np.ndarray):  # scalars are immutable: one per op, for every run
        constants[op] = value
    fr.env[op.results[0]] = value


def _arith(fr: Frame, op: Op) -> None:
    try:
        fr.env[op.results[0]] = eval_arith(op, [fr.value(v) for v in op.operands])
    except ZeroDivisionError as e:
        raise ExecutionError(Status(StatusCode.INVALID_ARGUMENT, str(e), f"{op.name} at {op.location}")) from None


for _arith_name in sorted(ARITH_OPS):
    HOST_RULES.add(_arith_name, _arith)


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


# -- runtime checks and facts (the verifier's verify.int_facts) -----------------------------------
def _compare(fr: Frame, op: Op) -> None:
    fr.env[op.results[0]] = eval_compare(op, [fr.value(v) for v in op.operands])


for _compare_name in sorted(COMPARE_OPS):
    HOST_RULES.add(_compare_name, _compare)

# Structured control flow: the same rules as the reference interpreter's (a Frame is their Machine).
for _region_name, _region_rule in sorted(REGION_RULES.items()):
    HOST_RULES.add(_region_name, _region_rule)


@rule("cf.assert")
def _cf_assert(fr: Frame, op: Op) -> None:
    if not fr.value(op.operands[0]):
        msg = op.properties.get("msg")
        text = msg.value if isinstance(msg, StringAttr) else "assertion failed"
        raise ExecutionError(Status(StatusCode.FAILED_PRECONDITION, text, f"cf.assert at {op.location}"))


@rule("util.align")
def _align(fr: Frame, op: Op) -> None:
    value, alignment = (int(fr.value(v)) for v in op.operands)
    fr.env[op.results[0]] = (value + alignment - 1) & ~(alignment - 1)


@rule("util.assume.int")
def _assume_int(fr: Frame, op: Op) -> None:
    # The program's promise about its values: nothing to do (a broken promise is undefined).
    for r, v in zip(op.results, op.operands):
        fr.env[r] = fr.value(v)


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
                       consumed="consume" in op.properties, placement=s.devices_of(op))
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
    what = f"stream.tensor.export of {ref.allocation.label}"
    ref.allocation.escaped = True
    # With the async ABI the caller reads the buffer once the signalled fences are reached; the
    # completion check (runtime.races) makes sure they cover its producers.
    raw = _host_access(fr, op, ref, 0, nbytes, False, what, check=not fr.session.program.async_abi(fr.function))
    fr.env[op.results[0]] = BufferView(raw.view(dtype).reshape(shape), t.element)


@rule("func.return", "util.return")
def _return(fr: Frame, op: Op) -> None:
    values = [fr.value(v) for v in op.operands]
    fr.session.return_location = str(op.location)
    sync = not fr.session.program.async_abi(fr.function)
    for value in values:
        if isinstance(value, ResourceRef):
            value.allocation.escaped = True
            if sync and fr.session.races is not None:  # the caller reads it as soon as the call returns
                _host_access(fr, op, value, 0, value.length, False, f"return of {value.allocation.label}")
    raise Return(values)


@rule("func.call", "util.call")
def _call(fr: Frame, op: Op) -> None:
    callee = op.properties["callee"]
    name = callee.root if isinstance(callee, SymbolRefAttr) else str(callee)
    results = fr.session.call(name, [fr.value(v) for v in op.operands], f"{op.name} @{name} at {op.location}")
    for r, value in zip(op.results, results):
        fr.env[r] = value


# -- globals ---------------------------------------------------------------------------------------
@rule("util.global.load")
def _global_load(fr: Frame, op: Op) -> None:
    s = fr.session
    name = global_name(op)
    if name not in s.globals:
        s.globals[name] = global_initial_value(fr.session.module, op, name)
    fr.env[op.results[0]] = s.globals[name]


@rule("util.global.store")
def _global_store(fr: Frame, op: Op) -> None:
    fr.session.globals[global_name(op)] = fr.value(op.operands[0])


def global_name(op: Op) -> str:
    """The symbol a `util.global.load`/`store` names (also for the reference interpreter)."""
    sym = op.properties.get("global")
    if not isinstance(sym, SymbolRefAttr):
        raise DiagnosticError.at(op.location, f"'{op.name}' needs a global symbol")
    return sym.root


def global_initial_value(module: Module, op: Op, name: str) -> Any:
    """What a global holds before anything stores it: its `initial_value` (a scalar as the host
    value of that constant, any other attribute - a device - as itself); none is a failure.
    Shared with the reference interpreter."""
    g = module.lookup(name)
    if g is None or g.name != "util.global":
        raise DiagnosticError.at(op.location, f"'{op.name}' of @{name}, which is not a util.global of the module")
    attr = g.properties.get("initial_value")
    if attr is None:  # set outside the module, as far as the runtime knows: it cannot make one up
        raise DiagnosticError.at(op.location, f"'{op.name}' of @{name}, which holds no value: it has no initial value and "
                                 "nothing (an initializer, an earlier store) stored one, so the runtime cannot run it")
    t = g.properties.get("type")
    try:
        return host_value_of_constant(attr, t.type if isinstance(t, TypeAttr) else op.results[0].type)
    except (TypeError, InputError):
        return attr


@rule("util.optimization_barrier")
def _optimization_barrier(fr: Frame, op: Op) -> None:
    for r, v in zip(op.results, op.operands):
        fr.env[r] = fr.value(v)


# -- timepoints ------------------------------------------------------------------------------------
@rule("stream.timepoint.immediate")
def _immediate(fr: Frame, op: Op) -> None:
    fr.env[op.results[0]] = Fence()


@rule("stream.timepoint.join")
def _join(fr: Frame, op: Op) -> None:
    fr.env[op.results[0]] = Fence.join([_fence(fr, v) for v in op.operands])


@rule("stream.timepoint.await")
def _await(fr: Frame, op: Op) -> None:
    fence = _fence(fr, fr.session.program.group(op, "await_timepoint"))
    # The host blocks at every await, but only a `sync` one orders what follows for the race
    # detector: a pure await orders the users of its results (Session.gated).
    host_wait(fr.session, fence, f"stream.timepoint.await at {op.location}", ordering=is_sync_await(op))
    for r, operand in zip(op.results, fr.session.program.group(op, "resource_operands")):
        fr.env[r] = fr.value(operand)


def host_wait(s: Session, fence: Fence, what: str, ordering: bool = True) -> None:
    tracer = s.tracer
    start = tracer.now() if tracer is not None else 0.0
    s.sched.host_wait(fence, what)
    if s.races is not None and ordering:
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
    s = fr.session
    if len(values) == 1 and (values[0] is None or isinstance(values[0], Fence)) and s.races is not None \
            and op.operands[0] in wait_fences(fr.function):
        # The caller's wait fence, seen by the race detector as a barrier of its own: what awaits
        # it (transitively) is ordered after the caller's writes to the inputs.
        waits = values[0] if isinstance(values[0], Fence) else Fence()
        fr.env[op.results[0]], _ = s.submit(op, "barrier", waits, None, component=s.races.input_guard(op.operands[0]))
    elif len(values) == 1 and isinstance(values[0], Fence):
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
    points: list[tuple[TimelineSemaphore, int]] = []
    for t in targets:
        if not isinstance(t, Fence):
            raise InputError(f"stream.timepoint.chain_external at {op.location} signals fences; got {type(t).__name__}")
        points.extend(t.points)
    device, queue = s.device_of(op)
    label = f"chain_external on @{device} at {op.location}"
    sub = Submission("barrier", device, queue, fence, tuple(points), None, label)
    s.external_signals.append(sub)  # the caller may observe results once this is reached
    s.sched.submit(sub)


@rule("stream.cmd.execute")
def _execute(fr: Frame, op: Op) -> None:
    s = fr.session
    body = op.regions[0].blocks[0]
    env = fr.env
    # The body's block arguments are values of their own: binding them in the frame makes every
    # lookup while recording one dict access (the hot path of a run with many small commands).
    for arg, operand in zip(body.arguments, s.program.group(op, "resource_operands")):
        env[arg] = _ref(fr, operand, op)
    value = env.__getitem__

    device, _ = s.device_of(op)
    races = s.races
    component = races.new_component() if races is not None else 0
    index = races.next_seq() if races is not None else 0
    tracer = s.tracer
    start = tracer.now() if tracer is not None else 0.0
    recorder = Recorder(value, s.kernels, s.program.templates, device, s.location(op), races, component, index)
    if races is not None:
        recorder.devices = s.devices_of(op)
    try:
        commands = recorder.record_block(body.ops, component)
    except KeyError as e:
        if e.args and isinstance(e.args[0], Value):
            raise DiagnosticError.at(op.location, f"value {e.args[0]} used before it is defined at run time") from None
        raise
    if tracer is not None:
        tracer.slice(tracer.track(None, "host"), "record execute", start, tracer.now(), cat="host", args={"op": str(op.location)})
    fence, _ = s.submit(op, "execute", _fence(fr, s.program.group(op, "await_timepoint")), lambda ctx: run_commands(commands, ctx),
                        component=component, final_local=recorder.local if races is not None else None)
    fr.env[op.results[-1]] = fence


"""Command buffers: recording a `stream.cmd.execute` body and running it on a device.

Recording happens on the host when the execute is issued (as IREE records a command buffer at
submission): every index operand is resolved to an integer, every binding to an allocation and a
byte range, every dispatch to its kernel and array shapes. What runs on the device is then plain
data plus numpy. Per-op behaviour lives in `RECORDERS`, keyed by op name.

Execution follows SPEC section 3.1 rule 4: top-level commands and `cmd.serial` children run in
order; `cmd.concurrent` children are handed to the driver, which may run them in any order or at
the same time. A dispatch gets numpy views of its bindings reinterpreted with the tensor types the
program carries (`streamproof.binding_types`, or the types its kernel declares): `ro` bindings as
read-only arrays, `wo` as writable ones, and an `rw` binding as one writable array passed both as
an input and as an output (a tied result is the same array as its operand).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from runtime.kernels import Kernel, KernelError, KernelRegistry
from runtime.memory import Allocation, MemoryFault, ResourceRef, dtype_of
from runtime.races import AccessSite, RaceDetector
from runtime.scheduler import WorkContext, WorkFailure
from runtime.status import ExecutionError, Status, StatusCode
from stream.ir.attributes import ArrayAttr, IntegerAttr, SymbolRefAttr, TypeAttr
from stream.ir.core import Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.interfaces import bound_accesses
from stream.ir.rule_table import Requirement, RuleTable, levels_of, traits_of
from stream.ir.spec import spec_of, view
from stream.ir.types import TensorType

__all__ = ["Command", "Recorder", "run_commands", "binding_types_of", "RO", "WO", "RW"]

RO, WO, RW = 1, 2, 3
_ACCESS_NAMES = {RO: "ro", WO: "wo", RW: "rw"}


@dataclass(eq=False, slots=True)
class Command:
    """A recorded command. `name` labels its trace slice; `site` identifies it for races."""

    name: str
    site: AccessSite
    run_fn: Callable[[Command, WorkContext], None]
    children: list[Command] = field(default_factory=list)
    args: tuple[Any, ...] = ()  # what `run_fn` needs, resolved when the command was recorded
    cost: int = 0  # bytes touched, for the driver's inline-or-pool choice
    title: str = ""  # "stream.cmd.dispatch @ex::@entry", for failure messages

    def run(self, ctx: WorkContext) -> None:
        sched = ctx.scheduler
        tracer = sched.tracer
        if not self.children:
            sched.jitter()
        if tracer is None:
            self.run_fn(self, ctx)
            return
        start = tracer.now()
        try:
            self.run_fn(self, ctx)
        finally:
            tracer.slice(tracer.track(ctx.submission.device, ctx.lane), self.name, start, tracer.now(),
                         args={"location": self.site.location, "op": self.site.describe})


def run_commands(commands: list[Command], ctx: WorkContext) -> None:
    """The payload of an execute submission: its top-level commands in order."""
    for c in commands:
        c.run(ctx)


# -- running each kind of command ------------------------------------------------------------------
def _fail(cmd: Command, ctx: WorkContext, message: str, cause: BaseException | None = None) -> WorkFailure:
    origin = f"{cmd.title or cmd.site.describe} at {cmd.site.location} on @{ctx.submission.device}"
    return WorkFailure(Status(StatusCode.INTERNAL if cause is None else StatusCode.ABORTED, message, origin, cause))


def _touch(cmd: Command, ctx: WorkContext, alloc: Allocation, offset: int, length: int, write: bool,
           read: bool | None = None) -> np.ndarray:
    races: RaceDetector | None = ctx.scheduler.races
    if races is not None:
        races.access(alloc, offset, offset + length, write, cmd.site, ctx.submission.start_clock, read)
    try:
        return alloc.bytes(offset, length, cmd.site.describe)
    except MemoryFault as e:
        raise _fail(cmd, ctx, str(e)) from None


def _run_dispatch(cmd: Command, ctx: WorkContext) -> None:
    kernel, direct, scalars, bindings = cmd.args
    inputs: list[np.ndarray] = []
    outputs: list[np.ndarray] = []
    races = ctx.scheduler.races
    for alloc, offset, length, access, dtype, shape, nbytes in bindings:
        data = alloc.data
        if races is not None or data is None:
            raw = _touch(cmd, ctx, alloc, offset, length, bool(access & WO), bool(access & RO))
            arr = raw[:nbytes].view(dtype).reshape(shape)
            if access == RO:
                arr.flags.writeable = False
        elif access == RO:  # the fast path: bounds were checked when the command was recorded
            arr = np.ndarray(shape, dtype, alloc.readonly(), offset)
        else:
            arr = np.ndarray(shape, dtype, data, offset)
        if access & RO:  # ro and rw: an rw binding is one array, the input and the in-place output
            inputs.append(arr)
        if access & WO:
            outputs.append(arr)
    try:
        if direct is not None:  # the kernel takes its outputs as arguments (checked when recorded)
            direct(*inputs, *scalars, *outputs)
        else:
            kernel(inputs, scalars, outputs)
    except Exception as e:
        raise _fail(cmd, ctx, f"kernel '{kernel.name}' failed: {type(e).__name__}: {e}", e) from e


def _run_copy(cmd: Command, ctx: WorkContext) -> None:
    src, s_off, dst, d_off, length = cmd.args
    source = _touch(cmd, ctx, src, s_off, length, False)
    target = _touch(cmd, ctx, dst, d_off, length, True)
    target[...] = source  # numpy copies through a temporary when the ranges overlap


def _run_fill(cmd: Command, ctx: WorkContext) -> None:
    alloc, offset, length, pattern = cmd.args
    target = _touch(cmd, ctx, alloc, offset, length, True)
    if length % pattern.itemsize:
        raise _fail(cmd, ctx, f"fill length {length} is not a multiple of the {pattern.itemsize}-byte pattern")
    target.view(pattern.dtype)[...] = pattern


def _run_cache(cmd: Command, ctx: WorkContext) -> None:
    """flush / invalidate: memory is coherent in the simulation, so only bounds and liveness are
    checked; discard: the contents become undefined, and are poisoned so a later read shows it."""
    kind, alloc, offset, length = cmd.args
    if kind == "discard":
        target = _touch(cmd, ctx, alloc, offset, length, True)
        if ctx.scheduler.poison:
            target[...] = 0xFF
        return
    try:
        alloc.bytes(offset, length, cmd.site.describe)
    except MemoryFault as e:
        raise _fail(cmd, ctx, str(e)) from None


def _run_serial(cmd: Command, ctx: WorkContext) -> None:
    for c in cmd.children:
        c.run(ctx)


def _run_concurrent(cmd: Command, ctx: WorkContext) -> None:
    ctx.run_concurrent([c.run for c in cmd.children], ctx, cmd.cost)


# -- recording -------------------------------------------------------------------------------------
def binding_types_of(op: Op) -> tuple[TensorType, ...] | None:
    """The `streamproof.binding_types` of a dispatch, or None when it has none."""
    attr = op.attributes.get("streamproof.binding_types") or op.properties.get("streamproof.binding_types")
    if not isinstance(attr, ArrayAttr):
        return None
    out: list[TensorType] = []
    for e in attr.elements:
        t = e.type if isinstance(e, TypeAttr) else e
        if not isinstance(t, TensorType) or t.shape is None:
            raise DiagnosticError.at(op.location, f"streamproof.binding_types entries must be ranked tensor types, not {e}")
        out.append(t)
    return tuple(out)


class Recorder:
    """Turns an execute body into commands. `value(v)` gives the run-time value of an SSA value
    (host values and the body's captures); `kernels` resolves dispatch symbols; `templates` keeps
    each dispatch's prepared template across runs of the module (`runtime.program.Program`)."""

    def __init__(self, value: Callable[[Value], Any], kernels: KernelRegistry, templates: dict[Op, Any], device: str,
                 location: str, races: RaceDetector | None, component: int, submission_index: int) -> None:
        self.value = value
        self.kernels = kernels
        self.templates = templates  # the prepared program's dispatch templates (runtime.program)
        self.device = device
        self.location = location  # of the execute
        self.races = races
        self.index = 0
        self.submission_index = submission_index
        self.component = component
        self.local: dict[int, float] = {component: 0}
        # The execute's devices (all options of its affinity), for the AFFINITY_MISMATCH check;
        # None when unknown or when races are not checked.
        self.devices: frozenset[str] | None = None

    def check_affinity(self, site: AccessSite, alloc: Allocation, lo: int, hi: int) -> None:
        """A dispatch or fill touches storage on no device the execute runs on (copies, flushes,
        invalidates and discards are transfers: they may touch another device's memory)."""
        devices, placement = self.devices, alloc.placement
        if self.races is not None and devices is not None and placement is not None and not devices & placement:
            self.races.affinity(alloc, lo, hi, site, devices)

    def record_block(self, ops: tuple[Op, ...], comp: int) -> list[Command]:
        out: list[Command] = []
        for op in ops:
            rule = RECORDERS.get(op.name)
            if rule is None:
                if op.name == "stream.yield":
                    continue
                raise DiagnosticError.at(op.location, f"'{op.name}' cannot appear in a stream.cmd.execute body at run time")
            out.append(rule(self, op, comp))
        return out

    def site(self, op: Op, describe: str, comp: int) -> AccessSite:
        return self.site_at(str(op.location), describe, comp)

    def site_at(self, location: str, describe: str, comp: int) -> AccessSite:
        self.index += 1
        local = None
        if self.races is not None:
            self.local[comp] = self.local.get(comp, 0) + 1
            local = dict(self.local)
        return AccessSite(describe, location, comp, local, (self.submission_index, self.index), self.submission_index)

    def ref(self, v: Value, op: Op) -> ResourceRef:
        r = self.value(v)
        if not isinstance(r, ResourceRef):
            raise DiagnosticError.at(op.location, f"expected a resource, got {type(r).__name__}")
        return r

    def integer(self, v: Value) -> int:
        return int(self.value(v))

    def window(self, ref: ResourceRef, offset: int, length: int, op: Op, what: str) -> tuple[Allocation, int, int]:
        """The absolute byte range of [offset, offset+length) inside a captured resource."""
        if offset < 0 or length < 0 or offset + length > ref.length:
            raise _bounds(op, f"{what} [{offset}, {offset + length}) is outside the resource's {ref.length} bytes ({ref.allocation.label})")
        return ref.allocation, ref.offset + offset, length


def _bounds(op: Op, message: str) -> ExecutionError:
    """A statically out-of-bounds range: the program fails when it issues the command buffer."""
    return ExecutionError(Status(StatusCode.OUT_OF_RANGE, f"OUT_OF_BOUNDS: {message}", f"{op.name} at {op.location}"))


def _symbol_text(sym: SymbolRefAttr) -> str:
    return "@" + "::@".join((sym.root, *sym.nested))


@dataclass(eq=False, slots=True)
class _DispatchTemplate:
    """What a dispatch op fixes once and for all: its kernel, operands, binding types and modes.
    Recording an execute then only resolves run-time values (offsets, lengths, dims)."""

    kernel: Kernel
    title: str
    name: str
    location: str
    resources: tuple[Value, ...]
    offsets: tuple[Value, ...]
    lengths: tuple[Value, ...]
    uniforms: tuple[Value, ...]
    types: tuple[TensorType, ...]
    dtypes: tuple[np.dtype, ...]
    modes: tuple[int, ...]
    n_dims: int
    static_nbytes: tuple[int | None, ...]
    static_shapes: tuple[tuple[int, ...] | None, ...]
    raw: bool = False  # a `bindings="bytes"` kernel: every binding is a flat uint8 array of its length
    style: str | None = None  # Kernel.style for this dispatch's arity; None: let the call explain the mismatch
    site: AccessSite | None = None  # the command's site when races are not checked (one per op)
    # Per binding: (resource, offset value, length value, mode, dtype, static bytes, static shape).
    specs: tuple[tuple[Any, ...], ...] = ()

    def __post_init__(self) -> None:
        self.specs = tuple(zip(self.resources, self.offsets, self.lengths, self.modes, self.dtypes, self.static_nbytes,
                               self.static_shapes))
        n_in = sum(1 for m in self.modes if m & RO)
        n_out = sum(1 for m in self.modes if m & WO)
        try:
            self.style = self.kernel.style(n_in + len(self.uniforms) - self.n_dims, n_out)
        except KernelError:
            self.style = None
        self.site = AccessSite(self.title, self.location, 0, None, (0, 0), 0)


def _dispatch_template(op: Op, r: Recorder) -> _DispatchTemplate:
    """The dispatch's template, made once per op and kernel registry generation, so that
    running one module many times (benchmarks, chaos sweeps) prepares each dispatch once."""
    kernels = r.kernels
    hit = r.templates.get(op)
    if hit is not None and hit[0] is kernels and hit[1] == kernels.generation:
        return hit[2]  # type: ignore[no-any-return]
    t = _make_template(op, kernels)
    r.templates[op] = (kernels, kernels.generation, t)
    return t


def _make_template(op: Op, kernels: KernelRegistry) -> _DispatchTemplate:
    v = view(op)
    entries = op.properties.get("entry_points")
    sym = entries.elements[0] if isinstance(entries, ArrayAttr) and entries.elements else entries
    if not isinstance(sym, SymbolRefAttr):
        raise DiagnosticError.at(op.location, "stream.cmd.dispatch without an entry point")
    kernel = kernels.lookup(sym)
    if kernel is None:
        tried = ", ".join(f"'{n}'" for n in KernelRegistry.candidates(sym))
        raise DiagnosticError.at(op.location, f"no kernel for dispatch {_symbol_text(sym)} (tried {tried}); register one with "
                                 "@streamproof.kernel or pass --kernels FILE.py")
    types = binding_types_of(op)
    if types is None:
        types = kernel.bindings
    elif kernel.bindings is not None and kernel.bindings != types:
        raise DiagnosticError.at(op.location, f"kernel '{kernel.name}' declares bindings {list(map(str, kernel.bindings))} but the "
                                 f"dispatch carries {list(map(str, types))}")
    resources = tuple(v.resources)
    if types is None and kernel.raw_bytes:
        n = len(resources)
        modes = _modes(op, n)
        return _DispatchTemplate(kernel, f"stream.cmd.dispatch {_symbol_text(sym)}", f"dispatch {sym.leaf}", str(op.location),
                                 resources, tuple(v.resource_offsets), tuple(v.resource_lengths), tuple(v.uniform_operands), (),
                                 (np.dtype(np.uint8),) * n, modes, 0, (None,) * n, (None,) * n, raw=True)
    if types is None:
        raise DiagnosticError.at(op.location, f"dispatch {_symbol_text(sym)} carries no streamproof.binding_types and kernel "
                                 f"'{kernel.name}' declares none: declare them with @streamproof.kernel(..., bindings=[...])")
    if len(types) != len(resources):
        raise DiagnosticError.at(op.location, f"dispatch {_symbol_text(sym)} has {len(resources)} bindings but "
                                 f"{len(types)} binding types")
    uniforms = tuple(v.uniform_operands)
    n_dims = sum(t.dynamic_dims for t in types)
    if n_dims > len(uniforms):
        raise DiagnosticError.at(op.location, f"the binding types have {n_dims} dynamic dims but the dispatch passes only "
                                 f"{len(uniforms)} uniform operands")
    modes = _modes(op, len(resources))
    dtypes = tuple(dtype_of(t.element) for t in types)
    shapes = tuple(_static_shape(t) for t in types)
    nbytes = tuple(None if s is None else d.itemsize * math.prod(s) for s, d in zip(shapes, dtypes))
    return _DispatchTemplate(kernel, f"stream.cmd.dispatch {_symbol_text(sym)}", f"dispatch {sym.leaf}", str(op.location),
                             resources, tuple(v.resource_offsets), tuple(v.resource_lengths), uniforms, types, dtypes, modes,
                             n_dims, nbytes, shapes)


def _modes(op: Op, n: int) -> tuple[int, ...]:
    accesses = op.properties.get("resource_accesses")
    if isinstance(accesses, ArrayAttr):
        return tuple(e.value if isinstance(e, IntegerAttr) else RW for e in accesses.elements)
    return (RW,) * n


def _static_shape(t: TensorType) -> tuple[int, ...] | None:
    """The dims of a statically shaped tensor type, None when some dim is dynamic or it is unranked."""
    if t.shape is None:
        return None
    dims = tuple(d for d in t.shape if d is not None)
    return dims if len(dims) == len(t.shape) else None


def _record_dispatch(r: Recorder, op: Op, comp: int) -> Command:
    t = _dispatch_template(op, r)
    value = r.value
    uniforms = [value(u) for u in t.uniforms] if t.uniforms else []
    n_scalars = len(uniforms) - t.n_dims
    dims = [int(x) for x in uniforms[n_scalars:]]
    bindings = []
    cost = 0
    for i, (res, off_v, len_v, mode, dtype, need, shape) in enumerate(t.specs):
        ref = value(res)
        if type(ref) is not ResourceRef:
            raise DiagnosticError.at(op.location, f"binding {i} is not a resource at run time ({type(ref).__name__})")
        offset, length = int(value(off_v)), int(value(len_v))
        if offset < 0 or length < 0 or offset + length > ref.length:
            raise _bounds(op, f"binding {i} [{offset}, {offset + length}) is outside the resource's {ref.length} bytes "
                          f"({ref.allocation.label})")
        if t.raw:
            shape, need = (length,), length
        elif need is None or shape is None:
            shape = tuple(d if d is not None else dims.pop(0) for d in t.types[i].shape or ())
            need = dtype.itemsize * math.prod(shape)
        if length < need:
            raise DiagnosticError.at(op.location, f"binding {i} of {t.title} covers {length} bytes but "
                                     f"{TensorType(shape, t.types[i].element)} needs {need}")
        bindings.append((ref.allocation, ref.offset + offset, length, mode, dtype, shape, need))
        cost += length
    if r.races is not None:
        described = ", ".join(f"{_ACCESS_NAMES.get(b[3], '?')} {b[0].label}[{b[1]} for {b[2]}]" for b in bindings)
        site = r.site_at(t.location, f"{t.title} {{{described}}}", comp)
        _check_self_overlap(r.races, site, bindings)
        for b in bindings:
            r.check_affinity(site, b[0], b[1], b[1] + b[2])
    else:  # without race checking a site only names the command in messages and traces
        assert t.site is not None
        site = t.site
    direct = t.kernel.fn if t.style == "out" else None
    return Command(t.name, site, _run_dispatch, args=(t.kernel, direct, uniforms[:n_scalars], bindings), cost=cost, title=t.title)


def _check_self_overlap(races: RaceDetector, site: AccessSite, bindings: list[tuple[Any, ...]]) -> None:
    for i, (a1, o1, l1, m1, *_rest) in enumerate(bindings):
        for a2, o2, l2, m2, *_r in bindings[i + 1 :]:
            if a1 is a2 and o1 < o2 + l2 and o2 < o1 + l1 and (m1 & WO or m2 & WO):
                kind = "RACE_WRITE_AFTER_WRITE" if (m1 & WO and m2 & WO) else "RACE_READ_AFTER_WRITE"
                races.static_overlap(kind, a1, max(o1, o2), min(o1 + l1, o2 + l2), site,
                                     "one dispatch binds these bytes twice and writes through at least one binding")


def _windows(r: Recorder, op: Op, what: str) -> list[tuple[Allocation, int, int]]:
    """The absolute byte ranges of the op's declared accesses (`OpSpec.accesses`: a resource,
    an offset and a length), in declaration order, each checked against its resource."""
    spec = spec_of(op)
    assert spec is not None
    out = []
    for a in bound_accesses(spec, op) or ():
        assert a.offset is not None and a.length is not None, op.name
        label = f"{what} {a.access.resource}" if len(spec.accesses or ()) > 1 else what
        out.append(r.window(r.ref(a.value, op), r.integer(a.offset), r.integer(a.length), op, label))
    return out


def _record_copy(r: Recorder, op: Op, comp: int) -> Command:
    (src, s_off, length), (dst, d_off, _) = _windows(r, op, "copy")
    kind = "transfer" if src.device != dst.device else "copy"
    site = r.site(op, f"stream.cmd.copy {src.label}[{s_off}] -> {dst.label}[{d_off}] ({length} bytes)", comp)
    if r.races is not None and src is dst and s_off < d_off + length and d_off < s_off + length:
        r.races.static_overlap("RACE_READ_AFTER_WRITE", src, max(s_off, d_off), min(s_off, d_off) + length, site,
                               "the copy's source and target ranges overlap")
    return Command(kind, site, _run_copy, args=(src, s_off, dst, d_off, length), cost=2 * length)


def _record_fill(r: Recorder, op: Op, comp: int) -> Command:
    v = view(op)
    ((alloc, off, length),) = _windows(r, op, "fill")
    value = r.value(v.value)
    pattern = np.array(value, dtype=dtype_of(v.value.type))
    site = r.site(op, f"stream.cmd.fill {value} -> {alloc.label}[{off} for {length}]", comp)
    r.check_affinity(site, alloc, off, off + length)
    return Command("fill", site, _run_fill, args=(alloc, off, length, pattern), cost=length)


def _cache_recorder(kind: str) -> Callable[[Recorder, Op, int], Command]:
    def record(r: Recorder, op: Op, comp: int) -> Command:
        ((alloc, off, length),) = _windows(r, op, kind)
        site = r.site(op, f"stream.cmd.{kind} {alloc.label}[{off} for {length}]", comp)
        return Command(kind, site, _run_cache, args=(kind, alloc, off, length), cost=length)

    return record


def _record_serial(r: Recorder, op: Op, comp: int) -> Command:
    site = r.site(op, "stream.cmd.serial", comp)
    children = r.record_block(op.regions[0].blocks[0].ops, comp)
    return Command("serial", site, _run_serial, children, cost=sum(c.cost for c in children))


def _record_concurrent(r: Recorder, op: Op, comp: int) -> Command:
    site = r.site(op, "stream.cmd.concurrent", comp)
    children: list[Command] = []
    if r.races is None:
        children = r.record_block(op.regions[0].blocks[0].ops, comp)
    else:
        # Each child is a fresh logical thread forked from the section's start; the section's end
        # joins them all (module docstring of runtime.races).
        start = dict(r.local)
        joined = dict(start)
        for child_op in op.regions[0].blocks[0].ops:
            if child_op.name == "stream.yield":
                continue
            child_comp = r.races.new_component()
            r.local = dict(start)
            r.local[child_comp] = 0
            children.extend(r.record_block((child_op,), child_comp))
            for k, val in r.local.items():
                joined[k] = max(joined.get(k, 0), val)
        r.local = joined
        r.local[comp] = r.local.get(comp, 0) + 1
    return Command("concurrent", site, _run_concurrent, children, cost=sum(c.cost for c in children))




def command(spec: Any) -> bool:
    """the commands of a cmd-level execution region (streamable ops of the cmd level)"""
    return levels_of(spec) == {"cmd"} and "streamable" in traits_of(spec)


RECORDERS: RuleTable[Callable[[Recorder, Op, int], Command]] = RuleTable(
    "RECORDERS",
    """Record the command into the command buffer being built: resolve its bindings and byte
    ranges against the execution region's captures and return a `Command` (its run function,
    access sites for the race detector, cost) (`fn(recorder, op, comp)`). An op without one is
    refused (exit 2, "cannot appear in a stream.cmd.execute body at run time"); `stream.yield`
    ends a body.""",
    policy="refuse",
    requires=Requirement(where=command),
    entries={
    "stream.cmd.dispatch": _record_dispatch,
    "stream.cmd.copy": _record_copy,
    "stream.cmd.fill": _record_fill,
    "stream.cmd.flush": _cache_recorder("flush"),
    "stream.cmd.invalidate": _cache_recorder("invalidate"),
    "stream.cmd.discard": _cache_recorder("discard"),
    "stream.cmd.serial": _record_serial,
    "stream.cmd.concurrent": _record_concurrent,
    },
)

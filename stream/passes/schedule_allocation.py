"""ScheduleAllocation (`schedule-allocation`): async -> cmd, with explicit memory.

Every `stream.async.execute` becomes a `stream.cmd.execute` whose commands work on byte ranges of
captured resources. Storage comes from the region's storage trees (values that share storage
through ties, subviews and waves; `stream.analysis.storage_aliases`):

* a tree rooted at a capture lives in the captured resource;
* a tree holding a result gets a queue-ordered `stream.resource.alloca` of the result's type and
  size, awaiting the region's original await; the region captures it and writes the result in
  place. When the yielded value cannot live in the result's storage directly (it is a capture or
  a constant, it lives at an offset inside another value, or it is yielded twice), the result is
  copied into its allocation at the end of the region. A tied result is its capture (through a
  `resource.subview` when the yielded value is an offset range of the capture, IREE #14685);
* `stream.async.constant` values are uploaded by one `stream.resource.constants` per region. A
  constant the region only reads stays in the upload; one it writes in place gets a private copy;
  one that escapes as a `constant` result *is* the upload;
* every other tree is region-local: one slice of a single transient slab per region, with the
  inclusive liveness interval of its tree (`stream.analysis.liveness`). When all slice sizes
  are constants the slab is laid out here (greedy best fit, offsets aligned to the `alignment`
  option, 64 bytes by default: `schedule-allocation{alignment=16}`;
  `stream.analysis.slab_layout`) and the offsets are plain constants; otherwise a
  `stream.resource.pack` keeps the intervals and sizes and yields symbolic offsets that the
  runtime resolves (the verifier treats them as unknowns constrained by the pack's contract).
  The slab is freed right after the region (`dealloca await(region)`), and every later user of
  the region's timepoint waits for `join(dealloca, region)`.

The region awaits the join of its original await, its allocations, the constants it reads and
the pending timepoints of captured host-level uploads. Async ops become cmd ops by the rules of
`stream.passes.async_to_cmd`; waves become `stream.cmd.concurrent`. Outside regions,
`async.load`/`async.store` become `resource.load`/`resource.store`, and host-level
`async.constant`/`async.alloca` become `resource.constants`/`resource.alloca` whose timepoint is
awaited by the regions that capture them (or by a host await before any other host use).

Invariant established: the function is at the cmd level; every resource value has storage;
values whose liveness intervals intersect never share bytes; every allocation is ready before
the region that uses it starts (the region awaits it); every result of the async program is
computed into the storage that now stands for it, so the cmd program computes the same bytes.
`scf.for` and `scf.if` are host ops whose blocks are allocated each on their own (a region in a
loop body allocates its results in every iteration); multi-block functions and other `scf` ops
are refused with a diagnostic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from stream.analysis.liveness import region_intervals
from stream.analysis.slab_layout import DEFAULT_ALIGNMENT, Slice, layout_slices
from stream.analysis.storage_aliases import StorageForest
from stream.dialect import load_all
from stream.ir.attributes import ArrayAttr, Attribute, IntegerAttr, OptimalAttr
from stream.ir.core import Block, Module, Op, Region, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.interfaces import sized_results
from stream.ir.rule_table import Requirement, RuleTable, execution_op
from stream.ir.spec import spec_of, view
from stream.ir.spec_registry import registered_names
from stream.ir.types import INDEX, Lifetime, ResourceType, TimepointType
from stream.ir.walk import Function, bodies, replace_op
from stream.passes.async_to_cmd import Storage, build, convert_op
from stream.passes.block_builder import STRUCTURED, BlockBuilder, check_straight_line
from stream.passes.parameter_allocation import parameter_rules
from stream.passes.pass_manager import PipelineError, register_pass

__all__ = ["schedule_allocation", "ScheduleAllocationOptions"]

_TRANSIENT = ResourceType(Lifetime.TRANSIENT)
_CONSTANT = ResourceType(Lifetime.CONSTANT)


@dataclass(frozen=True, slots=True)
class ScheduleAllocationOptions:
    """`alignment`: the byte alignment of every slice offset in a region's slab (and of the slab
    size), a power of two; IREE's default minimum offset alignment is 64."""

    alignment: int = DEFAULT_ALIGNMENT

    def __post_init__(self) -> None:
        if self.alignment <= 0 or self.alignment & (self.alignment - 1):
            raise PipelineError(f"option 'alignment' of 'schedule-allocation' must be a power of two, not {self.alignment}")


@register_pass("schedule-allocation", options=ScheduleAllocationOptions, produces="cmd")
def schedule_allocation(module: Module, options: ScheduleAllocationOptions | None = None) -> Module:
    """Allocate storage for every execution region and lower async ops to cmd ops."""
    alignment = (options or ScheduleAllocationOptions()).alignment
    out = module
    for f in bodies(module):
        if _has_async(f):
            out = replace_op(out, f.op, _allocate_function(f, alignment).op)
    return out


def _has_async(f: Function) -> bool:
    return any(op.name.startswith("stream.async.") for op in f.op.walk())


# -- host level ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Pending:
    """A host-level upload or allocation whose timepoint nobody has awaited yet."""

    timepoint: Value
    size: Value


@dataclass(slots=True)
class _Host:
    """The function being rebuilt and its host-level uploads not yet awaited."""

    b: BlockBuilder
    alignment: int = DEFAULT_ALIGNMENT
    pending: dict[Value, _Pending] = field(default_factory=dict)

    def settle(self, op: Op) -> None:
        """Before a host op uses a pending upload, wait for it on the host."""
        for v in op.operands:
            new = self.b.lookup(v)
            p = self.pending.pop(new, None)
            if p is None:
                continue
            awaited = self.b.create(
                "stream.timepoint.await",
                {"resource_operands": (new,), "resource_operand_sizes": (p.size,), "await_timepoint": p.timepoint},
                {"results": (new.type,)},
                location=op.location,
            )
            self.b.bind(v, awaited.results[0])


def _allocate_function(f: Function, alignment: int = DEFAULT_ALIGNMENT) -> Function:
    check_straight_line(f, "schedule-allocation", STRUCTURED)
    host = _Host(BlockBuilder(location=f.op.location), alignment)
    _allocate_ops(host, f.body.ops)
    return f.with_body(host.b.block(f.arguments).ops)


def _structured(host: _Host, op: Op) -> None:
    """An `scf` op: the uploads it uses (in its regions too) are waited for first; each block of
    its regions is allocated like a function body, into a nested builder (region by region:
    what an iteration allocates it allocates again in the next)."""
    for inner in op.walk():
        host.settle(inner)

    def convert(child: BlockBuilder, ops: tuple[Op, ...]) -> None:
        parent, pending = host.b, dict(host.pending)
        host.b = child
        try:
            _allocate_ops(host, ops)
        finally:
            host.b, host.pending = parent, pending

    host.b.structured(op, convert)


def _allocate_ops(host: _Host, ops: tuple[Op, ...]) -> None:
    for op in ops:
        rule = _HOST_RULES.get(op.name)
        if rule is not None:
            rule(host, op)
        elif op.name.startswith("stream.async."):
            raise DiagnosticError.at(
                op.location,
                f"schedule-allocation: '{op.name}' must be inside a stream.async.execute region (run schedule-execution first)",
            )
        else:
            host.settle(op)
            host.b.copy(op)


def _async_load(host: _Host, op: Op) -> None:
    host.settle(op)
    v, b = view(op), host.b
    new = b.create(
        "stream.resource.load",
        {"source": b.lookup(v.source), "source_size": b.lookup(v.source_size), "source_offset": b.lookup(v.source_offset)},
        {"result": op.results[0].type},
        discardable=op.attributes,
        location=op.location,
    )
    b.bind(op.results[0], new.results[0])


def _async_store(host: _Host, op: Op) -> None:
    host.settle(op)
    v, b = view(op), host.b
    target = b.lookup(v.target)
    b.create(
        "stream.resource.store",
        {"target": target, "target_size": b.lookup(v.target_size), "target_offset": b.lookup(v.target_offset), "value": b.lookup(v.value)},
        discardable=op.attributes,
        location=op.location,
    )
    b.bind(op.results[0], target)  # the stored-to resource is the same storage


def _host_constant(host: _Host, op: Op) -> None:
    v, b = view(op), host.b
    size = b.lookup(v.result_size)
    upload = b.create(
        "stream.resource.constants",
        {"result_sizes": (size,)},
        {"results": (op.results[0].type,)},
        {"values": ArrayAttr((v.value,)), "affinity": v.affinity},
        location=op.location,
    )
    b.bind(op.results[0], upload.results[0])
    host.pending[upload.results[0]] = _Pending(upload.results[1], size)


def _host_alloca(host: _Host, op: Op) -> None:
    v, b = view(op), host.b
    size = b.lookup(v.storage_size)
    alloca = b.create(
        "stream.resource.alloca",
        {"storage_size": size},
        {"result": op.results[0].type},
        {"affinity": v.affinity},
        location=op.location,
    )
    b.bind(op.results[0], alloca.results[0])
    host.pending[alloca.results[0]] = _Pending(alloca.results[1], size)


def _execute(host: _Host, op: Op) -> None:
    _RegionAllocation(host, op).run()


_HOST_RULES: RuleTable[Callable[[_Host, Op], None]] = RuleTable(
    "_HOST_RULES",
    """Lower the async-level host op outside execution regions: an execution region (its
    allocation), a load or store (a staging transfer), a constant upload, an alloca or a
    parameter op (`fn(host, op)`). Any other op is copied unchanged (identity), except a `stream.async.*`
    op, which is refused (exit 2: it must be inside a region).""",
    policy="identity",
    requires=Requirement(ops=frozenset({"stream.async.execute", "stream.async.load", "stream.async.store", "stream.async.constant", "stream.async.alloca",
                                         *(f"stream.async.parameter.{n}" for n in ("load", "read", "write", "gather", "scatter"))}),
                         why="the async ops that run outside execution regions"),
    entries={
        "stream.async.execute": _execute,
        "stream.async.load": _async_load,
        "stream.async.store": _async_store,
        "stream.async.constant": _host_constant,
        "stream.async.alloca": _host_alloca,
        "scf.for": _structured,
        "scf.if": _structured,
        **parameter_rules(),  # the parameter ops, to their cmd forms (stream/passes/parameter_allocation.py)
    },
)


# -- one execution region --------------------------------------------------------------------------
@dataclass(slots=True)
class _Root:
    """The storage of one tree of the region (see the module docstring)."""

    kind: str  # "capture" | "constant" (read-only upload) | "fresh"
    value: Value
    size: Value  # a value of the new function
    capture: int = -1
    storage: Storage | None = None


def _declared_size(op: Op, i: int) -> Value:
    """The size the op's `Sized` interface declares for result `i`."""
    spec = spec_of(op)
    size = dict(sized_results(spec, op)).get(i) if spec is not None else None
    if size is None:
        raise DiagnosticError.at(op.location, f"schedule-allocation: '{op.name}' declares no size for result #{i}")
    return size


def _sized_roots() -> list[str]:
    """The execution ops (and subviews) whose spec declares the sizes of their results."""
    load_all()
    out = []
    for name in registered_names():
        spec = spec_of(name)
        if spec is not None and spec.sized is not None and spec.sized.results is not None and (
                execution_op(spec) or name == "stream.resource.subview"):
            out.append(name)
    return out


# Which operand holds the byte size of result `i` of a fresh-value op: the result-size group of
# its `Sized` interface. (Tied results live in their operand's tree; their sizes matter only if
# a tie is dropped.)
_RESULT_SIZE: RuleTable[Callable[[Op, int], Value]] = RuleTable(
    "_RESULT_SIZE",
    """Which operand holds the byte size of result `i` of the op when it is the root of a
    storage tree (`fn(op, i) -> Value`), derived from the `Sized` interface of the op's spec
    (`sized=Sized(..., results=...)`). An op without one is refused (exit 2, "cannot size
    the result").""",
    policy="refuse",
    requires=Requirement(where=execution_op, ops=frozenset({"stream.resource.subview"})),
    entries=dict.fromkeys(_sized_roots(), _declared_size),
)


class _RegionAllocation:
    """Plans storage for one `stream.async.execute` and emits its cmd form (module docstring)."""

    def __init__(self, host: _Host, op: Op) -> None:
        self.host, self.b, self.op = host, host.b, op
        self.v = view(op)
        self.affinity: Attribute | None = self.v.affinity
        self.in_wave = False
        self.body: Block = op.regions[0].blocks[0]
        self.forest = StorageForest.of(self.body)
        self.captures = [self.b.lookup(x) for x in self.v.resource_operands]
        self.capture_sizes = [self.b.lookup(s) for s in self.v.resource_operand_sizes]
        await_tp = self.v.await_timepoint
        self.original_await: Value | None = self.b.lookup(await_tp) if await_tp is not None else None
        self.awaits: list[Value] = [self.original_await] if self.original_await is not None else []
        self.roots: dict[Value, _Root] = {}
        self.uploads: dict[Value, tuple[Value, Value]] = {}  # async.constant result -> (upload, size)
        self.upload_timepoint: Value | None = None
        self.upload_args: dict[Value, Value] = {}  # upload resource -> region block argument
        # New captures after the original ones: (outer value, size, block argument).
        self.extra: list[tuple[Value, Value, Value]] = []
        self.final_copies: list[tuple[Value, Value, Value]] = []  # (yielded value, result root, size)
        self.slab: tuple[Value, Value] | None = None  # (alloca result, total size)

    # -- driver --------------------------------------------------------------------------------
    def run(self) -> None:
        self._hoist_index_arithmetic()
        self._upload_constants()
        self._collect_roots()
        replacements = self._plan_results()
        self._plan_slab()
        self._capture_read_only_constants()
        self._emit(replacements)

    def _hoist_index_arithmetic(self) -> None:
        """Index and scalar arithmetic inside the region runs on the host, before it."""
        for op in self.op.walk():
            if op.dialect == "arith":
                self.b.copy(op)

    # -- constants ----------------------------------------------------------------------------
    def _upload_constants(self) -> None:
        constants = [op for op in self.op.walk() if op.name == "stream.async.constant"]
        if not constants:
            return
        sizes = [self.b.lookup(view(c).result_size) for c in constants]
        upload = self.b.create(
            "stream.resource.constants",
            {"result_sizes": tuple(sizes)},
            # Uploads are never written: a constant the region writes in place, or that leaves it
            # with another lifetime, is copied out of its upload into storage of its own.
            {"results": (_CONSTANT,) * len(constants)},
            {"values": ArrayAttr(tuple(view(c).value for c in constants)), "affinity": self.affinity},
            location=constants[0].location,
        )
        for c, resource, size in zip(constants, upload.results, sizes):
            self.uploads[c.results[0]] = (resource, size)
        self.upload_timepoint = upload.results[-1]

    # -- storage trees ------------------------------------------------------------------------
    def _collect_roots(self) -> None:
        for j, arg in enumerate(self.body.arguments):
            storage = Storage(arg, self.capture_sizes[j], self.b.index(0))
            self.roots[arg] = _Root("capture", arg, self.capture_sizes[j], capture=j, storage=storage)
        for op in self.op.walk():
            if op is self.op or op.name == "stream.async.concurrent":
                continue
            for i, r in enumerate(op.results):
                if not isinstance(r.type, ResourceType) or not self.forest.is_root(r):
                    continue
                size_rule = _RESULT_SIZE.get(op.name)
                if size_rule is None:
                    raise DiagnosticError.at(op.location, f"schedule-allocation: cannot size the result of '{op.name}'")
                read_only = op.name == "stream.async.constant" and r not in self.forest.written
                self.roots[r] = _Root("constant" if read_only else "fresh", r, self.b.lookup(size_rule(op, i)))

    def _same_size(self, a: Value, b: Value) -> bool:
        if a is b:
            return True
        ca, cb = self.b.constant_value(a), self.b.constant_value(b)
        return ca is not None and ca == cb

    def _placement(self, root: Value) -> Attribute | None:
        """Where a result's allocation lives: a transfer's target device and the device writing it."""
        op = self.forest.defs.get(root)
        if op is not None and op.name == "stream.async.transfer":
            target = view(op).target_affinity
            if target is not None and self.affinity is not None and target != self.affinity:
                return OptimalAttr((target, self.affinity))
        return self.affinity

    def _plan_results(self) -> list[Value]:
        spec = self.v.spec
        yield_op = self.body.ops[-1]
        yielded = yield_op.operands[: len(yield_op.operands) // 2]
        first_capture = spec.operand_offset(self.op, "resource_operands")
        result_sizes = [self.b.lookup(s) for s in self.v.result_sizes]
        replacements: list[Value] = []
        for i, (result, value) in enumerate(zip(self.v.results, yielded)):
            size = result_sizes[i]
            root_value, terms = self.forest.root(value)
            root = self.roots[root_value]
            tied = spec.tied_operand(self.op, i)
            if tied is not None:
                j = tied - first_capture
                if root.kind == "capture" and root.capture == j:
                    replacements.append(self._subrange(j, terms, size))
                else:
                    self.final_copies.append((value, self.body.arguments[j], size))
                    replacements.append(self.captures[j])
                continue
            lifetime = result.type.lifetime if isinstance(result.type, ResourceType) else None
            if root.kind == "constant" and not terms and lifetime is Lifetime.CONSTANT:
                replacements.append(self.uploads[root_value][0])
                continue
            alloca = self._result_alloca(result.type, size, self._placement(root_value))
            arg = Value(result.type)
            self.extra.append((alloca, size, arg))
            storage = Storage(arg, size, self.b.index(0))
            if root.kind == "fresh" and root.storage is None and not terms and self._same_size(root.size, size):
                root.storage = storage
            else:
                self.final_copies.append((value, arg, size))
                self.roots[arg] = _Root("capture", arg, size, storage=storage)
            replacements.append(alloca)
        return replacements

    def _subrange(self, j: int, terms: tuple[Value, ...], size: Value) -> Value:
        """The capture itself, or a subview of it when the result is an offset range (#14685)."""
        if not terms:
            return self.captures[j]
        offset = self.b.sum(self.b.lookup(t) for t in terms)
        subview = self.b.create(
            "stream.resource.subview",
            {"source": self.captures[j], "source_size": self.capture_sizes[j], "source_offset": offset, "result_size": size},
            {"result": self.captures[j].type},
            location=self.op.location,
        )
        return subview.results[0]

    def _result_alloca(self, type_: object, size: Value, affinity: Attribute | None) -> Value:
        alloca = self.b.create(
            "stream.resource.alloca",
            {"storage_size": size, "await_timepoint": self.original_await},
            {"result": type_},  # type: ignore[dict-item]
            {"affinity": affinity},
            location=self.op.location,
        )
        self.awaits.append(alloca.results[1])
        return alloca.results[0]

    # -- region-local slab --------------------------------------------------------------------
    def _plan_slab(self) -> None:
        local = [r for r in self.roots.values() if r.kind == "fresh" and r.storage is None]
        if not local:
            return
        intervals = region_intervals(self.body, self.forest)
        spans = [intervals.get(r.value, (0, 0)) for r in local]
        constant_sizes = [self.b.constant_value(r.size) for r in local]
        offsets: list[Value]
        if all(c is not None for c in constant_sizes):
            slices = [Slice(c or 0, s, e) for c, (s, e) in zip(constant_sizes, spans)]
            placed, total_bytes = layout_slices(slices, self.host.alignment)
            offsets = [self.b.index(o) for o in placed]
            total = self.b.index(total_bytes)
        else:
            bounds = tuple(IntegerAttr(x, INDEX) for s, e in spans for x in (s, e))
            pack = self.b.create(
                "stream.resource.pack",
                {"dynamic_slice_sizes": tuple(r.size for r in local)},
                {"total_length": INDEX, "packed_offsets": (INDEX,) * len(local)},
                {"lifetime_intervals": ArrayAttr(bounds), "affinity": self.affinity},
                location=self.op.location,
            )
            total, offsets = pack.results[0], list(pack.results[1:])
        alloca = self.b.create(
            "stream.resource.alloca",
            {"storage_size": total, "await_timepoint": self.original_await},
            {"result": _TRANSIENT},
            {"affinity": self.affinity},
            location=self.op.location,
        )
        self.awaits.append(alloca.results[1])
        arg = Value(_TRANSIENT)
        self.extra.append((alloca.results[0], total, arg))
        for root, offset in zip(local, offsets):
            root.storage = Storage(arg, total, offset)
        self.slab = (alloca.results[0], total)

    def _capture_read_only_constants(self) -> None:
        """Capture the uploads the region reads (or copies from); await the upload then."""
        yield_op = self.body.ops[-1]
        read = [v for op in self.op.walk() if op is not self.op and op is not yield_op for v in op.operands]
        read += [value for value, _, _ in self.final_copies]
        needed: list[Value] = []
        for v in read:
            if isinstance(v.type, ResourceType):
                root = self.roots[self.forest.root(v)[0]]
                if root.kind == "constant" and root.value not in needed:
                    needed.append(root.value)
        needed += [v for v, r in self.roots.items() if r.kind == "fresh" and v in self.uploads and v not in needed]
        for value in needed:
            resource, size = self.uploads[value]
            if resource not in self.upload_args:
                arg = Value(resource.type)
                self.upload_args[resource] = arg
                self.extra.append((resource, size, arg))
            if self.roots[value].kind == "constant":
                self.roots[value].storage = Storage(self.upload_args[resource], size, self.b.index(0))
        if self.upload_args:
            assert self.upload_timepoint is not None
            self.awaits.append(self.upload_timepoint)

    # -- LoweringContext ------------------------------------------------------------------------
    def storage(self, value: Value) -> Storage:
        root_value, terms = self.forest.root(value)
        root = self.roots[root_value]
        base = root.storage
        if base is None:
            raise DiagnosticError.at(self.op.location, "schedule-allocation: internal error: a value has no storage")
        offset = base.offset
        for t in terms:
            offset = self.b.add(offset, self.b.lookup(t))
        return Storage(base.resource, base.size, offset)

    def lookup(self, value: Value) -> Value:
        return self.b.lookup(value)

    def add(self, a: Value, b: Value) -> Value:
        return self.b.add(a, b)

    def constant_storage(self, value: Value) -> Storage | None:
        if self.roots[value].kind != "fresh":
            return None
        resource, size = self.uploads[value]
        return Storage(self.upload_args[resource], size, self.b.index(0))

    # -- emission -----------------------------------------------------------------------------
    def _convert_block(self, block: Block) -> list[Op]:
        ops: list[Op] = []
        for op in block.ops[:-1]:  # the terminator is rebuilt empty
            if op.dialect == "arith":
                continue  # hoisted
            if op.name == "stream.async.concurrent":
                self.in_wave = True
                inner = self._convert_block(op.regions[0].blocks[0])
                self.in_wave = False
                if inner:
                    region = Region.of((), (*inner, build("stream.yield")))
                    ops.append(build("stream.cmd.concurrent", regions=(region,), location=op.location))
                continue
            ops.extend(convert_op(self, op))
        return ops

    def _emit(self, replacements: list[Value]) -> None:
        for c in self.captures:
            p = self.host.pending.get(c)
            if p is not None and p.timepoint not in self.awaits:
                self.awaits.append(p.timepoint)
        args = list(self.body.arguments)
        commands = self._convert_block(self.body)
        for value, dest, size in self.final_copies:
            source, target = self.storage(value), self.roots[dest].storage or self.storage(dest)
            commands.append(build(
                "stream.cmd.copy",
                {
                    "source": source.resource, "source_size": source.size, "source_offset": source.offset,
                    "target": target.resource, "target_size": target.size, "target_offset": target.offset,
                    "length": size,
                },
                location=self.op.location,
            ))
        commands.append(build("stream.yield"))
        operands = self.captures + [outer for outer, _, _ in self.extra]
        sizes = self.capture_sizes + [size for _, size, _ in self.extra]
        block_args = tuple(args + [arg for _, _, arg in self.extra])
        execute = self.b.create(
            "stream.cmd.execute",
            {"resource_operands": tuple(operands), "resource_operand_sizes": tuple(sizes), "await_timepoint": self._join(self.awaits)},
            attrs={"affinity": self.affinity},
            regions=(Region.of(block_args, tuple(commands)),),
            location=self.op.location,
        )
        later = [execute.results[0]]
        if self.slab is not None:
            resource, total = self.slab
            dealloca = self.b.create(
                "stream.resource.dealloca",
                {"operand": resource, "operand_size": total, "await_timepoint": execute.results[0]},
                attrs={"affinity": self.affinity},
                location=self.op.location,
            )
            later.insert(0, dealloca.results[0])
        if self.upload_timepoint is not None and not self.upload_args:
            later.append(self.upload_timepoint)  # consumers of the results expect the uploads
        self.b.bind(self.v.result_timepoint, self._join(later) or execute.results[0])
        for result, replacement in zip(self.v.results, replacements):
            self.b.bind(result, replacement)

    def _join(self, timepoints: list[Value]) -> Value | None:
        unique = list(dict.fromkeys(timepoints))
        if not unique:
            return None
        if len(unique) == 1:
            return unique[0]
        join = self.b.create("stream.timepoint.join", {"await_timepoints": tuple(unique)}, {"result_timepoint": TimepointType()})
        return join.results[0]


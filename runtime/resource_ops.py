"""The host rules of `stream.resource.*` (in `runtime.frame.HOST_RULES`, with those of `runtime.host_ops`).

* queue-ordered `alloca` / `dealloca` are submissions: the alloca reserves pool memory when its
  waits are reached (parking while the pool is full) and gives the storage; the dealloca frees it
  once its waits are reached. A dealloca of storage the function does not own (an import, a
  constant), of an `indeterminate` allocation, or of one already freed is a DOUBLE_FREE;
* `alloc` is a synchronous host allocation; `constants` an upload submission;
* `retain` / `release` count ownership claims; the release that drops the last claim on storage
  the function owns (alloca, alloc) frees it at once, as IREE may (SPEC section 3.3: a later
  access is a USE_AFTER_FREE) - unless it was exported, since the buffer view keeps a claim;
* `subview`, `size`, `pack` (a layout in which slices with intersecting lifetimes get disjoint
  bytes), and the host accesses `load` / `store`.

Every allocation records where it lives (`placement`, from the creating op's affinity) for the
race detector's AFFINITY_MISMATCH check.
"""

from __future__ import annotations

import numpy as np

from runtime.frame import Frame, rule
from runtime.frame import fence as _fence
from runtime.frame import host_access as _host_access
from runtime.frame import lifetime as _lifetime
from runtime.frame import named as _named
from runtime.frame import ref as _ref
from runtime.memory import Allocation, MemoryFault, ResourceRef, dtype_of
from runtime.races import AccessSite
from runtime.scheduler import WorkContext, WorkFailure
from runtime.semaphore import Fence
from runtime.status import ExecutionError, Status, StatusCode
from runtime.values import dense_to_numpy
from stream.ir.attributes import ArrayAttr, DenseAttr
from stream.ir.core import Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.spec import view

__all__ = ["pack_slices", "PACK_ALIGNMENT"]

PACK_ALIGNMENT = 64


@rule("stream.resource.alloca")
def _alloca(fr: Frame, op: Op) -> None:
    v = view(op)
    s = fr.session
    size = int(fr.value(v.storage_size))
    device, _ = s.device_of(op)
    alloc = Allocation(size, device, "alloca", _named(op.results[0], "alloca", op), _lifetime(op.results[0].type),
                       placement=s.devices_of(op), indeterminate="indeterminate_lifetime" in op.properties)
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
        site = AccessSite(f"stream.resource.dealloca of {alloc.label}", str(op.location), component, None, (races.next_seq(), 0), 0)
        if alloc.kind in ("import", "constant"):
            races.double_free(alloc, site, f"{alloc.label} is not a queue-ordered allocation of this program and must not be freed")
        elif alloc.deallocas:
            races.double_free(alloc, site, f"{alloc.label} is freed a second time (first by {alloc.first_free})")
        elif alloc.indeterminate:
            races.double_free(alloc, site, f"{alloc.label} has an `indeterminate` lifetime: only its last release may free it")
    alloc.deallocas += 1
    alloc.first_free = alloc.first_free or f"the dealloca at {op.location}"
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
    alloc = Allocation(size, device, "alloc", _named(op.results[0], "alloc", op), _lifetime(op.results[0].type),
                       placement=s.devices_of(op))
    try:
        alloc.materialize(s.sched.poison)
    except MemoryFault as e:
        pool.release(size)
        raise ExecutionError(Status(StatusCode.RESOURCE_EXHAUSTED, str(e), f"stream.resource.alloc at {op.location}")) from None
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
    last = alloc.refcount <= 0
    fr.env[op.results[0]] = last
    # An exported buffer view holds its own claim (IREE's buffer view retains the buffer).
    if last and alloc.kind in ("alloca", "alloc") and not alloc.deallocas and not alloc.escaped:
        _free_on_release(fr, op, alloc)


def _free_on_release(fr: Frame, op: Op, alloc: Allocation) -> None:
    """The last claim on storage the function owns is gone: free it now (on the host)."""
    s = fr.session
    where = f"stream.resource.release at {op.location}"
    alloc.deallocas += 1
    alloc.first_free = where
    if s.races is not None:
        s.races.on_release_free(alloc, s.races.host_site(f"{where} (the last claim on {alloc.label})", str(op.location)))
    if alloc.state != "live":
        return  # its alloca has not run: the storage does not exist yet (any use of it is reported)
    with s.sched.lock:
        s.pool(alloc.device).release(alloc.size)
        alloc.data = None
        alloc.state = "freed"
        alloc.freed_by = where
        s.sched.retry_parked()
    s.counter(alloc.device)


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
    total, offsets = pack_slices(sizes, intervals, order=fr.session.sched.pack_order(len(sizes)))
    fr.env[op.results[0]] = base + total
    for r, off in zip(op.results[1:], offsets):
        fr.env[r] = base + off


def pack_slices(sizes: list[int], intervals: list[tuple[int, int]], alignment: int = PACK_ALIGNMENT,
                order: list[int] | None = None) -> tuple[int, list[int]]:
    """Offsets for slices with inclusive lifetime intervals: slices whose intervals intersect get
    disjoint byte ranges; others may share bytes. Greedy: in `order` (default: largest slice
    first), each at the lowest aligned offset that clears every already-placed slice it is live
    with. Any order gives a valid layout; the chaos driver picks a random one, since a program
    must not depend on where the pack puts a slice. Returns (total, offsets)."""
    if order is None:
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
        alloc = Allocation(size, device, "constant", f"constant {i} (constants at {op.location})", _lifetime(r.type),
                           placement=s.devices_of(op))
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

"""Semantics of the cmd level: `stream.cmd.*` commands and `stream.resource.*` storage ops.

Memory is explicit (`verify.refinement.memory`): a resource value is storage, `(allocation,
offset)`, through subviews, captures (block arguments are their operands) and ties; commands read
and write byte ranges of it.

* `resource.alloca` / `alloc`: a new allocation of uninitialized bytes; `dealloca`, `retain`,
  `flush`, `invalidate` have no value effect (`discard` makes the range uninitialized again).
* `resource.pack`: the slice offsets and the total are unknowns with the facts a packing
  guarantees: every slice lies in `[offset, total)` and slices whose lifetime intervals intersect
  are disjoint. The refinement therefore holds for every layout the packing may choose.
* `resource.constants`: allocations holding the constant values.
* `cmd.dispatch`: reads its `ro`/`rw` bindings (in binding order; not an `rw` binding its kernel
  overwrites whole, `verify.refinement.overwrites`), then writes to each `wo`/`rw`
  binding `j` the kernel output `dispatch_out(entry, j, reads, uniforms, workload)`: the same
  term `stream.async.dispatch` produces for binding `j`. A binding whose executable addresses it
  through one subspan is read and written as that subspan's bytes, and uniforms used only for
  subspan offsets are not kernel inputs (`verify.refinement.bindings`: FuseDispatchBindings).
* `cmd.copy` / `cmd.fill`: a read then a write / a write of a splat.
* `cmd.execute` runs its body in block order at the point the host issues it (one HB-consistent
  order); `cmd.serial` and `cmd.concurrent` bodies likewise (a race-free wave is order-independent).
"""

from __future__ import annotations

from stream.ir.attributes import ArrayAttr, IntegerAttr
from stream.ir.core import Op
from stream.ir.types import ResourceType
from verify.refinement.bindings import kernel_ranks, narrowed
from verify.refinement.layout import element_width
from verify.refinement.machine import Machine, Res, groups, rule
from verify.refinement.overwrites import overwritten
from verify.refinement.rules_flow import load_scalar, splat_bytes
from verify.refinement.rules_host import constant_bytes
from verify.refinement.rules_tensor import sized
from verify.refinement.solver import Undecided

READ, WRITE = 1, 2


def _alloc(m: Machine, op: Op, kind: str) -> None:
    size = m.integer(groups(op).storage_size)
    m.facts.assume_nonneg(size)
    what = f"{op.name} at {op.location}"
    alloc = m.new_alloc(kind, what, op, size, m.uninit(op, size, what))
    m.set(op.results[0], Res(size, None, alloc, 0, 0, op))
    for r in op.results[1:]:
        m.set(r, None)


@rule("stream.resource.alloca")
def _alloca(m: Machine, op: Op) -> None:
    _alloc(m, op, "alloca")


@rule("stream.resource.alloc")
def _alloc_sync(m: Machine, op: Op) -> None:
    _alloc(m, op, "alloc")


@rule("stream.resource.dealloca", "stream.resource.retain")
def _no_value_effect(m: Machine, op: Op) -> None:
    for r in op.results:
        m.set(r, None)


@rule("stream.resource.release", "stream.resource.is_terminal")
def _ownership_query(m: Machine, op: Op) -> None:
    m.set(op.results[0], m.opaque_result(op, m.opaque_key(op), 0, op.results[0].type))


@rule("stream.resource.size")
def _size(m: Machine, op: Op) -> None:
    m.set(op.results[0], m.res(groups(op).operand).size)


@rule("stream.resource.subview")
def _subview(m: Machine, op: Op) -> None:
    v = groups(op)
    r = sized(m, v.source, v.source_size)
    off, size = m.integer(v.source_offset), m.integer(v.result_size)
    m.in_bounds(off, size, r.size)
    data = None if r.data is None else m.terms.slice(r.data, off, size)
    m.set(op.results[0], Res(size, data, r.alloc, m.ints.add(r.offset, off), r.version, op))


@rule("stream.resource.pack")
def _pack(m: Machine, op: Op) -> None:
    v = groups(op)
    attr = op.properties.get("lifetime_intervals")
    bounds = [a.value for a in attr.elements if isinstance(a, IntegerAttr)] if isinstance(attr, ArrayAttr) else []
    sizes = m.ints_of(v.dynamic_slice_sizes)
    if len(bounds) != 2 * len(sizes):
        raise Undecided(f"{op.name}: {len(bounds)} interval bounds for {len(sizes)} slices")
    base = m.integer(v.offset) if v.offset is not None else 0
    hint = op.results[0].name_hint
    names = [f"%{hint}#{i}" if hint else f"pack@{op.location.line}:{op.location.col}#{i}" for i in range(len(op.results))]
    total = m.ints.sym(("pack", m.program, id(op), "total"), names[0])
    offsets = [m.ints.sym(("pack", m.program, id(op), i), names[i + 1]) for i in range(len(sizes))]
    facts = m.facts
    for o, n in zip(offsets, sizes):
        facts.assume_nonneg(n)
        facts.assume_le(base, o)
        facts.assume_le(m.ints.add(o, n), total)
    intervals = list(zip(bounds[0::2], bounds[1::2]))
    for i in range(len(sizes)):
        for j in range(i + 1, len(sizes)):
            (si, ei), (sj, ej) = intervals[i], intervals[j]
            if si <= ej and sj <= ei:  # inclusive lifetimes intersect: the slices may not share bytes
                facts.assume_disjoint(offsets[i], sizes[i], offsets[j], sizes[j])
    m.set(op.results[0], total)
    for r, o in zip(op.results[1:], offsets):
        m.set(r, o)


@rule("stream.resource.constants")
def _constants(m: Machine, op: Op) -> None:
    v = groups(op)
    values = op.properties.get("values")
    elements = values.elements if isinstance(values, ArrayAttr) else ()
    sizes = m.ints_of(v.result_sizes)
    resources = [r for r in op.results if isinstance(r.type, ResourceType)]
    for i, (r, size) in enumerate(zip(resources, sizes)):
        value = elements[i] if i < len(elements) else None
        base = constant_bytes(m, op, value, size)
        alloc = m.new_alloc("constant", f"constant {i} of {op.name} at {op.location}", op, size, base)
        m.set(r, Res(size, None, alloc, 0, 0, op))
    for r in op.results:
        if not isinstance(r.type, ResourceType):
            m.set(r, None)


@rule("stream.resource.load")
def _load(m: Machine, op: Op) -> None:
    v = groups(op)
    r = sized(m, v.source, v.source_size)
    off = m.integer(v.source_offset)
    width = element_width(op.results[0].type, op.name)
    m.in_bounds(off, width, r.size)
    alloc, base = m.storage(r, op)
    piece = m.memory.read(alloc, m.ints.add(base, off), width)
    m.set(op.results[0], load_scalar(m, piece, op.results[0]))


@rule("stream.resource.store")
def _store(m: Machine, op: Op) -> None:
    v = groups(op)
    r = sized(m, v.target, v.target_size)
    off = m.integer(v.target_offset)
    width = element_width(v.value.type, op.name)
    m.in_bounds(off, width, r.size)
    alloc, base = m.storage(r, op)
    atom = m.note(m.terms.scalar_bytes(m.scalar(v.value), width), op)
    m.write(alloc, m.ints.add(base, off), m.terms.of(atom, width), op)


def _target(m: Machine, op: Op) -> tuple[object, object, object]:
    v = groups(op)
    r = sized(m, v.target, v.target_size)
    off, length = m.integer(v.target_offset), m.integer(v.target_length)
    m.in_bounds(off, length, r.size)
    alloc, base = m.storage(r, op)
    return alloc, m.ints.add(base, off), length


@rule("stream.cmd.flush", "stream.cmd.invalidate")
def _cache_control(m: Machine, op: Op) -> None:
    _target(m, op)  # visibility only: the bytes do not change


@rule("stream.cmd.discard")
def _discard(m: Machine, op: Op) -> None:
    alloc, off, length = _target(m, op)
    m.write(alloc, off, m.uninit(op, length, f"bytes discarded at {op.location}"), op)  # type: ignore[arg-type]


@rule("stream.cmd.fill")
def _fill(m: Machine, op: Op) -> None:
    v = groups(op)
    alloc, off, length = _target(m, op)
    m.write(alloc, off, splat_bytes(m, op, m.scalar(v.value), v.value.type, length), op)  # type: ignore[arg-type]


@rule("stream.cmd.copy")
def _copy(m: Machine, op: Op) -> None:
    v = groups(op)
    source = sized(m, v.source, v.source_size)
    target = sized(m, v.target, v.target_size)
    s_off, t_off, length = m.integer(v.source_offset), m.integer(v.target_offset), m.integer(v.length)
    m.in_bounds(s_off, length, source.size)
    m.in_bounds(t_off, length, target.size)
    s_alloc, s_base = m.storage(source, op)
    t_alloc, t_base = m.storage(target, op)
    data = m.memory.read(s_alloc, m.ints.add(s_base, s_off), length)
    m.write(t_alloc, m.ints.add(t_base, t_off), data, op)


@rule("stream.cmd.dispatch")
def _dispatch(m: Machine, op: Op) -> None:
    v = groups(op)
    sizes, offsets, lengths = m.ints_of(v.resource_sizes), m.ints_of(v.resource_offsets), m.ints_of(v.resource_lengths)
    attr = op.properties.get("resource_accesses")
    accesses = [a.value for a in attr.elements if isinstance(a, IntegerAttr)] if isinstance(attr, ArrayAttr) else []
    if len(accesses) != len(v.resources):
        raise Undecided(f"{op.name}: {len(accesses)} access modes for {len(v.resources)} bindings")
    reads = []
    writes = []
    where = []
    for j, x in enumerate(v.resources):
        r = m.res(x, sizes[j])
        m.facts.assume_nonneg(sizes[j])
        m.in_bounds(offsets[j], lengths[j], r.size)
        alloc, base = m.storage(r, op)
        where.append((alloc, m.ints.add(base, offsets[j])))
    # The kernel's interface: each binding, or each subspan of it (verify.refinement.bindings).
    narrow = narrowed(m, op, len(v.resources))
    if narrow is not None:
        spans = narrow.spans
    else:  # whole bindings, in kernel order when the executable says it
        ranks = kernel_ranks(m, op, len(v.resources))
        order = sorted(range(len(v.resources)), key=lambda j: ranks[j]) if ranks is not None else range(len(v.resources))
        spans = [(j, 0, lengths[j]) for j in order]
    for k, (j, so, length) in enumerate(spans):
        if narrow is not None:
            m.in_bounds(so, length, lengths[j])
        alloc, off = where[j][0], m.ints.add(where[j][1], so)
        # A span (or, unread, a binding) the kernel stores whole is no input: its old bytes cannot matter.
        whole = narrow.stored[k] if narrow is not None else overwritten(m.module, op, j, _const(lengths[j]))
        if accesses[j] & READ and not (accesses[j] & WRITE and whole):
            reads.append(m.memory.read(alloc, off, length))
        if accesses[j] & WRITE:
            writes.append((k, alloc, off, length))
    dropped = narrow.dropped if narrow is not None else frozenset()
    joined = narrow.joined if narrow is not None else {}
    uniforms = [joined[i] if i in joined else m.scalar(u) for i, u in enumerate(v.uniform_operands) if i not in dropped]
    workload = m.ints_of(v.workload)
    for j, alloc, off, length in writes:
        m.write(alloc, off, m.dispatch_out(op, j, reads, uniforms, workload, length), op)


@rule("stream.cmd.execute")
def _execute(m: Machine, op: Op) -> None:
    v = groups(op)
    sizes = m.ints_of(v.resource_operand_sizes)
    captured = [m.res(x, s) for x, s in zip(v.resource_operands, sizes)]
    m.run_block(op.regions[0].block, list(captured))
    m.set(op.results[0], None)


@rule("stream.cmd.serial", "stream.cmd.concurrent")
def _nested(m: Machine, op: Op) -> None:
    m.run_block(op.regions[0].block, [])


def _const(e: object) -> int | None:
    return e if isinstance(e, int) else None

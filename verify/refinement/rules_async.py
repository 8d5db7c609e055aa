"""Semantics of the async level: `stream.async.*` ops on immutable byte strings.

Ranges are `[start to end for length]` in bytes; `end == start + length` is recorded as a fact,
and every range is assumed in bounds (OUT_OF_BOUNDS is the safety checker's property).

* `alloca` is fresh uninitialized memory; `constant`, `splat` build their bytes; `clone`,
  `transfer` are the identity on bytes, `slice` a read of a range; `barrier` and `cast` pass the
  value itself through (they never copy, so storage tracking continues through them).
* `fill`, `update`, `copy`, `store` write a range of their target; the result is tied to the
  target (it *is* the target's storage).
* `dispatch`: bindings are the resource operands in order (each its `[offset for length]` range;
  a tied operand contributes its old contents), then each untied result; a tied result is the
  operand's bytes with the binding range replaced by the kernel's output for that binding.
* `execute` and `concurrent` run their bodies in block order with the captures bound to their
  block arguments; a result is its yielded value (a tied result also lands in the storage of the
  operand it is tied to, unless it already lies there: a subrange of it is the result as it is).
"""

from __future__ import annotations

from stream.ir.core import Op
from stream.ir.types import ResourceType
from verify.refinement.bindings import kernel_ranks
from verify.refinement.ints import IntExpr
from verify.refinement.layout import element_width
from verify.refinement.machine import Machine, Res, groups, rule, tied_in_group
from verify.refinement.overwrites import overwritten
from verify.refinement.rules_flow import load_scalar, splat_bytes
from verify.refinement.rules_host import constant_bytes
from verify.refinement.rules_tensor import sized
from verify.refinement.solver import Undecided
from verify.refinement.terms import ByteStr, Scalar


def _range(m: Machine, start: IntExpr, end: IntExpr | None, length: IntExpr, size: IntExpr) -> None:
    if end is not None:
        m.facts.assume_eq(end, m.ints.add(start, length))
    m.in_bounds(start, length, size)


@rule("stream.async.alloca")
def _alloca(m: Machine, op: Op) -> None:
    size = m.integer(groups(op).storage_size)
    m.facts.assume_nonneg(size)
    m.set(op.results[0], m.fresh(m.uninit(op, size), op))


@rule("stream.async.constant")
def _constant(m: Machine, op: Op) -> None:
    size = m.integer(groups(op).result_size)
    m.set(op.results[0], m.fresh(constant_bytes(m, op, op.properties.get("value"), size), op))


@rule("stream.async.splat")
def _splat(m: Machine, op: Op) -> None:
    v = groups(op)
    size = m.integer(v.result_size)
    m.set(op.results[0], m.fresh(splat_bytes(m, op, m.scalar(v.value), v.value.type, size), op))


@rule("stream.async.clone", "stream.async.transfer")
def _clone(m: Machine, op: Op) -> None:
    v = groups(op)
    r = sized(m, v.source, v.source_size)
    m.set(op.results[0], m.derived(r, m.bytes_of(r), op))


@rule("stream.async.barrier")
def _barrier(m: Machine, op: Op) -> None:
    v = groups(op)
    m.set(op.results[0], sized(m, v.source, v.size))


@rule("stream.async.cast")
def _cast(m: Machine, op: Op) -> None:
    v = groups(op)
    m.set(op.results[0], sized(m, v.source, v.source_size))


@rule("stream.async.slice")
def _slice(m: Machine, op: Op) -> None:
    v = groups(op)
    r = sized(m, v.source, v.source_size)
    start, end, length = m.integer(v.source_offset), m.integer(v.source_end), m.integer(v.result_size)
    _range(m, start, end, length, r.size)
    sliced = m.derived(r, m.terms.slice(m.bytes_of(r), start, length), op, start)
    sliced.written = (0, length)  # the slice moved these bytes (the op to blame if they are misplaced)
    m.set(op.results[0], sliced)


@rule("stream.async.fill")
def _fill(m: Machine, op: Op) -> None:
    v = groups(op)
    r = sized(m, v.target, v.target_size)
    start, end, length = m.integer(v.target_offset), m.integer(v.target_end), m.integer(v.target_length)
    _range(m, start, end, length, r.size)
    piece = splat_bytes(m, op, m.scalar(v.value), v.value.type, length)
    m.set(op.results[0], m.tied(r, m.terms.overwrite(m.bytes_of(r), start, piece), op, (start, m.ints.add(start, length))))


@rule("stream.async.update")
def _update(m: Machine, op: Op) -> None:
    v = groups(op)
    target = sized(m, v.target, v.target_size)
    update = sized(m, v.update, v.update_size)
    start, end = m.integer(v.target_offset), m.integer(v.target_end)
    _range(m, start, end, update.size, target.size)
    data = m.terms.overwrite(m.bytes_of(target), start, m.bytes_of(update))
    m.set(op.results[0], m.tied(target, data, op, (start, m.ints.add(start, update.size))))


@rule("stream.async.copy")
def _copy(m: Machine, op: Op) -> None:
    v = groups(op)
    target = sized(m, v.target, v.target_size)
    source = sized(m, v.source, v.source_size)
    length = m.integer(v.length)
    t_start, s_start = m.integer(v.target_offset), m.integer(v.source_offset)
    _range(m, t_start, m.integer(v.target_end), length, target.size)
    _range(m, s_start, m.integer(v.source_end), length, source.size)
    piece = m.terms.slice(m.bytes_of(source), s_start, length)
    m.set(op.results[0], m.tied(target, m.terms.overwrite(m.bytes_of(target), t_start, piece), op, (t_start, m.ints.add(t_start, length))))


@rule("stream.async.load")
def _load(m: Machine, op: Op) -> None:
    v = groups(op)
    r = sized(m, v.source, v.source_size)
    off = m.integer(v.source_offset)
    width = element_width(op.results[0].type, op.name)
    m.in_bounds(off, width, r.size)
    m.set(op.results[0], load_scalar(m, m.terms.slice(m.bytes_of(r), off, width), op.results[0]))


@rule("stream.async.store")
def _store(m: Machine, op: Op) -> None:
    v = groups(op)
    r = sized(m, v.target, v.target_size)
    off = m.integer(v.target_offset)
    width = element_width(v.value.type, op.name)
    m.in_bounds(off, width, r.size)
    atom = m.note(m.terms.scalar_bytes(m.scalar(v.value), width), op)
    data = m.terms.overwrite(m.bytes_of(r), off, m.terms.of(atom, width))
    m.set(op.results[0], m.tied(r, data, op, (off, m.ints.add(off, width))))


@rule("stream.async.dispatch")
def _dispatch(m: Machine, op: Op) -> None:
    v = groups(op)
    sizes, offsets = m.ints_of(v.resource_operand_sizes), m.ints_of(v.resource_operand_offsets)
    ends, lengths = m.ints_of(v.resource_operand_ends), m.ints_of(v.resource_operand_lengths)
    inputs: list[ByteStr] = []
    bindings: dict[int, tuple[Res, IntExpr, IntExpr]] = {}  # operand position -> (res, offset, length)
    uniforms: list[Scalar] = []
    for i, x in enumerate(v.resource_operands):
        if isinstance(x.type, ResourceType):
            n = len(inputs)
            r = m.res(x, sizes[n])
            m.facts.assume_nonneg(sizes[n])
            _range(m, offsets[n], ends[n], lengths[n], r.size)
            bindings[i] = (r, offsets[n], lengths[n])
            inputs.append(m.terms.slice(m.bytes_of(r), offsets[n], lengths[n]))
        else:
            uniforms.append(m.scalar(x))
    position = {i: n for n, i in enumerate(bindings)}
    # A tied operand the kernel overwrites whole is no input: its old bytes cannot matter
    # (`verify.refinement.overwrites`), as for the `rw` binding it becomes at the cmd level.
    overwrites = {n for i, n in position.items() if any(tied_in_group(op, k) == i for k in range(len(op.results)))
                  and overwritten(m.module, op, n, _const(bindings[i][2]))}
    n_untied = sum(1 for i in range(len(op.results)) if tied_in_group(op, i) is None)
    # Kernel order (verify.refinement.bindings.kernel_ranks): bindings are the resource operands,
    # then the untied results, as ScheduleAllocation lays them out.
    ranks = kernel_ranks(m, op, len(inputs) + n_untied)
    if ranks is not None:
        inputs = [x for _r, _n, x in sorted((ranks[n], n, x) for n, x in enumerate(inputs) if n not in overwrites)]
    elif overwrites:
        inputs = [x for n, x in enumerate(inputs) if n not in overwrites]
    n_operands = len(position)
    workload = m.ints_of(v.workload)
    result_sizes = m.ints_of(v.result_sizes)
    untied = 0
    for i, result in enumerate(op.results):
        k = tied_in_group(op, i)
        if k is not None:
            if k not in bindings:
                raise Undecided(f"{op.name}: result {i} is tied to a non-resource operand")
            r, off, length = bindings[k]
            index = ranks[position[k]] if ranks is not None else position[k]
            out = m.dispatch_out(op, index, inputs, uniforms, workload, length)
            m.set(result, m.tied(r, m.terms.overwrite(m.bytes_of(r), off, out), op, (off, m.ints.add(off, length))))
        else:
            size = result_sizes[i]
            m.facts.assume_nonneg(size)
            index = ranks[n_operands + untied] if ranks is not None else len(inputs) + untied
            out = m.dispatch_out(op, index, inputs, uniforms, workload, size)
            untied += 1
            m.set(result, m.fresh(out, op))


@rule("stream.async.execute", "stream.async.concurrent")
def _region(m: Machine, op: Op) -> None:
    v = groups(op)
    sizes = m.ints_of(v.resource_operand_sizes)
    captured = [m.res(x, s) for x, s in zip(v.resource_operands, sizes)]
    yielded = m.run_block(op.regions[0].block, list(captured))
    results = [r for r in op.results if isinstance(r.type, ResourceType)]
    if len(yielded) != len(results):
        raise Undecided(f"{op.name}: {len(yielded)} yielded values for {len(results)} results")
    for i, (result, y) in enumerate(zip(results, yielded)):
        if not isinstance(y, Res):
            raise Undecided(f"{op.name}: result {i} yields a value the refinement check cannot follow")
        t = tied_in_group(op, i)
        operand = captured[t] if t is not None else None
        if operand is not None and operand.alloc is not None and y.alloc is not operand.alloc:
            out = m.tied(operand, m.bytes_of(y), op)  # the yielded bytes land in the operand's storage
        else:
            # Yielded from the tied operand's own storage (at its offset, or at a subrange of it,
            # as IREE #14685 lowers it): the result is that value where it lies.
            out = Res(y.size, y.data, y.alloc, y.offset, y.version, op)
        # For reports, the region is where its results were routed from the yielded values.
        out.source, out.written = y, (0, y.size)
        m.set(result, out)
    for r in op.results:
        if not isinstance(r.type, ResourceType):
            m.set(r, None)


def _const(e: object) -> int | None:
    return e if isinstance(e, int) else None

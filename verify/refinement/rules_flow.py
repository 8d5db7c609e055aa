"""Semantics of the input level: `flow.*` ops on value-semantic tensors.

A tensor is the row-major bytes of its elements; its size comes from its type and the `{%d}`
dims its user spells. Tensors are values (a tied `flow.dispatch` result is a new value; whether
the caller's buffer is written is decided by the ABI, see `verify.refinement.check`).

`flow.dispatch @k(args)`: bindings are the tensor arguments in order, then each untied result;
the uniforms are the scalar arguments in order, then (the lowering convention of
docs/CONVENTIONS.md) the dynamic dims of the bindings' types in binding order: the tensor
arguments' dims, then the untied results' dims.
"""

from __future__ import annotations

from stream.ir.core import Op, Value
from stream.ir.types import IndexType, IntegerType, TensorType
from verify.refinement.ints import IntExpr
from verify.refinement.layout import element_offset, element_width, runs, scalar_pattern, shape_of, split_dims, tensor_bytes
from verify.refinement.machine import Machine, Res, groups, rule, tied_in_group
from verify.refinement.solver import Undecided
from verify.refinement.terms import Atom, ByteStr, Scalar


def tensor(m: Machine, v: Value, dims: list[IntExpr], what: str) -> Res:
    """The tensor value `v`, whose dims are `dims` (a function argument is created here)."""
    t = v.type
    if not isinstance(t, TensorType):
        raise Undecided(f"{what}: {v} is not a tensor")
    size = tensor_bytes(m.ints, t, dims, what)
    for d in dims:
        m.facts.assume_nonneg(d)
    return m.res(v, size)


def load_scalar(m: Machine, piece: ByteStr, result: Value) -> Scalar:
    text = f"load({m.terms.render(piece, 0)} : {result.type})"
    if isinstance(result.type, (IndexType, IntegerType)):
        return m.ints.sym(("load", piece, str(result.type)), text)
    return m.terms.scalar("load", (piece, str(result.type)), text)


def splat_bytes(m: Machine, op: Op, value: Scalar, value_type: object, size: IntExpr) -> ByteStr:
    pattern = scalar_pattern(value, value_type)  # type: ignore[arg-type]
    atom: Atom
    if pattern is not None:
        atom = m.terms.splat(pattern)
    else:
        atom = m.terms.scalar_bytes(value, element_width(value_type, op.name))  # type: ignore[arg-type]
    m.note(atom, op)
    return m.terms.of(atom, size)


def gather(m: Machine, source: ByteStr, pieces: list[tuple[IntExpr, IntExpr]]) -> ByteStr:
    return m.terms.concat(m.terms.slice(source, off, n) for off, n in pieces)


def scatter(m: Machine, target: ByteStr, pieces: list[tuple[IntExpr, IntExpr]], update: ByteStr) -> ByteStr:
    pos: IntExpr = 0
    for off, n in pieces:
        target = m.terms.overwrite(target, off, m.terms.slice(update, pos, n))
        pos = m.ints.add(pos, n)
    return target


def box_runs(m: Machine, t: TensorType, dims: list[IntExpr], starts: list[IntExpr], lengths: list[IntExpr], size: IntExpr, what: str) -> list[tuple[IntExpr, IntExpr]]:
    shape = shape_of(t, dims, what)
    for s in starts:
        m.facts.assume_nonneg(s)
    for s, n, d in zip(starts, lengths, shape):
        m.facts.assume_le(m.ints.add(s, n), d)
    out = runs(m.ints, m.facts, shape, starts, lengths, element_width(t, what), what)
    for off, n in out:
        m.in_bounds(off, n, size)
    return out


@rule("flow.dispatch")
def _dispatch(m: Machine, op: Op) -> None:
    v = groups(op)
    args = list(v.arguments)
    arg_dims = m.ints_of(v.argument_dims)
    per_arg = split_dims([a.type for a in args], arg_dims)
    inputs: list[ByteStr] = []
    operands: dict[int, Res] = {}
    binding_of: dict[int, int] = {}
    uniforms: list[Scalar] = []
    for i, a in enumerate(args):
        if isinstance(a.type, TensorType):
            r = tensor(m, a, per_arg[i], op.name)
            operands[i] = r
            binding_of[i] = len(inputs)
            inputs.append(m.bytes_of(r))
        else:
            uniforms.append(m.scalar(a))
    uniforms.extend(arg_dims)
    result_dims = split_dims([r.type for r in op.results], m.ints_of(v.result_dims))
    ties = [tied_in_group(op, i) for i in range(len(op.results))]
    for i, t in enumerate(ties):
        if t is None:
            uniforms.extend(result_dims[i])
    workload = m.ints_of(v.workload)
    untied = 0
    for i, result in enumerate(op.results):
        k = ties[i]
        if k is not None:
            if k not in operands:
                raise Undecided(f"{op.name}: result {i} is tied to a non-tensor operand")
            r = operands[k]
            out = m.dispatch_out(op, binding_of[k], inputs, uniforms, workload, r.size)
            m.set(result, m.tied(r, out, op))
        else:
            rt = result.type
            assert isinstance(rt, TensorType)
            size = tensor_bytes(m.ints, rt, result_dims[i], op.name)
            out = m.dispatch_out(op, len(inputs) + untied, inputs, uniforms, workload, size)
            untied += 1
            m.set(result, m.fresh(out, op))


@rule("flow.tensor.transfer", "flow.tensor.clone")
def _copy(m: Machine, op: Op) -> None:
    v = groups(op)
    r = tensor(m, v.operand, m.ints_of(v.operand_dims), op.name)
    m.set(op.results[0], m.derived(r, m.bytes_of(r), op))


@rule("flow.tensor.splat")
def _splat(m: Machine, op: Op) -> None:
    v = groups(op)
    t = op.results[0].type
    assert isinstance(t, TensorType)
    size = tensor_bytes(m.ints, t, m.ints_of(v.result_dims), op.name)
    m.set(op.results[0], m.fresh(splat_bytes(m, op, m.scalar(v.value), t.element, size), op))


@rule("flow.tensor.empty")
def _empty(m: Machine, op: Op) -> None:
    v = groups(op)
    t = op.results[0].type
    assert isinstance(t, TensorType)
    size = tensor_bytes(m.ints, t, m.ints_of(v.result_dims), op.name)
    m.set(op.results[0], m.fresh(m.uninit(op, size), op))


@rule("flow.tensor.slice")
def _slice(m: Machine, op: Op) -> None:
    v = groups(op)
    t = v.source.type
    dims = m.ints_of(v.source_dims)
    src = tensor(m, v.source, dims, op.name)
    pieces = box_runs(m, t, dims, m.ints_of(v.start_indices), m.ints_of(v.lengths), src.size, op.name)
    m.set(op.results[0], m.fresh(gather(m, m.bytes_of(src), pieces), op))


@rule("flow.tensor.update")
def _update(m: Machine, op: Op) -> None:
    v = groups(op)
    t = v.target.type
    dims = m.ints_of(v.target_dims)
    target = tensor(m, v.target, dims, op.name)
    update_dims = m.ints_of(v.update_dims)
    update = tensor(m, v.update, update_dims, op.name)
    ut = v.update.type
    assert isinstance(ut, TensorType)
    lengths = shape_of(ut, update_dims, op.name)
    pieces = box_runs(m, t, dims, m.ints_of(v.start_indices), lengths, target.size, op.name)
    data = scatter(m, m.bytes_of(target), pieces, m.bytes_of(update))
    m.set(op.results[0], m.tied(target, data, op))


@rule("flow.tensor.load")
def _load(m: Machine, op: Op) -> None:
    v = groups(op)
    t = v.source.type
    dims = m.ints_of(v.source_dims)
    src = tensor(m, v.source, dims, op.name)
    width = element_width(t, op.name)
    off = element_offset(m.ints, shape_of(t, dims, op.name), m.ints_of(v.indices), width)
    m.in_bounds(off, width, src.size)
    piece = m.terms.slice(m.bytes_of(src), off, width)
    m.set(op.results[0], load_scalar(m, piece, op.results[0]))


@rule("flow.tensor.store")
def _store(m: Machine, op: Op) -> None:
    v = groups(op)
    t = v.target.type
    dims = m.ints_of(v.target_dims)
    target = tensor(m, v.target, dims, op.name)
    width = element_width(t, op.name)
    off = element_offset(m.ints, shape_of(t, dims, op.name), m.ints_of(v.indices), width)
    m.in_bounds(off, width, target.size)
    atom = m.note(m.terms.scalar_bytes(m.scalar(v.value), width), op)
    data = m.terms.overwrite(m.bytes_of(target), off, m.terms.of(atom, width))
    m.set(op.results[0], m.tied(target, data, op))

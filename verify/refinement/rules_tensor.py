"""Semantics of the tensor level: `stream.tensor.*` ops (and the ABI ops `tensor.import/export`,
which live on at every stream level).

An import of function argument `p` is the caller's buffer: one storage per argument, initially
`arg_p`, borrowed unless imported with `consume`. At the value levels the imported resource is
also a value (its bytes at the import); at the cmd level it is only storage. An export hands out
a resource: its bytes at the export (value levels) or its storage's bytes when the function ends
(cmd level, where the caller reads the buffer after the call).

Tensor-typed ops here follow the input level's layout rules (`verify.refinement.rules_flow`);
`stream.tensor.dispatch` numbers bindings and uniforms like `flow.dispatch`, taking the dims from
the operand and result encodings. Those dims are streamproof's convention (its encode-tensors
appends them as trailing operands); IREE's encode-host-tensors drops them, so a kernel called
without them is undecided against one called with them, not different (see `compare`).
"""

from __future__ import annotations

from stream.ir.attributes import ArrayAttr, TypeAttr
from stream.ir.core import Op
from stream.ir.types import IntegerType, ResourceType, TensorType, Type, packed_bits
from verify.refinement.ints import IntExpr, Poly
from verify.refinement.layout import element_offset, element_width, shape_of, split_dims, tensor_bytes
from verify.refinement.machine import BufView, Machine, Res, groups, rule, tied_in_group
from verify.refinement.rules_flow import box_runs, gather, load_scalar, scatter, splat_bytes
from verify.refinement.rules_host import constant_bytes
from verify.refinement.solver import Undecided
from verify.refinement.terms import ByteStr, Scalar


def encoding(op: Op, name: str) -> TensorType:
    attr = op.properties.get(name)
    if isinstance(attr, TypeAttr) and isinstance(attr.type, TensorType):
        return attr.type
    raise Undecided(f"{op.name}: '{name}' is not a tensor type ({attr})")


def sized(m: Machine, v: object, size_value: object) -> Res:
    size = m.integer(size_value)  # type: ignore[arg-type]
    m.facts.assume_nonneg(size)
    return m.res(v, size)  # type: ignore[arg-type]


def encoded(m: Machine, r: Res, t: TensorType, dims: list[IntExpr], op: Op) -> None:
    """BEFORE's resource holding a dense tensor is that tensor's encoded size (IREE's contract:
    a tensor's resource size is its `stream.tensor.sizeof`); AFTER is held to it, not given it.
    A size provably different is a program the check does not model (undecided)."""
    if m.program != "before" or t.encoding is not None or packed_bits(t) is not None:
        return
    try:
        expected = tensor_bytes(m.ints, t, dims, op.name)
    except Undecided:
        return
    if m.facts.eq(r.size, expected) is False:
        raise Undecided(f"{op.name}: {t} is held in a resource of {m.ints.render(r.size)} bytes, not its "
                        f"encoded {m.ints.render(expected)}")
    m.facts.assume_eq(r.size, expected)


@rule("stream.tensor.import")
def _import(m: Machine, op: Op) -> None:
    v = groups(op)
    size = m.integer(v.result_size)
    m.facts.assume_nonneg(size)
    source = m.entry(v.source)
    consume = "consume" in op.properties
    if isinstance(source, BufView) and source.arg is not None:
        p = source.arg
        alloc = m.arg_allocs.get(p)
        if alloc is None:
            name = f"%{v.source.name_hint}" if v.source.name_hint else f"argument {p}"
            base = m.terms.of(m.terms.arg(p), size)
            alloc = m.new_alloc("import", f"the caller's buffer {name} (imported at {op.location})", op, size, base, p, fresh=False)
            m.arg_allocs[p] = alloc
        alloc.consumed = alloc.consumed or consume
        alloc.borrowed = alloc.borrowed or not consume
        data = None if m.memory_mode else m.memory.read(alloc, 0, size)
        m.set(op.results[0], Res(size, data, alloc, 0, alloc.version, op))
    elif isinstance(source, BufView) and source.res is not None:
        m.set(op.results[0], source.res)  # a round trip through a buffer view of our own
    else:
        m.set(op.results[0], m.opaque_result(op, m.opaque_key(op), 0, op.results[0].type))


@rule("stream.tensor.export")
def _export(m: Machine, op: Op) -> None:
    v = groups(op)
    r = sized(m, v.source, v.source_size)
    if r.alloc is not None:
        r.alloc.exported = True
    view_ = BufView(res=r, data=None if r.data is None else m.bytes_of(r), export=op)
    m.exports.append(view_)
    m.set(op.results[0], view_)


@rule("stream.tensor.sizeof")
def _sizeof(m: Machine, op: Op) -> None:
    v = groups(op)
    t = encoding(op, "encoding")
    dims = m.ints_of(v.encoding_dims)
    if t.encoding is not None and packed_bits(t) is None:
        text = f"sizeof({t})"
        m.set(op.results[0], m.ints.sym(("sizeof", str(t), tuple(dims)), text))
    else:
        m.set(op.results[0], tensor_bytes(m.ints, t, dims, op.name))


@rule("stream.tensor.empty")
def _empty(m: Machine, op: Op) -> None:
    size = m.integer(groups(op).result_size)
    m.set(op.results[0], m.fresh(m.uninit(op, size), op))


@rule("stream.tensor.constant")
def _constant(m: Machine, op: Op) -> None:
    v = groups(op)
    t = encoding(op, "result_encoding")
    size = tensor_bytes(m.ints, t, m.ints_of(v.result_encoding_dims), op.name)
    m.set(op.results[0], m.fresh(constant_bytes(m, op, op.properties.get("value"), size), op))


@rule("stream.tensor.splat")
def _splat(m: Machine, op: Op) -> None:
    v = groups(op)
    t = encoding(op, "result_encoding")
    size = m.integer(v.result_size)
    value, value_type = m.scalar(v.value), t.element
    bits = packed_bits(t)
    if bits is not None:
        # IREE's packed splat byte (EncodeTensors' canonicalizeFillPattern): the element
        # zero-extended to i8, then `p = (p << bits) | v` once per further element of the byte.
        if type(value) is not int and not isinstance(value, Poly):
            raise Undecided(f"{op.name}: a splat of {t} by a value that is not an integer")
        pattern: IntExpr = value  # type: ignore[assignment]
        for _ in range(8 // bits - 1):
            pattern = m.ints.apply("ori", m.ints.apply("shli", pattern, bits), value)  # type: ignore[arg-type]
        value, value_type = pattern, IntegerType(8)
    m.set(op.results[0], m.fresh(splat_bytes(m, op, value, value_type, size), op))


@rule("stream.tensor.clone")
def _clone(m: Machine, op: Op) -> None:
    v = groups(op)
    src, dst = encoding(op, "source_encoding"), encoding(op, "result_encoding")
    if src.encoding is not None or dst.encoding is not None:
        raise Undecided(f"{op.name}: a clone between encodings {src} and {dst} changes bytes in an unknown way")
    r = sized(m, v.source, v.source_size)
    # Dense row-major tensors of one byte size have the same bytes whatever their shape.
    m.set(op.results[0], m.derived(r, m.bytes_of(r), op))


def _box(m: Machine, op: Op, t: TensorType, dims: list[IntExpr], starts: list[IntExpr], lengths: list[IntExpr], size: IntExpr) -> list[tuple[IntExpr, IntExpr]]:
    return box_runs(m, t, dims, starts, lengths, size, op.name)


@rule("stream.tensor.slice")
def _slice(m: Machine, op: Op) -> None:
    v = groups(op)
    t = encoding(op, "source_encoding")
    r = sized(m, v.source, v.source_size)
    encoded(m, r, t, m.ints_of(v.source_encoding_dims), op)
    pieces = _box(m, op, t, m.ints_of(v.source_encoding_dims), m.ints_of(v.start_indices), m.ints_of(v.lengths), r.size)
    m.set(op.results[0], m.fresh(gather(m, m.bytes_of(r), pieces), op))


@rule("stream.tensor.fill")
def _fill(m: Machine, op: Op) -> None:
    v = groups(op)
    t = encoding(op, "target_encoding")
    dims = m.ints_of(v.target_encoding_dims)
    r = sized(m, v.target, v.target_size)
    encoded(m, r, t, dims, op)
    starts, lengths = m.ints_of(v.start_indices), m.ints_of(v.lengths)
    if not starts:
        shape = shape_of(t, dims, op.name)
        starts, lengths = [0] * len(shape), shape
    pieces = _box(m, op, t, dims, starts, lengths, r.size)
    total = m.ints.sum(n for _, n in pieces)
    fill = splat_bytes(m, op, m.scalar(v.value), t.element, total)
    m.set(op.results[0], m.tied(r, scatter(m, m.bytes_of(r), pieces, fill), op))


@rule("stream.tensor.update")
def _update(m: Machine, op: Op) -> None:
    v = groups(op)
    t = encoding(op, "target_encoding")
    ut = encoding(op, "update_encoding")
    target = sized(m, v.target, v.target_size)
    update = sized(m, v.update, v.update_size)
    encoded(m, target, t, m.ints_of(v.target_encoding_dims), op)
    encoded(m, update, ut, m.ints_of(v.update_encoding_dims), op)
    lengths = shape_of(ut, m.ints_of(v.update_encoding_dims), op.name)
    pieces = _box(m, op, t, m.ints_of(v.target_encoding_dims), m.ints_of(v.start_indices), lengths, target.size)
    m.set(op.results[0], m.tied(target, scatter(m, m.bytes_of(target), pieces, m.bytes_of(update)), op))


@rule("stream.tensor.load")
def _load(m: Machine, op: Op) -> None:
    v = groups(op)
    t = encoding(op, "source_encoding")
    r = sized(m, v.source, v.source_size)
    width = element_width(t, op.name)
    off = element_offset(m.ints, shape_of(t, m.ints_of(v.source_encoding_dims), op.name), m.ints_of(v.indices), width)
    m.in_bounds(off, width, r.size)
    m.set(op.results[0], load_scalar(m, m.terms.slice(m.bytes_of(r), off, width), op.results[0]))


@rule("stream.tensor.store")
def _store(m: Machine, op: Op) -> None:
    v = groups(op)
    t = encoding(op, "target_encoding")
    r = sized(m, v.target, v.target_size)
    width = element_width(t, op.name)
    off = element_offset(m.ints, shape_of(t, m.ints_of(v.target_encoding_dims), op.name), m.ints_of(v.indices), width)
    m.in_bounds(off, width, r.size)
    atom = m.note(m.terms.scalar_bytes(m.scalar(v.value), width), op)
    data = m.terms.overwrite(m.bytes_of(r), off, m.terms.of(atom, width))
    m.set(op.results[0], m.tied(r, data, op))


def _encodings(op: Op, name: str) -> list[Type]:
    attr = op.properties.get(name)
    if not isinstance(attr, ArrayAttr):
        return []
    return [a.type if isinstance(a, TypeAttr) else None for a in attr.elements]  # type: ignore[misc]


@rule("stream.tensor.dispatch")
def _dispatch(m: Machine, op: Op) -> None:
    v = groups(op)
    mixed = list(v.mixed_operands)
    sizes = m.ints_of(v.operand_sizes)
    operand_dims = m.ints_of(v.operand_encoding_dims)
    result_dims = split_dims(_encodings(op, "result_encodings"), m.ints_of(v.result_encoding_dims))
    inputs: list[ByteStr] = []
    operands: dict[int, Res] = {}
    binding_of: dict[int, int] = {}
    uniforms: list[Scalar] = []
    for i, x in enumerate(mixed):
        if isinstance(x.type, ResourceType):
            r = m.res(x, sizes[len(inputs)])
            operands[i] = r
            binding_of[i] = len(inputs)
            inputs.append(m.bytes_of(r))
        else:
            uniforms.append(m.scalar(x))
    explicit = len(uniforms)
    uniforms.extend(operand_dims)
    ties = [tied_in_group(op, i) for i in range(len(op.results))]
    for i, t in enumerate(ties):
        if t is None and i < len(result_dims):
            uniforms.extend(result_dims[i])
    implicit = len(uniforms) - explicit
    result_sizes = m.ints_of(v.result_sizes)
    workload = m.ints_of(v.workload)
    untied = 0
    for i, result in enumerate(op.results):
        k = ties[i]
        if k is not None:
            if k not in operands:
                raise Undecided(f"{op.name}: result {i} is tied to a non-resource operand")
            r = operands[k]
            m.set(result, m.tied(r, m.dispatch_out(op, binding_of[k], inputs, uniforms, workload, r.size, implicit), op))
        else:
            size = result_sizes[i]
            m.facts.assume_nonneg(size)
            out = m.dispatch_out(op, len(inputs) + untied, inputs, uniforms, workload, size, implicit)
            untied += 1
            m.set(result, m.fresh(out, op))

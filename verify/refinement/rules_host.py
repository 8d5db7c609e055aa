"""Semantics of host ops: constants, index arithmetic, returns, timepoints, and opaque ops.

Index arithmetic builds `IntExpr` polynomials (`addi`/`subi`/`muli` exactly, the other integer
ops as folded constants or `apply` Syms that Z3 knows). Floating-point and other scalar ops
become pure scalar terms (equal operands give equal results). Timepoints carry no value:
`timepoint.await` and `timepoint.barrier` pass their resources through (the result *is* the
operand), the other timeline ops have no value effect. An op without a rule is opaque (see
`Machine.opaque_key`).
"""

from __future__ import annotations

import re
from typing import Any

from stream.ir.attributes import ArrayAttr, Attribute, BoolAttr, DenseAttr, FloatAttr, IntegerAttr, TypeAttr, float_bits
from stream.ir.core import Op
from stream.ir.rule_table import RuleTable
from stream.ir.types import ComplexType, FloatType, IndexType, IntegerType, TensorType, TimepointType, element_byte_width
from verify.refinement.ints import IntExpr, Poly
from verify.refinement.layout import decode_dense, tensor_bytes
from verify.refinement.machine import RULES, BufView, Machine, Res, float_scalar, groups, rule
from verify.refinement.terms import ByteStr, ScalarTerm

POLY_OPS: RuleTable[str] = RuleTable(
    "POLY_OPS",
    """The polynomial operation (`add`, `sub`, `mul` of `verify.refinement.ints`) computing the
    integer arith op exactly; an op without one is applied as an uninterpreted function.""",
    policy="identity",
    entries={"arith.addi": "add", "arith.subi": "sub", "arith.muli": "mul"},
)
_APPLY_OPS = (
    "divui", "divsi", "floordivsi", "ceildivui", "ceildivsi", "remui", "remsi", "minui", "minsi", "maxui", "maxsi",
    "andi", "ori", "xori", "shli", "shrui", "shrsi",
)  # fmt: skip
_FLOAT_OPS = ("addf", "subf", "mulf", "divf", "maximumf", "minimumf", "maxnumf", "minnumf")
_CASTS = ("index_cast", "index_castui", "extui", "extsi")
_SCALAR_CASTS = ("trunci", "sitofp", "uitofp", "fptosi", "fptoui", "extf", "truncf")


# `#stream.parameter.named<"scope"::"key"> : type` (or without the scope), escape-free strings.
_NAMED_PARAMETER = re.compile(r'#stream\.parameter\.named<(?:"([^"\\]*)"::)?"([^"\\]*)">(?:\s*:.*)?\Z', re.S)


def buffer_string(m: Machine, text: str) -> ScalarTerm:
    """The value of `util.buffer.constant` holding `text` (a parameter scope or key)."""
    return m.terms.scalar("buffer", (text,), repr(text))


def parameter_atom(m: Machine, op: Op, name: tuple[Any, Any]) -> Any:
    """The contents of the parameter `name` = (scope, key), as the caller's values spell them."""
    return m.note(m.terms.opaque(("parameter", name), "parameter"), op)


def constant_bytes(m: Machine, op: Op, value: Attribute | None, size: IntExpr) -> ByteStr:
    """`size` bytes of a constant attribute: its decoded bytes (so that one constant spelled two
    ways, or a splat constant and a splat, compare equal), else its text. A named parameter
    (`stream.resource.constants` and `async.constant` values before IREE turns them into
    `cmd.parameter.load`s of `util.buffer.constant` names) is the parameter's bytes from 0."""
    named = _NAMED_PARAMETER.match(str(value)) if value is not None and not isinstance(value, DenseAttr) else None
    if named is not None:
        scope = buffer_string(m, named.group(1)) if named.group(1) is not None else None
        return m.terms.of(parameter_atom(m, op, (scope, buffer_string(m, named.group(2)))), size)
    decoded = decode_dense(value) if isinstance(value, DenseAttr) else None
    atom = m.note(m.terms.const(decoded if decoded is not None else str(value)), op)
    return m.terms.of(atom, size)


@rule("arith.constant")
def _constant(m: Machine, op: Op) -> None:
    value = op.properties.get("value")
    result = op.results[0]
    if isinstance(value, BoolAttr):
        m.set(result, int(value.value))
    elif isinstance(value, IntegerAttr):
        m.set(result, value.value)
    elif isinstance(value, FloatAttr):
        m.set(result, float_scalar(m.terms, value))
    elif isinstance(value, DenseAttr) and isinstance(result.type, TensorType):
        size = tensor_bytes(m.ints, result.type, [], "arith.constant")
        m.set(result, Res(size, constant_bytes(m, op, value, size), producer=op))
    else:
        m.set(result, m.terms.scalar("const", (str(value),), str(value)))


def _binary(m: Machine, op: Op) -> None:
    short = op.name.split(".", 1)[1]
    a, b = op.operands
    result = op.results[0]
    if isinstance(result.type, (IndexType, IntegerType)):
        x, y = m.integer(a), m.integer(b)
        poly = POLY_OPS.get(op.name)
        m.set(result, getattr(m.ints, poly)(x, y) if poly else m.ints.apply(short, x, y))
    else:
        x2, y2 = m.scalar(a), m.scalar(b)
        m.set(result, m.terms.scalar("apply", (short, x2, y2), f"{short}({m.terms.render_scalar(x2)}, {m.terms.render_scalar(y2)})"))


for _name in ("addi", "subi", "muli", *_APPLY_OPS, *_FLOAT_OPS):
    rule(f"arith.{_name}")(_binary)

_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


@rule("arith.cmpi")
def _cmpi(m: Machine, op: Op) -> None:
    # An integer term (0 or 1), so that branches on it can be decided or split on.
    predicate = op.properties.get("predicate")
    a, b = (m.entry(v) for v in op.operands)
    known = all(type(x) is int or isinstance(x, Poly) for x in (a, b))
    if not known or not isinstance(predicate, IntegerAttr) or not 0 <= predicate.value < len(_PREDICATES):
        _opaque(m, op)
        return
    m.set(op.results[0], m.ints.apply(f"cmpi_{_PREDICATES[predicate.value]}", a, b))  # type: ignore[arg-type]


@rule(*(f"arith.{n}" for n in _CASTS))
def _int_cast(m: Machine, op: Op) -> None:
    # Index and integer values are modelled as mathematical integers: widening casts and index
    # casts keep the value (a program whose sizes overflow is out of scope).
    m.set(op.results[0], m.integer(op.operands[0]))


@rule(*(f"arith.{n}" for n in _SCALAR_CASTS))
def _scalar_cast(m: Machine, op: Op) -> None:
    short = op.name.split(".", 1)[1]
    x = m.scalar(op.operands[0])
    result = op.results[0]
    text = f"{short}({m.terms.render_scalar(x)} to {result.type})"
    if isinstance(result.type, (IndexType, IntegerType)):
        m.set(result, m.ints.sym(("cast", short, x, str(result.type)), text))
    else:
        m.set(result, m.terms.scalar("apply", (short, x, str(result.type)), text))


@rule("complex.constant")
def _complex_constant(m: Machine, op: Op) -> None:
    """The bits of both parts, the real part low (as they lie in memory): a `complex.bitcast` of it
    to i64 is then the pattern integer IREE's encoding splats."""
    value = op.properties.get("value")
    t = op.results[0].type
    parts = value.elements if isinstance(value, ArrayAttr) else ()
    part_type = t.element if isinstance(t, ComplexType) else None
    if len(parts) != 2 or not isinstance(part_type, FloatType) or not all(isinstance(p, FloatAttr) for p in parts):
        m.set(op.results[0], m.terms.scalar("const", (str(value), str(t)), str(value)))
        return
    half = element_byte_width(part_type)
    assert half is not None
    re, im = (float_bits(p.value, part_type) for p in parts)  # type: ignore[attr-defined]
    m.set(op.results[0], m.terms.scalar("bits", (2 * half, re | im << (8 * half)), f"{value} : {t}"))


@rule("complex.create")
def _complex_create(m: Machine, op: Op) -> None:
    re, im = (m.scalar(v) for v in op.operands)
    text = f"complex({m.terms.render_scalar(re)}, {m.terms.render_scalar(im)})"
    m.set(op.results[0], m.terms.scalar("apply", ("complex.create", re, im, str(op.results[0].type)), text))


@rule("arith.bitcast", "complex.bitcast")
def _bitcast(m: Machine, op: Op) -> None:
    """The same bits under another type: a float constant becomes the integer of its bits and back;
    an unknown value keeps its term (a splat or store of either writes the same bytes)."""
    x = m.scalar(op.operands[0])
    t = op.results[0].type
    width = element_byte_width(t)
    if isinstance(t, (IndexType, IntegerType)) and isinstance(x, ScalarTerm) and x.kind == "bits" and x.payload[0] == width:
        m.set(op.results[0], x.payload[1])
    elif isinstance(t, FloatType) and type(x) is int and width is not None:
        bits = x % (1 << (8 * width))
        m.set(op.results[0], m.terms.scalar("bits", (width, bits), f"bitcast({bits} : {t})"))
    else:
        m.set(op.results[0], x)


@rule("arith.select")
def _select(m: Machine, op: Op) -> None:
    c, a, b = op.operands
    result = op.results[0]
    if isinstance(result.type, TimepointType):  # a choice of timeline position: no value effect
        m.set(result, None)
        return
    if isinstance(result.type, (IndexType, IntegerType)):
        m.set(result, m.ints.apply("select", m.integer(c), m.integer(a), m.integer(b)))
        return
    cond = m.integer(c)
    if type(cond) is int:
        m.set(result, m.entry(a) if cond else m.entry(b))
        return
    x, y = m.scalar(a), m.scalar(b)
    m.set(result, m.terms.scalar("apply", ("select", cond, x, y), f"select({m.ints.render(cond)}, ...)"))


@rule("hal.element_type", "hal.encoding_type")
def _hal_type_code(m: Machine, op: Op) -> None:
    # Pure codes of a type or encoding: equal attributes give equal codes.
    attr = op.properties.get("type") or op.properties.get("encoding")
    text = f"{op.name}<{attr.type if isinstance(attr, TypeAttr) else attr}>"
    m.set(op.results[0], m.ints.sym(("hal", op.name, str(attr)), text))


@rule("hal.buffer_view.assert")
def _assert(m: Machine, op: Op) -> None:
    # A shape/type check of a caller's buffer view: no value effect. (The refinement is about
    # executions in which the checks pass, as IREE's runtime aborts otherwise.)
    return


@rule("cf.assert")
def _cf_assert(m: Machine, op: Op) -> None:
    # A runtime check, like hal.buffer_view.assert: no value effect (and no opaque op: the
    # number of checks differs between stages, and opaque results are numbered by the world).
    return


@rule("hal.buffer_view.dim")
def _buffer_view_dim(m: Machine, op: Op) -> None:
    """A dim of a caller's buffer view: one unknown per (buffer view, index), the same in both
    programs (it is not an opaque op, whose results depend on what ran before it)."""
    attr = op.properties.get("index")
    index = attr.value if isinstance(attr, IntegerAttr) else str(attr)
    view = m.entry(op.operands[0])
    key = ("arg", view.arg) if isinstance(view, BufView) and view.arg is not None else m.operand_key(op.operands[0])
    label = f"dim{index}(arg{view.arg})" if isinstance(view, BufView) and view.arg is not None else f"dim{index}"
    dim = m.ints.sym(("hal.buffer_view.dim", key, index), label)
    m.facts.assume_nonneg(dim)
    m.set(op.results[0], dim)


@rule("util.align")
def _align(m: Machine, op: Op) -> None:
    """`util.align`: folded when both are known; else `align(v, n)`, which Z3 reads as
    `((v + n - 1) / n) * n` for a constant power-of-two `n` (verify.refinement.ints)."""
    m.set(op.results[0], m.ints.apply("align", m.integer(op.operands[0]), m.integer(op.operands[1])))


@rule("util.assume.int")
def _assume_int(m: Machine, op: Op) -> None:
    # The results are the operands. (No facts: an assumption AFTER makes that BEFORE does not
    # would be undefined behaviour AFTER adds, which a refinement may not assume away.)
    for r, v in zip(op.results, op.operands):
        m.set(r, m.entry(v))


@rule("func.return", "util.return")
def _return(m: Machine, op: Op) -> None:
    m.results = [m.entry(v) for v in op.operands]
    m.return_op = op


@rule("util.optimization_barrier")
def _identity(m: Machine, op: Op) -> None:
    for r, v in zip(op.results, op.operands):
        m.set(r, m.entry(v))


# -- timepoints ------------------------------------------------------------------------------------
@rule(
    "stream.timepoint.immediate",
    "stream.timepoint.join",
    "stream.timepoint.import",
    "stream.timepoint.export",
    "stream.timepoint.chain_external",
)
def _timeline_only(m: Machine, op: Op) -> None:
    # No value effect; what `timepoint.export` hands out (a semaphore and a value) is opaque.
    key = None
    for i, r in enumerate(op.results):
        if isinstance(r.type, TimepointType):
            m.set(r, None)
        else:
            key = key or m.opaque_key(op)
            m.set(r, m.opaque_result(op, key, i, r.type))


@rule("stream.timepoint.await")
def _await(m: Machine, op: Op) -> None:
    v = groups(op)
    for r, x in zip(op.results, v.resource_operands):
        m.set(r, m.entry(x))


@rule("stream.timepoint.barrier")
def _barrier(m: Machine, op: Op) -> None:
    v = groups(op)
    m.set(op.results[0], m.res(v.resource, m.integer(v.resource_size)))
    m.set(op.results[1], None)


# -- ops without a model ---------------------------------------------------------------------------
@RULES.set_default
def _opaque(m: Machine, op: Op) -> None:
    """An op the semantics does not model: fresh terms for its results (keyed by the op, its
    operands and the world counter) and a havoc of every resource with storage it takes."""
    key = m.opaque_key(op)
    for i, r in enumerate(op.results):
        m.set(r, m.opaque_result(op, key, i, r.type))
    for i, v in enumerate(op.operands):
        e = m.env.get(v)
        if isinstance(e, Res) and e.alloc is not None:
            atom = m.note(m.terms.opaque((key, "havoc", i), f"'{op.name}' may have written operand {i}"), op)
            data = m.terms.of(atom, e.size)
            if e.data is None:
                m.write(e.alloc, e.offset, data, op)
            else:
                m.tied(e, data, op)
        elif isinstance(e, BufView) and e.res is not None and e.res.alloc is not None:
            atom = m.note(m.terms.opaque((key, "havoc", i), f"'{op.name}' may have written operand {i}"), op)
            m.write(e.res.alloc, e.res.offset, m.terms.of(atom, e.res.size), op)


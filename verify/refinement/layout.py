"""Tensor layout in bytes: sizes, strided slices as contiguous runs, dense constants, scalar bytes.

Tensors are dense and row-major (the only layout the input and tensor levels use). A slice or
update of a tensor touches a set of contiguous byte runs of it: one run when the slice is
contiguous (`[r0, r0+k)` rows of full width), one run per outer index otherwise. Expressing every
slice as runs makes the input level comparable with any lowering (one `copy`, one per row, or a
`slice` of a reshaped resource): contiguous runs of one source merge when byte strings are
normalized.
"""

from __future__ import annotations

import itertools
import re
import struct
from collections.abc import Sequence

from stream.ir.attributes import ArrayAttr, Attribute, DenseAttr, float_bits
from stream.ir.diagnostics import DiagnosticError
from stream.ir.parser import parse_attribute_text
from stream.ir.types import FloatType, IndexType, IntegerType, TensorType, Type, element_byte_width, packed_bits
from verify.refinement.ints import IntExpr, Ints
from verify.refinement.solver import Facts, Undecided
from verify.refinement.terms import Scalar, ScalarTerm

__all__ = ["element_width", "split_dims", "shape_of", "tensor_bytes", "runs", "decode_dense", "composite_parts", "scalar_pattern", "MAX_RUNS"]

# Above this many runs a strided slice is not expanded (the check reports unknown).
MAX_RUNS = 4096


def element_width(t: Type, what: str) -> int:
    if isinstance(t, TensorType):
        bits = packed_bits(t)
        if bits is not None:
            raise Undecided(f"{what}: {t} packs {8 // bits} elements per byte (IREE's sub-byte layout); "
                            "its element accesses are not modelled")
        if t.encoding is not None:
            raise Undecided(f"{what}: tensors with an encoding ({t}) have no known byte layout")
        t = t.element
    w = element_byte_width(t)
    if w is None:
        raise Undecided(f"{what}: no byte width for element type {t}")
    return w


def split_dims(types: Sequence[Type], dims: Sequence[IntExpr]) -> list[list[IntExpr]]:
    """The `{%d...}` values of a flat dims group, one list per tensor type (in order)."""
    out: list[list[IntExpr]] = []
    pos = 0
    for t in types:
        n = t.dynamic_dims if isinstance(t, TensorType) else 0
        out.append(list(dims[pos : pos + n]))
        pos += n
    return out


def shape_of(t: TensorType, dims: Sequence[IntExpr], what: str) -> list[IntExpr]:
    if t.shape is None:
        raise Undecided(f"{what}: unranked tensor {t} has no byte layout")
    it = iter(dims)
    shape: list[IntExpr] = []
    for d in t.shape:
        if d is None:
            try:
                shape.append(next(it))
            except StopIteration:
                raise Undecided(f"{what}: missing dynamic dim for {t}") from None
        else:
            shape.append(d)
    return shape


def tensor_bytes(ints: Ints, t: TensorType, dims: Sequence[IntExpr], what: str) -> IntExpr:
    count = ints.product(shape_of(t, dims, what))
    bits = packed_bits(t)
    if bits is not None:  # IREE's calculateStorageElementCountInBytes: ceildivui(count, 8/bits)
        if t.encoding is None and type(count) is int and count * bits % 8:  # type: ignore[operator]
            raise Undecided(f"{what}: {t} does not fill whole bytes (IREE refuses to size it)")
        return ints.apply("ceildivui", count, 8 // bits)
    return ints.mul(count, element_width(t, what))


def runs(
    ints: Ints,
    facts: Facts,
    shape: Sequence[IntExpr],
    starts: Sequence[IntExpr],
    lengths: Sequence[IntExpr],
    width: int,
    what: str,
) -> list[tuple[IntExpr, IntExpr]]:
    """The contiguous byte runs `(offset, length)` of the box `starts + [0, lengths)` of a
    row-major tensor of `shape`, in row-major order."""
    rank = len(shape)
    if rank == 0:
        return [(0, width)]
    if len(starts) != rank or len(lengths) != rank:
        raise Undecided(f"{what}: {len(starts)} start indices and {len(lengths)} lengths for rank {rank}")
    strides: list[IntExpr] = [1] * rank
    for i in range(rank - 2, -1, -1):
        strides[i] = ints.mul(strides[i + 1], shape[i + 1])
    # The innermost dims that are taken whole form one contiguous run with the dim before them.
    k = rank - 1
    while k > 0 and facts.eq(starts[k], 0) is True and facts.eq(lengths[k], shape[k]) is True:
        k -= 1
    run_len = ints.mul(ints.mul(lengths[k], strides[k]), width)
    outer = list(lengths[:k])
    if any(type(n) is not int for n in outer):
        raise Undecided(f"{what}: a strided slice with a symbolic outer extent is not expanded")
    count = 1
    for n in outer:
        count *= n  # type: ignore[operator]
    if count > MAX_RUNS:
        raise Undecided(f"{what}: a strided slice of {count} runs is beyond the limit of {MAX_RUNS}")
    base = ints.mul(starts[k], strides[k])
    out: list[tuple[IntExpr, IntExpr]] = []
    for idx in itertools.product(*(range(n) for n in outer if type(n) is int)):
        off = base
        for d, i in enumerate(idx):
            off = ints.add(off, ints.mul(ints.add(starts[d], i), strides[d]))
        out.append((ints.mul(off, width), run_len))
    return out


def element_offset(ints: Ints, shape: Sequence[IntExpr], indices: Sequence[IntExpr], width: int) -> IntExpr:
    off: IntExpr = 0
    for d, i in enumerate(indices):
        off = ints.add(ints.mul(off, shape[d]), i)
    return ints.mul(off, width)


# -- constants ------------------------------------------------------------------------------------
def _int_bytes(value: int, width: int) -> bytes:
    return (value % (1 << (8 * width))).to_bytes(width, "little")


def _element_bytes(token: str, t: Type) -> bytes | None:
    w = element_byte_width(t)
    if w is None:
        return None
    token = token.strip()
    if isinstance(t, (IntegerType, IndexType)):
        if token in ("true", "false"):
            return _int_bytes(int(token == "true"), w)
        try:
            number = int(token, 0)
        except ValueError:
            return None
        if isinstance(t, IntegerType) and t.width % 8:
            # An iN element widened to whole bytes holds its N-bit pattern, zero-extended (MLIR
            # prints `7 : i3` as -1; IREE's encode-host-tensors stores it as the byte 7).
            number %= 1 << t.width
        return _int_bytes(number, w)
    if isinstance(t, FloatType):
        if token.lower().startswith("0x"):
            return _int_bytes(int(token, 16), w)
        try:
            value = float(token)
        except ValueError:
            return None
        if t.name == "f32":
            return struct.pack("<f", value)
        if t.name == "f64":
            return struct.pack("<d", value)
        try:
            return _int_bytes(float_bits(value, t), w)
        except (ValueError, KeyError, OverflowError):
            return None
    return None


def decode_dense(attr: DenseAttr) -> bytes | None:
    """The bytes of a `dense<...> : tensor<...>` constant, or None when the body is not a plain
    list of numbers (the caller then keys the constant by its text)."""
    t = attr.type
    if not isinstance(t, TensorType) or not t.is_static:
        return None
    bits = packed_bits(t)
    if t.encoding is not None and bits is None:
        return None
    count = t.num_elements()
    assert count is not None
    body = attr.body.strip()
    if bits is not None:
        return _packed_dense(body, count, bits)
    w = element_byte_width(t.element)
    if w is None:
        return None
    if body.startswith('"0x') or body.startswith('"0X'):
        raw = bytes.fromhex(body[3:-1])
        if len(raw) == w and count != 1:
            return raw * count  # a splat in hex form
        return raw if len(raw) == w * count else None
    if "(" in body or '"' in body:
        return None
    tokens = [x for x in body.replace("[", " ").replace("]", " ").replace(",", " ").split() if x]
    encoded = [e for e in (_element_bytes(x, t.element) for x in tokens) if e is not None]
    if len(encoded) != len(tokens) or not encoded:
        return None
    if len(encoded) == 1:
        return encoded[0] * count
    if len(encoded) != count:
        return None
    return b"".join(encoded)


def _packed_dense(body: str, count: int, bits: int) -> bytes | None:
    """A dense sub-byte constant packed as IREE stores it: element i in bits
    `(i % per) * bits` of byte `i // per`, `per = 8 // bits` (two's complement, low bits kept)."""
    if "(" in body or '"' in body:
        return None
    tokens = [x for x in body.replace("[", " ").replace("]", " ").replace(",", " ").split() if x]
    values: list[int] = []
    for x in tokens:
        if x in ("true", "false"):
            values.append(int(x == "true"))
            continue
        try:
            values.append(int(x, 0))
        except ValueError:
            return None
    if len(values) == 1:
        values = values * count
    if len(values) != count:
        return None
    per, mask = 8 // bits, (1 << bits) - 1
    out = bytearray(-(-count // per))  # a partial last byte is padded with zero bits
    for i, v in enumerate(values):
        out[i // per] |= (v & mask) << ((i % per) * bits)
    return bytes(out)


def scalar_pattern(value: Scalar, t: Type) -> bytes | None:
    """The bytes of a known scalar of type `t` (a fill or splat pattern), else None."""
    w = element_byte_width(t)
    if w is None:
        return None
    if type(value) is int:
        return _int_bytes(value, w)
    if isinstance(value, ScalarTerm) and value.kind == "bits":
        width, bits = value.payload
        return _int_bytes(bits, width) if width == w else None
    return None


# `#util.composite<1792xi8, [dense<...> : tensor<...>, ...]>`: constants packed back to back
# (IREE's pack-constants); the parser keeps the attribute as its text.
_COMPOSITE = re.compile(r"#util\.composite<\s*(\d+)xi8\s*,\s*(\[.*\])\s*>\Z", re.S)


def composite_parts(text: str) -> tuple[int, list[Attribute]] | None:
    """The total byte size and the element attributes of a `#util.composite`, in order; None
    when `text` is not one (or its elements do not parse)."""
    m = _COMPOSITE.match(text.strip())
    if m is None:
        return None
    body = re.sub(r",\s*\]\Z", "]", m.group(2))  # IREE prints a comma after the last element
    try:
        elements = parse_attribute_text(body)
    except DiagnosticError:
        return None
    if not isinstance(elements, ArrayAttr):
        return None
    return int(m.group(1)), list(elements.elements)

"""encode-tensors: tensor level -> async level. Tensors become byte ranges.

Dense row-major layout, element width from `element_byte_width` (`i1` takes a byte). Op by op
(rules in `_RULES`):

* `stream.tensor.sizeof T{dims}` -> the byte size: an `arith.constant` for a static shape, else
  the product of the dim values and the static part (`arith.muli`);
* `stream.tensor.dispatch` -> `stream.async.dispatch`, every resource operand bound whole
  (`[0 to size for size]`); the binding tensor types go in `streamproof.binding_types` (resource
  operands in order, then each untied result) and their dynamic dims are appended as trailing
  index operands, in the order the `?` appear (docs/CONVENTIONS.md);
* `stream.tensor.splat/fill` -> `stream.async.splat/fill` with the element's bit pattern as an
  integer (`f32` -> `i32` by bitcast; a pattern whose bytes are all equal narrows to `i8`);
* `stream.tensor.empty` -> `stream.async.alloca`; `stream.tensor.constant` -> `stream.async.constant`;
  `stream.tensor.clone` -> `stream.async.clone`;
* `stream.tensor.slice/update/fill` with element indices -> byte ranges `[start to end]`
  (row-major offsets). A range that is not contiguous in memory (a column block, say) becomes a
  chain of `stream.async.copy` (or `fill`) ops, one per contiguous run, when its indices are
  constants; with dynamic indices it is refused with a diagnostic;
* `stream.tensor.load/store` -> `stream.async.load/store` at the element's byte offset.

Invariant established: no `stream.tensor.*` op but import/export remains; every byte range lies
inside its resource (checked statically by the structural verifier when constant); the bytes of
every resource equal the row-major encoding of the tensor it held at the tensor level.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import product

from stream.dialect.directives import dispatch_resource_encodings
from stream.ir.attributes import ArrayAttr, Attribute, BoolAttr, FloatAttr, IntegerAttr, TypeAttr
from stream.ir.core import Module, Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import Requirement, RuleTable
from stream.ir.spec import spec_of, view
from stream.ir.types import (
    I8,
    I16,
    I32,
    I64,
    ComplexType,
    FloatType,
    IndexType,
    IntegerType,
    ResourceType,
    TensorType,
    Type,
    element_byte_width,
    packed_bits,
)
from stream.ir.walk import BODY_OPS, Function
from stream.passes.block_builder import STRUCTURED, BlockBuilder, check_straight_line
from stream.passes.pass_manager import register_pass

__all__ = ["encode_tensors", "contiguous_runs", "MAX_RUNS"]

# A non-contiguous slice or update becomes one copy per contiguous run; beyond this many runs the
# program is refused rather than turned into a wall of copies.
MAX_RUNS = 1024

_PATTERN_TYPES = {1: I8, 2: I16, 4: I32, 8: I64}


@register_pass("encode-tensors", produces="async")
def encode_tensors(module: Module) -> Module:
    """Lower stream.tensor ops to stream.async ops on row-major byte ranges."""
    ops = []
    for top in module.ops:
        if top.name in BODY_OPS and top.regions and top.regions[0].blocks and _needs_encoding(top):
            ops.append(_Encoder(Function(top)).run())
        else:
            ops.append(top)
    return module.replace(ops=tuple(ops))


def _needs_encoding(func_op: Op) -> bool:
    return any(op.name in _RULES for op in func_op.walk())


def contiguous_runs(shape: tuple[int, ...], starts: tuple[int, ...], lengths: tuple[int, ...], width: int) -> list[tuple[int, int, int]]:
    """The contiguous byte runs of the box `starts[i] .. starts[i] + lengths[i]` of a row-major
    tensor of `shape`: (offset in the tensor, offset in the packed box, byte length), in order."""
    rank = len(shape)
    # Inner dims taken whole merge into one run with the innermost partial dim.
    k = rank - 1
    while k >= 0 and starts[k] == 0 and lengths[k] == shape[k]:
        k -= 1
    inner = width
    for d in shape[k + 1 :]:
        inner *= d
    if k < 0:
        return [(0, 0, inner)]
    run = lengths[k] * inner
    strides = [0] * rank
    stride = width
    for i in range(rank - 1, -1, -1):
        strides[i] = stride
        stride *= shape[i]
    out = []
    for n, outer in enumerate(product(*(range(s, s + ln) for s, ln in zip(starts[:k], lengths[:k])))):
        offset = sum(i * s for i, s in zip(outer, strides)) + starts[k] * strides[k]
        out.append((offset, n * run, run))
    return out


@dataclass(slots=True)
class _Encoder:
    func: Function
    b: BlockBuilder = field(init=False)
    patterns: dict[tuple[Value, Type], Value] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.b = BlockBuilder(location=self.func.op.location)

    def run(self) -> Op:
        check_straight_line(self.func, "encode-tensors", STRUCTURED)
        self._encode(self.func.body.ops)
        block = self.b.block(self.func.arguments)
        return Function(self.func.op).with_body(block.ops).op

    def _encode(self, ops: tuple[Op, ...]) -> None:
        for op in ops:
            rule = _RULES.get(op.name)
            if rule is not None:
                rule(self, op)
            elif op.name in STRUCTURED:
                self.b.structured(op, self._nested)
            else:
                self.b.copy(op)

    def _nested(self, child: BlockBuilder, ops: tuple[Op, ...]) -> None:
        """Encode the block of an `scf` region; what it makes is not reused after it."""
        parent, patterns = self.b, dict(self.patterns)
        self.b = child
        try:
            self._encode(ops)
        finally:
            self.b, self.patterns = parent, patterns

    # -- helpers -------------------------------------------------------------------------------
    def values(self, op: Op, group: str) -> tuple[Value, ...]:
        spec = spec_of(op)
        assert spec is not None
        return tuple(self.b.lookup(v) for v in spec.operand_group(op, group))

    def value(self, op: Op, group: str) -> Value:
        return self.values(op, group)[0]

    def width(self, op: Op, t: TensorType) -> int:
        bits = packed_bits(t)
        if bits is not None:
            raise DiagnosticError.at(op.location, f"encode-tensors: elements of {t} are packed {8 // bits} to a byte "
                                     "(IREE's sub-byte layout); addressing one is not supported")
        if t.encoding is not None:
            raise DiagnosticError.at(op.location, f"encode-tensors: tensor encodings are not supported ({t})")
        w = element_byte_width(t.element)
        if w is None:
            raise DiagnosticError.at(op.location, f"encode-tensors: cannot store elements of type {t.element}")
        return w

    def shape(self, t: TensorType, dims: tuple[Value, ...]) -> list[Value]:
        """One index value per dim: constants for static dims, the dim values for dynamic ones."""
        it = iter(dims)
        assert t.shape is not None
        return [self.b.index(d) if d is not None else next(it) for d in t.shape]

    def byte_size(self, op: Op, t: TensorType, dims: tuple[Value, ...]) -> Value:
        if t.shape is None:
            raise DiagnosticError.at(op.location, f"encode-tensors: unranked tensors have no size ({t})")
        bits = packed_bits(t)
        static = 1 if bits is not None else self.width(op, t)
        for extent in t.shape:
            if extent is not None:
                static *= extent
        if bits is not None and not dims and static * bits % 8:
            raise DiagnosticError.at(op.location, f"encode-tensors: {t} does not fill whole bytes")
        size = self.b.index(static)
        for dim in dims:
            size = self.b.mul(dim, size)
        if bits is not None:  # IREE's calculateStorageElementCountInBytes: ceildivui(count, 8/bits)
            if not dims:
                return self.b.index(static * bits // 8)
            per = self.b.index(8 // bits)
            size = self.b.create("arith.ceildivui", {"lhs": size, "rhs": per}, {"result": size.type}, location=op.location).results[0]
        return size

    def offset(self, op: Op, t: TensorType, dims: tuple[Value, ...], indices: tuple[Value, ...]) -> Value:
        """Row-major byte offset of element `indices`."""
        shape = self.shape(t, dims)
        linear = self.b.index(0)
        for i, (index, dim) in enumerate(zip(indices, shape)):
            linear = self.b.add(self.b.mul(linear, dim), index) if i else index
        return self.b.mul(linear, self.b.index(self.width(op, t)))

    def same(self, a: Value, b: Value) -> bool:
        if a is b:
            return True
        ca, cb = self.b.constant_value(a), self.b.constant_value(b)
        return ca is not None and ca == cb

    def contiguous(self, shape: list[Value], starts: tuple[Value, ...], lengths: tuple[Value, ...]) -> bool:
        """Whether the box is one byte range: leading dims of length 1, then one dim taken
        partially, then dims taken whole."""
        k = 0
        while k < len(shape) and self.b.constant_value(lengths[k]) == 1:
            k += 1
        return all(self.b.constant_value(starts[j]) == 0 and self.same(lengths[j], shape[j]) for j in range(k + 1, len(shape)))

    def runs(self, op: Op, t: TensorType, dims: tuple[Value, ...], starts: tuple[Value, ...], lengths: tuple[Value, ...]) -> list[tuple[int, int, int]]:
        shape = [self.b.constant_value(v) for v in self.shape(t, dims)]
        s = [self.b.constant_value(v) for v in starts]
        n = [self.b.constant_value(v) for v in lengths]
        if any(x is None for x in (*shape, *s, *n)):
            raise DiagnosticError.at(op.location, f"encode-tensors: '{op.name}' reads or writes a strided (non-contiguous) box with dynamic bounds, which no single byte range covers")
        runs = contiguous_runs(tuple(shape), tuple(s), tuple(n), self.width(op, t))  # type: ignore[arg-type]
        if len(runs) > MAX_RUNS:
            raise DiagnosticError.at(op.location, f"encode-tensors: '{op.name}' covers {len(runs)} separate byte runs (more than {MAX_RUNS})")
        return runs

    def pattern(self, op: Op, element: Type, value: Value) -> Value:
        """The splat/fill pattern of one element: an integer of the element's width (narrowed to
        i8 when every byte is equal)."""
        width = element_byte_width(element)
        if width not in _PATTERN_TYPES:
            wide = f": a fill pattern is at most 64 bits (i8, i16, i32 or i64), as in IREE, and {element} takes {width} bytes" if width else ""
            raise DiagnosticError.at(op.location, f"encode-tensors: cannot fill with elements of type {element}{wide}")
        attr = self.b.constant_attr(value)
        if attr is not None:
            bits = _bits(attr, element)
            if bits is not None:
                width, bits = _narrow(bits, width)
                return self.b.constant(IntegerAttr(bits if bits < 1 << (8 * width - 1) else bits - (1 << (8 * width)), _PATTERN_TYPES[width]), _PATTERN_TYPES[width])
        target = _PATTERN_TYPES[width]
        if isinstance(element, IntegerType) and element.width == 8 * width:
            return value
        found = self.patterns.get((value, element))
        if found is None:
            if isinstance(element, ComplexType):  # complex<f32> -> i64 (real part low), as IREE's encode-host-tensors
                found = self.b.create("complex.bitcast", {"operand": value}, {"result": target}, location=op.location).results[0]
                self.patterns[(value, element)] = found
                return found
            name = "arith.bitcast"
            if isinstance(element, IntegerType):
                name = "arith.extui"
            elif isinstance(element, IndexType):
                name = "arith.index_cast"
            found = self.b.create(name, {"in": value}, {"out": target}, location=op.location).results[0]
            self.patterns[(value, element)] = found
        return found

    def bind(self, old: Op, new: Op) -> None:
        for o, n in zip(old.results, new.results):
            if o.name_hint is not None:
                n.name_hint = o.name_hint
            self.b.bind(o, n)

    # -- rules ---------------------------------------------------------------------------------
    def _sizeof(self, op: Op) -> None:
        enc = op.properties["encoding"]
        assert isinstance(enc, TypeAttr) and isinstance(enc.type, TensorType)
        self.b.bind(op.results[0], self.byte_size(op, enc.type, self.values(op, "encoding_dims")))

    def _dispatch(self, op: Op) -> None:
        v = view(op)
        operands = self.values(op, "mixed_operands")
        sizes = iter(self.values(op, "operand_sizes"))
        encodings = iter(dispatch_resource_encodings(operands, v.operand_encodings))
        enc_dims = iter(self.values(op, "operand_encoding_dims"))
        zero = self.b.index(0)
        bindings: list[Attribute] = []
        trailing: list[Value] = []
        offsets, ends, lengths, resource_sizes = [], [], [], []
        for value in operands:
            if not isinstance(value.type, ResourceType):
                continue
            size = next(sizes)
            enc = next(encodings)
            if not isinstance(enc, TensorType):
                raise DiagnosticError.at(op.location, f"encode-tensors: a resource operand's encoding is {enc}, not a tensor type")
            resource_sizes.append(size)
            offsets.append(zero)
            ends.append(size)
            lengths.append(size)
            bindings.append(TypeAttr(enc))
            trailing.extend(next(enc_dims) for _ in range(_dynamic(enc)))
        ties = _ties(op)
        result_dims = iter(self.values(op, "result_encoding_dims"))
        for enc, tie in zip(_types(v.result_encodings), ties):
            dims = [next(result_dims) for _ in range(_dynamic(enc))]
            if tie < 0:
                bindings.append(TypeAttr(enc))
                trailing.extend(dims)
        discardable = dict(op.attributes)
        discardable["streamproof.binding_types"] = ArrayAttr(tuple(bindings))
        new = self.b.create(
            "stream.async.dispatch",
            {
                "workload": self.values(op, "workload"),
                "resource_operands": operands + tuple(trailing),
                "resource_operand_sizes": tuple(resource_sizes),
                "resource_operand_offsets": tuple(offsets),
                "resource_operand_ends": tuple(ends),
                "resource_operand_lengths": tuple(lengths),
                "result_sizes": self.values(op, "result_sizes"),
            },
            {"results": tuple(r.type for r in op.results)},
            {"entry_points": op.properties["entry_points"], "tied_operands": op.properties.get("tied_operands"), "affinity": op.properties.get("affinity")},
            discardable=discardable,
            location=op.location,
        )
        self.bind(op, new)

    def _splat(self, op: Op) -> None:
        enc = _type(op, "result_encoding")
        new = self.b.create(
            "stream.async.splat",
            {"value": self.pattern(op, enc.element, self.value(op, "value")), "result_size": self.value(op, "result_size")},
            {"result": op.results[0].type},
            {"affinity": op.properties.get("affinity")},
            location=op.location,
        )
        self.bind(op, new)

    def _empty(self, op: Op) -> None:
        new = self.b.create(
            "stream.async.alloca",
            {"storage_size": self.value(op, "result_size")},
            {"result": op.results[0].type},
            {"affinity": op.properties.get("affinity")},
            location=op.location,
        )
        self.bind(op, new)

    def _constant(self, op: Op) -> None:
        enc = _type(op, "result_encoding")
        size = self.byte_size(op, enc, self.values(op, "result_encoding_dims"))
        new = self.b.create(
            "stream.async.constant",
            {"result_size": size},
            {"result": op.results[0].type},
            {"value": op.properties["value"], "affinity": op.properties.get("affinity")},
            location=op.location,
        )
        self.bind(op, new)

    def _clone(self, op: Op) -> None:
        new = self.b.create(
            "stream.async.clone",
            {"source": self.value(op, "source"), "source_size": self.value(op, "source_size"), "result_size": self.value(op, "result_size")},
            {"result": op.results[0].type},
            {"affinity": op.properties.get("affinity")},
            location=op.location,
        )
        self.bind(op, new)

    def _slice(self, op: Op) -> None:
        enc = _type(op, "source_encoding")
        dims = self.values(op, "source_encoding_dims")
        starts, lengths = self.values(op, "start_indices"), self.values(op, "lengths")
        source, source_size = self.value(op, "source"), self.value(op, "source_size")
        result_size = self.value(op, "result_size")
        affinity = {"affinity": op.properties.get("affinity")}
        if self.contiguous(self.shape(enc, dims), starts, lengths):
            start = self.offset(op, enc, dims, starts)
            new = self.b.create(
                "stream.async.slice",
                {"source": source, "source_size": source_size, "source_offset": start, "source_end": self.b.add(start, result_size), "result_size": result_size},
                {"result": op.results[0].type},
                affinity,
                location=op.location,
            )
        else:
            new = self.b.create("stream.async.alloca", {"storage_size": result_size}, {"result": op.results[0].type}, affinity, location=op.location)
            for src, dst, n in self.runs(op, enc, dims, starts, lengths):
                new = self._copy(op, source, source_size, src, new.results[0], result_size, dst, n)
        self.bind(op, new)

    def _copy(self, op: Op, source: Value, source_size: Value, src: int, target: Value, target_size: Value, dst: int, n: int) -> Op:
        length = self.b.index(n)
        return self.b.create(
            "stream.async.copy",
            {
                "target": target,
                "target_size": target_size,
                "target_offset": self.b.index(dst),
                "target_end": self.b.index(dst + n),
                "source": source,
                "source_size": source_size,
                "source_offset": self.b.index(src),
                "source_end": self.b.index(src + n),
                "length": length,
            },
            {"result": target.type},
            {"affinity": op.properties.get("affinity")},
            location=op.location,
        )

    def _update(self, op: Op) -> None:
        enc = _type(op, "target_encoding")
        update_enc = _type(op, "update_encoding")
        dims = self.values(op, "target_encoding_dims")
        starts = self.values(op, "start_indices")
        lengths = tuple(self.shape(update_enc, self.values(op, "update_encoding_dims")))
        target, target_size = self.value(op, "target"), self.value(op, "target_size")
        update, update_size = self.value(op, "update"), self.value(op, "update_size")
        if self.contiguous(self.shape(enc, dims), starts, lengths):
            start = self.offset(op, enc, dims, starts)
            new = self.b.create(
                "stream.async.update",
                {"target": target, "target_size": target_size, "target_offset": start, "target_end": self.b.add(start, update_size), "update": update, "update_size": update_size},
                {"result": op.results[0].type},
                {"affinity": op.properties.get("affinity")},
                location=op.location,
            )
        else:
            current = target
            for dst, src, n in self.runs(op, enc, dims, starts, lengths):
                new = self._copy(op, update, update_size, src, current, target_size, dst, n)
                current = new.results[0]
        self.bind(op, new)

    def _fill(self, op: Op) -> None:
        enc = _type(op, "target_encoding")
        dims = self.values(op, "target_encoding_dims")
        target, target_size = self.value(op, "target"), self.value(op, "target_size")
        starts, lengths = self.values(op, "start_indices"), self.values(op, "lengths")
        pattern = self.pattern(op, enc.element, self.value(op, "value"))
        width = self.width(op, enc)
        if not starts:
            ranges = [(self.b.index(0), target_size)]
        elif self.contiguous(self.shape(enc, dims), starts, lengths):
            count = self.b.index(1)
            for n in lengths:
                count = self.b.mul(count, n)
            ranges = [(self.offset(op, enc, dims, starts), self.b.mul(count, self.b.index(width)))]
        else:
            ranges = [(self.b.index(o), self.b.index(n)) for o, _, n in self.runs(op, enc, dims, starts, lengths)]
        current = target
        for start, length in ranges:
            new = self.b.create(
                "stream.async.fill",
                {"target": current, "target_size": target_size, "target_offset": start, "target_end": self.b.add(start, length), "target_length": length, "value": pattern},
                {"result": op.results[0].type},
                {"affinity": op.properties.get("affinity")},
                location=op.location,
            )
            current = new.results[0]
        self.bind(op, new)

    def _load(self, op: Op) -> None:
        enc = _type(op, "source_encoding")
        offset = self.offset(op, enc, self.values(op, "source_encoding_dims"), self.values(op, "indices"))
        new = self.b.create(
            "stream.async.load",
            {"source": self.value(op, "source"), "source_size": self.value(op, "source_size"), "source_offset": offset},
            {"result": op.results[0].type},
            location=op.location,
        )
        self.bind(op, new)

    def _store(self, op: Op) -> None:
        enc = _type(op, "target_encoding")
        offset = self.offset(op, enc, self.values(op, "target_encoding_dims"), self.values(op, "indices"))
        new = self.b.create(
            "stream.async.store",
            {"target": self.value(op, "target"), "target_size": self.value(op, "target_size"), "target_offset": offset, "value": self.value(op, "value")},
            {"result": op.results[0].type},
            location=op.location,
        )
        self.bind(op, new)


def _type(op: Op, name: str) -> TensorType:
    attr = op.properties.get(name)
    if not isinstance(attr, TypeAttr) or not isinstance(attr.type, TensorType):
        raise DiagnosticError.at(op.location, f"'{op.name}' needs a tensor type in '{name}'")
    return attr.type


def _types(attr: Attribute | None) -> list[TensorType]:
    if not isinstance(attr, ArrayAttr):
        return []
    return [a.type for a in attr.elements if isinstance(a, TypeAttr) and isinstance(a.type, TensorType)]


def _dynamic(t: TensorType) -> int:
    return t.dynamic_dims


def _ties(op: Op) -> list[int]:
    tied = op.properties.get("tied_operands")
    if not isinstance(tied, ArrayAttr) or len(tied) != len(op.results):
        return [-1] * len(op.results)
    return [e.value if isinstance(e, IntegerAttr) else -1 for e in tied.elements]


def _bits(attr: Attribute, element: Type) -> int | None:
    """The bit pattern of a constant element, as an unsigned integer."""
    width = element_byte_width(element)
    assert width is not None
    if isinstance(attr, FloatAttr) and isinstance(element, FloatType):
        fmt = {"f16": "<e", "f32": "<f", "f64": "<d"}.get(element.name)
        if fmt is not None:
            return int.from_bytes(struct.pack(fmt, attr.value), "little")
        if element.name == "bf16":
            return int.from_bytes(struct.pack("<f", attr.value), "little") >> 16
        return None
    if isinstance(attr, BoolAttr):
        return int(attr.value)
    if isinstance(attr, IntegerAttr):
        return attr.value & ((1 << (8 * width)) - 1)
    return None


def _narrow(bits: int, width: int) -> tuple[int, int]:
    """The shortest repeating unit of a pattern (1, 2 or 4 bytes when the halves agree)."""
    while width > 1:
        half = width // 2
        lo, hi = bits & ((1 << (8 * half)) - 1), bits >> (8 * half)
        if lo != hi:
            break
        bits, width = lo, half
    return width, bits


_RULES: RuleTable[Callable[[_Encoder, Op], None]] = RuleTable(
    "_RULES",
    """Lower the tensor-level op to bytes: its encoded sizes (`stream.tensor.sizeof` folded to
    an index computation), the async op on resources that replaces it, fill patterns and
    element windows as byte ranges (`fn(encoder, op)`). An op without one is copied unchanged
    (identity); a function without any such op is left alone.""",
    policy="identity",
    requires=Requirement(prefixes=("stream.tensor.",), unless=frozenset({"stream.tensor.import", "stream.tensor.export"}), why="the ABI boundary keeps its tensor types"),
    entries={
        "stream.tensor.sizeof": _Encoder._sizeof,
        "stream.tensor.dispatch": _Encoder._dispatch,
        "stream.tensor.splat": _Encoder._splat,
        "stream.tensor.empty": _Encoder._empty,
        "stream.tensor.constant": _Encoder._constant,
        "stream.tensor.clone": _Encoder._clone,
        "stream.tensor.slice": _Encoder._slice,
        "stream.tensor.update": _Encoder._update,
        "stream.tensor.fill": _Encoder._fill,
        "stream.tensor.load": _Encoder._load,
        "stream.tensor.store": _Encoder._store,
    },
)

"""Types of the streamproof IR.

Every type is a frozen, slotted dataclass: hashable and compared by value, so that two parses of
the same text give equal types. Types the project reasons about (tensors, resources, timepoints,
scalars) are modelled; anything else (`!hal.buffer_view`, `vector<4xf32>`, ...) is kept as
`OpaqueType` text and printed back verbatim.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "Type",
    "IndexType",
    "IntegerType",
    "FloatType",
    "ComplexType",
    "NoneType",
    "TensorType",
    "Lifetime",
    "ResourceType",
    "TimepointType",
    "FunctionType",
    "OpaqueType",
    "INDEX",
    "I1",
    "I8",
    "I16",
    "I32",
    "I64",
    "F16",
    "BF16",
    "F32",
    "F64",
    "COMPLEX64",
    "COMPLEX128",
    "TIMEPOINT",
    "element_byte_width",
]


class Type:
    """Base of all IR types. Subclasses are frozen dataclasses."""

    __slots__ = ()

    def __str__(self) -> str:  # pragma: no cover - overridden everywhere
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class IndexType(Type):
    def __str__(self) -> str:
        return "index"


@dataclass(frozen=True, slots=True)
class IntegerType(Type):
    """`iN`, `siN` or `uiN`."""

    width: int
    signedness: str = ""  # "", "s" or "u"

    def __str__(self) -> str:
        return f"{self.signedness}i{self.width}"


@dataclass(frozen=True, slots=True)
class FloatType(Type):
    """`f16`, `bf16`, `f32`, `f64` (and the other MLIR float spellings)."""

    name: str

    @property
    def width(self) -> int:
        return _FLOAT_WIDTHS.get(self.name, 0)

    def __str__(self) -> str:
        return self.name


_FLOAT_WIDTHS = {
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "tf32": 19, "f80": 80, "f128": 128,
    "f4E2M1FN": 4, "f6E2M3FN": 6, "f6E3M2FN": 6,
    **dict.fromkeys(("f8E3M4", "f8E4M3", "f8E4M3FN", "f8E4M3FNUZ", "f8E4M3B11FNUZ", "f8E5M2", "f8E5M2FNUZ", "f8E8M0FNU"), 8),
}
FLOAT_NAMES = frozenset(_FLOAT_WIDTHS)


@dataclass(frozen=True, slots=True)
class ComplexType(Type):
    """`complex<f32>`: a (real, imaginary) pair of `element`, stored as two consecutive elements
    (IREE's `complex_float_64` for complex<f32>). MLIR also allows integer parts (`complex<i32>`)."""

    element: Type  # a FloatType or an IntegerType

    @property
    def width(self) -> int:
        """Bits of one complex value: twice the part's (64 for complex<f32>)."""
        part = self.element
        return 2 * part.width if isinstance(part, (FloatType, IntegerType)) else 0

    def __str__(self) -> str:
        return f"complex<{self.element}>"


@dataclass(frozen=True, slots=True)
class NoneType(Type):
    def __str__(self) -> str:
        return "none"


@dataclass(frozen=True, slots=True)
class TensorType(Type):
    """`tensor<4x?xf32>` (`None` marks a dynamic dim) or unranked `tensor<*xf32>` (`shape is None`).

    Dynamic dims take their value from index operands written `{%d}` after the type, as IREE does;
    the type itself only records that the dim is dynamic. `encoding` is an attribute kept as text.
    """

    shape: tuple[int | None, ...] | None
    element: Type
    encoding: object | None = None  # an Attribute; `object` avoids an import cycle

    @property
    def rank(self) -> int:
        return -1 if self.shape is None else len(self.shape)

    @property
    def dynamic_dims(self) -> int:
        """Number of `?` dims, i.e. of `{%d}` index values that must accompany this type."""
        return 0 if self.shape is None else sum(1 for d in self.shape if d is None)

    @property
    def is_static(self) -> bool:
        return self.shape is not None and self.dynamic_dims == 0

    def num_elements(self) -> int | None:
        if not self.is_static:
            return None
        n = 1
        for d in self.shape or ():
            assert d is not None
            n *= d
        return n

    def __str__(self) -> str:
        if self.shape is None:
            dims = "*x"
        else:
            dims = "".join(("?" if d is None else str(d)) + "x" for d in self.shape)
        enc = f", {self.encoding}" if self.encoding is not None else ""
        return f"tensor<{dims}{self.element}{enc}>"


class Lifetime(enum.Enum):
    """`!stream.resource<L>` lifetimes, in IREE's source order."""

    UNKNOWN = "*"
    EXTERNAL = "external"
    STAGING = "staging"
    TRANSIENT = "transient"
    VARIABLE = "variable"
    CONSTANT = "constant"


@dataclass(frozen=True, slots=True)
class ResourceType(Type):
    """`!stream.resource<lifetime>`. Its byte size travels as an index value `{%n}` beside it."""

    lifetime: Lifetime

    def __str__(self) -> str:
        return f"!stream.resource<{self.lifetime.value}>"


@dataclass(frozen=True, slots=True)
class TimepointType(Type):
    def __str__(self) -> str:
        return "!stream.timepoint"


@dataclass(frozen=True, slots=True)
class FunctionType(Type):
    inputs: tuple[Type, ...]
    results: tuple[Type, ...]

    def __str__(self) -> str:
        ins = ", ".join(map(str, self.inputs))
        if len(self.results) == 1 and not isinstance(self.results[0], FunctionType):
            outs = str(self.results[0])
        else:
            outs = "(" + ", ".join(map(str, self.results)) + ")"
        return f"({ins}) -> {outs}"


@dataclass(frozen=True, slots=True)
class OpaqueType(Type):
    """Any type the project does not model, kept as its exact text (`!hal.buffer_view`)."""

    text: str

    def __str__(self) -> str:
        return self.text


INDEX = IndexType()
I1 = IntegerType(1)
I8 = IntegerType(8)
I16 = IntegerType(16)
I32 = IntegerType(32)
I64 = IntegerType(64)
F16 = FloatType("f16")
BF16 = FloatType("bf16")
F32 = FloatType("f32")
F64 = FloatType("f64")
COMPLEX64 = ComplexType(F32)
COMPLEX128 = ComplexType(F64)
TIMEPOINT = TimepointType()


PACKED_STORAGE = "#iree_encoding.packed_storage"


def packed_bits(t: Type) -> int | None:
    """The bits per element of a tensor IREE stores packed (ElementPackingUtils: i2 and i4 always,
    8/bits elements per byte, the first in the low bits; i1 only with
    `#iree_encoding.packed_storage`), else None (a whole number of bytes per element)."""
    if not isinstance(t, TensorType) or not isinstance(t.element, IntegerType):
        return None
    bits = t.element.width
    if bits in (2, 4) and t.encoding is None:
        return bits
    if bits in (1, 2, 4) and t.encoding is not None and str(t.encoding) == PACKED_STORAGE:
        return bits
    return None


def element_byte_width(t: Type) -> int | None:
    """Bytes per element of a scalar type as stored in a resource, or None (`none`, a tensor, a
    timepoint, another dialect's type: no byte size). As IREE's `getRoundedElementByteWidth`: the
    bits rounded up to whole bytes, then to a power of two (i1 and i4 take a byte, i24 four, i128
    sixteen); a complex value takes two of its parts (complex<f32>: 8)."""
    if isinstance(t, ComplexType):
        part = element_byte_width(t.element)
        return None if part is None else 2 * part
    if isinstance(t, (IntegerType, FloatType)):
        nbytes = max(1, (t.width + 7) // 8)
        return 1 << (nbytes - 1).bit_length()
    if isinstance(t, IndexType):
        return 8
    return None

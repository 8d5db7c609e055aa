"""Attributes of the streamproof IR.

Frozen, slotted, compared by value. The attributes the passes and the verifier reason about are
modelled (integers, floats, strings, symbol references, arrays, dictionaries, dense constants,
device affinities, immediate timepoints); every other attribute (`affine_map<...>`,
`#hal.executable.target<...>`, ...) is an `OpaqueAttr` holding its exact text.
`str(attr)` is the attribute's MLIR spelling.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass

from stream.ir.types import F64, I1, I64, FloatType, IntegerType, Type

__all__ = [
    "Attribute",
    "UnitAttr",
    "BoolAttr",
    "IntegerAttr",
    "FloatAttr",
    "StringAttr",
    "TypeAttr",
    "SymbolRefAttr",
    "ArrayAttr",
    "DictAttr",
    "DenseArrayAttr",
    "DenseAttr",
    "AffinityAttr",
    "PromiseAttr",
    "OptimalAttr",
    "ImmediateTimepointAttr",
    "OpaqueAttr",
    "AnyAffinity",
    "quote_string",
    "format_symbol",
    "format_float",
]

_BARE_ID = re.compile(r"[A-Za-z_][\w$.]*\Z")


class Attribute:
    """Base of all attributes. Subclasses are frozen dataclasses."""

    __slots__ = ()

    def __str__(self) -> str:  # pragma: no cover
        raise NotImplementedError


# Printable ASCII but `"` and `\\`: kept as is by quote_string.
_PLAIN = re.compile(r'[ !#-\[\]-~]*')
# Every other byte (as a latin-1 character) and its escape.
_ESCAPES = {b: "\\\\" if b == 0x5C else f"\\{b:02X}" for b in range(256) if not _PLAIN.fullmatch(chr(b))}


def quote_string(s: str) -> str:
    """MLIR string literal spelling (llvm::printEscapedString): printable ASCII kept, a
    backslash doubled, `"` and every other byte as `\\XX` (upper-case hex). Linear: one
    `str.translate` over the UTF-8 bytes (as latin-1 characters, one per byte)."""
    if _PLAIN.fullmatch(s):
        return f'"{s}"'
    return '"' + s.encode("utf-8").decode("latin-1").translate(_ESCAPES) + '"'


def format_symbol(name: str) -> str:
    return "@" + (name if _BARE_ID.match(name) else quote_string(name))


def format_float(value: float, type_: FloatType) -> str:
    """Print a float as MLIR does: `%e` with 6 digits when that reads back exactly, else the
    shortest round-trip decimal, else (inf, nan) the bit pattern in hex."""
    if math.isfinite(value):
        short = f"{value:.6e}"
        if round_to_type(float(short), type_) == value:
            return short
        shortest = repr(value) if type_.width not in (16, 32) else _shortest(value, type_)
        if "." in shortest or "e" in shortest:
            return shortest
    digits = 4 if type_.name in ("f16", "bf16") else 8 if type_.width == 32 else 16
    return "0x" + format(float_bits(value, type_), f"0{digits}X")


def float_bits(value: float, t: FloatType) -> int:
    """The IEEE bit pattern of `value` in `t` (f16, bf16, f32; anything else as f64)."""
    if t.name == "f16":
        return int(struct.unpack("<H", struct.pack("<e", value))[0])
    if t.name == "bf16":
        return _bf16_bits(value)
    if t.width == 32:
        return int(struct.unpack("<I", struct.pack("<f", value))[0])
    return int(struct.unpack("<Q", struct.pack("<d", value))[0])


def float_from_bits(bits: int, t: FloatType) -> float:
    if t.name == "f16":
        return float(struct.unpack("<e", struct.pack("<H", bits & 0xFFFF))[0])
    if t.name == "bf16":
        return float(struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0])
    if t.width == 32:
        return float(struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0])
    return float(struct.unpack("<d", struct.pack("<Q", bits & 0xFFFFFFFFFFFFFFFF))[0])


def _bf16_bits(value: float) -> int:
    bits = int(struct.unpack("<I", struct.pack("<f", value))[0])
    if math.isnan(value):
        return (bits >> 16) | 0x40  # keep it a quiet NaN
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF  # round to nearest even


def round_to_type(v: float, t: FloatType) -> float:
    """`v` rounded to the precision of `t`, as MLIR's parser stores a literal (APFloat)."""
    if t.name in ("f16", "bf16") or t.width == 32:
        try:
            return float_from_bits(float_bits(v, t), t)
        except OverflowError:  # beyond the type's range: MLIR makes it infinite
            return math.copysign(math.inf, v)
    return v


def _shortest(v: float, t: FloatType) -> str:
    for digits in range(1, 18):
        s = f"{v:.{digits}g}"
        if round_to_type(float(s), t) == v:
            return s if ("." in s or "e" in s) else s + ".0"
    return repr(v)


@dataclass(frozen=True, slots=True)
class UnitAttr(Attribute):
    def __str__(self) -> str:
        return "unit"


@dataclass(frozen=True, slots=True)
class BoolAttr(Attribute):
    value: bool

    def __str__(self) -> str:
        return "true" if self.value else "false"


@dataclass(frozen=True, slots=True)
class IntegerAttr(Attribute):
    """An integer of a given type; `42` alone is i64, as in MLIR."""

    value: int
    type: Type = I64

    def __str__(self) -> str:
        if self.type == I1:
            return "true" if self.value else "false"
        if self.type == I64:
            return str(self.value)
        return f"{self.value} : {self.type}"


@dataclass(frozen=True, slots=True)
class FloatAttr(Attribute):
    value: float
    type: FloatType = F64

    def __eq__(self, other: object) -> bool:
        # Compare bit patterns so that NaN constants equal themselves after a round trip.
        return (
            isinstance(other, FloatAttr)
            and self.type == other.type
            and struct.pack("<d", self.value) == struct.pack("<d", other.value)
        )

    def __hash__(self) -> int:
        return hash((struct.pack("<d", self.value), self.type))

    def __str__(self) -> str:
        text = format_float(self.value, self.type)
        # f64 goes without its type, unless printed in hex (which alone would read as an integer).
        return text if self.type == F64 and not text.startswith("0x") else f"{text} : {self.type}"


@dataclass(frozen=True, slots=True)
class StringAttr(Attribute):
    value: str

    def __str__(self) -> str:
        return quote_string(self.value)


@dataclass(frozen=True, slots=True)
class TypeAttr(Attribute):
    type: Type

    def __str__(self) -> str:
        return str(self.type)


@dataclass(frozen=True, slots=True)
class SymbolRefAttr(Attribute):
    """`@root::@nested...`."""

    root: str
    nested: tuple[str, ...] = ()

    def __str__(self) -> str:
        return "::".join(format_symbol(s) for s in (self.root, *self.nested))

    @property
    def leaf(self) -> str:
        return self.nested[-1] if self.nested else self.root


@dataclass(frozen=True, slots=True)
class ArrayAttr(Attribute):
    elements: tuple[Attribute, ...]

    def __iter__(self) -> Iterator[Attribute]:
        return iter(self.elements)

    def __len__(self) -> int:
        return len(self.elements)

    def __str__(self) -> str:
        return "[" + ", ".join(map(str, self.elements)) + "]"


def format_dict_entries(entries: tuple[tuple[str, Attribute], ...]) -> str:
    parts = []
    for key, value in entries:
        k = key if _BARE_ID.match(key) else quote_string(key)
        parts.append(k if isinstance(value, UnitAttr) else f"{k} = {dict_value(value)}")
    return ", ".join(parts)


def dict_value(value: Attribute, text: str | None = None) -> str:
    """A dictionary entry's value: MLIR prints it without type elision, so an i64 integer keeps
    its `: i64` there (`<{value = 0 : i64}>`), unlike in an array or an op's own syntax."""
    text = str(value) if text is None else text
    if isinstance(value, IntegerAttr) and value.type == I64:
        return f"{text} : i64"
    if isinstance(value, ImmediateTimepointAttr):
        return f"{text} : !stream.timepoint"
    return text


@dataclass(frozen=True, slots=True)
class DictAttr(Attribute):
    """A dictionary; entries are kept sorted by key, as MLIR's DictionaryAttr does."""

    entries: tuple[tuple[str, Attribute], ...]

    @staticmethod
    def of(mapping: dict[str, Attribute]) -> DictAttr:
        return DictAttr(tuple(sorted(mapping.items())))

    def get(self, key: str) -> Attribute | None:
        for k, v in self.entries:
            if k == key:
                return v
        return None

    def __str__(self) -> str:
        return "{" + format_dict_entries(self.entries) + "}"


@dataclass(frozen=True, slots=True)
class DenseArrayAttr(Attribute):
    """`array<i32: 1, 2, 3>`."""

    element_type: Type
    values: tuple[int | float, ...]

    def __str__(self) -> str:
        if not self.values:
            return f"array<{self.element_type}>"
        if isinstance(self.element_type, IntegerType) and self.element_type.width == 1:
            body = ", ".join("true" if v else "false" for v in self.values)
        elif isinstance(self.element_type, FloatType):
            body = ", ".join(format_float(float(v), self.element_type) for v in self.values)
        else:
            body = ", ".join(str(v) for v in self.values)
        return f"array<{self.element_type}: {body}>"


@dataclass(frozen=True, slots=True)
class DenseAttr(Attribute):
    """`dense<...> : tensor<...>`. `body` is the normalized text between the angle brackets
    (a scalar splat, a nested list or a hex string); `runtime` decodes it with numpy."""

    body: str
    type: Type

    def __str__(self) -> str:
        return f"dense<{self.body}> : {self.type}"


class AnyAffinity(Attribute):
    """Marker base of the device-placement attributes."""

    __slots__ = ()

    def devices(self) -> tuple[str, ...]:  # pragma: no cover
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class AffinityAttr(AnyAffinity):
    """`#hal.device.affinity<@dev>` or `#hal.device.affinity<@dev, [0, 1]>` (a queue mask)."""

    device: str
    queues: tuple[int, ...] | None = None

    def devices(self) -> tuple[str, ...]:
        return (self.device,)

    def __str__(self) -> str:
        q = "" if self.queues is None else ", [" + ", ".join(map(str, self.queues)) + "]"
        return f"#hal.device.affinity<{format_symbol(self.device)}{q}>"


@dataclass(frozen=True, slots=True)
class PromiseAttr(AnyAffinity):
    """`#hal.device.promise<@dev>`: a device not declared yet."""

    device: str
    queues: tuple[int, ...] | None = None

    def devices(self) -> tuple[str, ...]:
        return (self.device,)

    def __str__(self) -> str:
        q = "" if self.queues is None else ", [" + ", ".join(map(str, self.queues)) + "]"
        return f"#hal.device.promise<{format_symbol(self.device)}{q}>"


@dataclass(frozen=True, slots=True)
class OptimalAttr(AnyAffinity):
    """`#hal.device.optimal<[...]>`: any of several placements, chosen later."""

    options: tuple[Attribute, ...]

    def devices(self) -> tuple[str, ...]:
        out: list[str] = []
        for o in self.options:
            if isinstance(o, AnyAffinity):
                out.extend(o.devices())
        return tuple(out)

    def __str__(self) -> str:
        return "#hal.device.optimal<[" + ", ".join(map(str, self.options)) + "]>"


@dataclass(frozen=True, slots=True)
class ImmediateTimepointAttr(Attribute):
    def __str__(self) -> str:
        return "#stream.timepoint<immediate>"


@dataclass(frozen=True, slots=True)
class OpaqueAttr(Attribute):
    """Any attribute the project does not model, kept as its exact text."""

    text: str

    def __str__(self) -> str:
        return self.text

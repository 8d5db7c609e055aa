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


def quote_string(s: str) -> str:
    """MLIR string literal spelling: printable ASCII kept, `"`/`\\` escaped, the rest as `\\XX`."""
    out = ['"']
    for ch in s.encode("utf-8"):
        c = chr(ch)
        if c == '"' or c == "\\":
            out.append("\\" + c)
        elif 0x20 <= ch < 0x7F:
            out.append(c)
        else:
            out.append(f"\\{ch:02X}")
    out.append('"')
    return "".join(out)


def format_symbol(name: str) -> str:
    return "@" + (name if _BARE_ID.match(name) else quote_string(name))


def format_float(value: float, type_: FloatType) -> str:
    """Print a float as MLIR does: `%e` with 6 digits when that reads back exactly, else the
    shortest round-trip decimal, else the bit pattern in hex."""
    if math.isfinite(value):
        short = f"{value:.6e}"
        if _round(float(short), type_) == value:
            return short
        shortest = repr(value) if type_.width != 32 else _shortest_f32(value)
        if "." in shortest or "e" in shortest:
            return shortest
    # inf, nan: hex bit pattern, as MLIR prints them
    if type_.width == 32:
        return f"0x{struct.unpack('<I', struct.pack('<f', value))[0]:08X}"
    if type_.width == 16:
        return f"0x{struct.unpack('<H', struct.pack('<e', value))[0]:04X}"
    return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"


def _round(v: float, t: FloatType) -> float:
    if t.width == 32:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    if t.width == 16 and t.name == "f16":
        return struct.unpack("<e", struct.pack("<e", v))[0]
    return v


def _shortest_f32(v: float) -> str:
    for digits in range(1, 18):
        s = f"{v:.{digits}g}"
        if _round(float(s), FloatType("f32")) == v:
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
        return text if self.type == F64 else f"{text} : {self.type}"


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
        parts.append(k if isinstance(value, UnitAttr) else f"{k} = {value}")
    return ", ".join(parts)


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


TRUE = BoolAttr(True)
FALSE = BoolAttr(False)
UNIT = UnitAttr()

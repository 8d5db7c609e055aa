"""Host values: buffer views, `dense<...>` constants, and the text forms of iree-run-module.

* `BufferView` is what a `!hal.buffer_view` holds at run time: a C-contiguous numpy array and the
  IR element type it stores (the array's bytes are the buffer).
* `dense_to_numpy` decodes a `dense<...> : tensor<...>` attribute.
* `parse_input` reads an input in iree-run-module's `--input` syntax: `4x8xf32=1.0` (a splat),
  `2x2xf32=1,2,3,4` or `2x2xf32=[1 2][3 4]` (all elements), `4xf32` (zeros), `@x.npy` (a numpy
  file), `4xf32=@x.bin` (raw bytes), and scalars `7`, `i32=7`, `f32=0.5`.
* `format_value` prints a result the way iree-run-module does: `2x2xf32=[1 2][3 4]`, floats with
  C's `%G`, at most `max_elements` elements (then `...`), scalars as `i32=7`.
* `element_type_code` is IREE's `iree_hal_element_type_t` encoding (numerical type << 24 | bits),
  used by `hal.element_type` and `hal.buffer_view.assert`.
* `check_holdable` refuses, before anything runs, a program using an element type the executor
  cannot hold (`runtime.memory.HOLDABLE`): a `file:line:col` diagnostic naming the type and the op.

Complex elements (`complex<f32>`, `complex<f64>`; numpy's complex64 and complex128) are written
as Python and numpy write them: `4xcomplex<f32>=1+2j`, `2xcomplex<f64>=[1-1j 0.5j]`, `3` (a real
number); IREE's own spelling of the type, `cf64` / `cf128` (the bits of both parts), is read too.
Results print the same way (`1+2j`, each part with C's `%G`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from runtime.memory import HOLDABLE, dtype_of
from stream.ir.attributes import DenseAttr, SymbolRefAttr
from stream.ir.core import Module
from stream.ir.diagnostics import DiagnosticError
from stream.ir.element_types import describe, uses
from stream.ir.types import (
    COMPLEX64,
    COMPLEX128,
    F16,
    F32,
    F64,
    I1,
    I8,
    I16,
    I32,
    I64,
    INDEX,
    ComplexType,
    FloatType,
    IndexType,
    IntegerType,
    TensorType,
    Type,
)

__all__ = [
    "BufferView",
    "InputError",
    "dense_to_numpy",
    "parse_input",
    "check_size",
    "byte_size",
    "DEFAULT_MAX_INPUT_BYTES",
    "format_value",
    "element_type_code",
    "ir_element_type",
    "parse_element_type",
    "check_holdable",
]


class InputError(ValueError):
    """An `--input` value that cannot be read, or that does not fit the function's signature."""


@dataclass(eq=False, slots=True)
class BufferView:
    """A `!hal.buffer_view`: an array and the element type its bytes hold."""

    array: np.ndarray
    element_type: Type

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.array.shape)

    def byte_view(self) -> np.ndarray:
        """The buffer: the array's bytes, shared (no copy)."""
        return self.array.reshape(-1).view(np.uint8)

    def __str__(self) -> str:
        return f"{shape_text(self.shape)}{self.element_type}"


# -- element types ---------------------------------------------------------------------------------
# IREE's iree_hal_numerical_type_t (runtime/src/iree/hal/buffer_view.h): integer 0x10 (signed 0x11,
# unsigned 0x12, boolean 0x13), float 0x20 (IEEE 0x21, brain 0x22, complex 0x23).
_NUMERICAL = {"i": 0x10, "si": 0x11, "ui": 0x12, "bool": 0x13, "f": 0x21, "bf": 0x22, "cf": 0x23}


def element_type_code(t: Type) -> int:
    """IREE's element type code: (numerical type << 24) | bit count. A complex number counts both
    parts: complex<f32> is IREE_HAL_ELEMENT_TYPE_COMPLEX_FLOAT_64 (0x23000040)."""
    if isinstance(t, ComplexType) and isinstance(t.element, FloatType) and t.element.name in ("f32", "f64"):
        return (_NUMERICAL["cf"] << 24) | t.width
    if isinstance(t, IntegerType):
        if t.width == 1:
            return (_NUMERICAL["bool"] << 24) | 8
        return (_NUMERICAL[{"": "i", "s": "si", "u": "ui"}[t.signedness]] << 24) | t.width
    if isinstance(t, FloatType):
        return (_NUMERICAL["bf" if t.name == "bf16" else "f"] << 24) | t.width
    if isinstance(t, IndexType):
        return (_NUMERICAL["i"] << 24) | 64
    raise TypeError(f"{t} is not an element type")


_DTYPE_TO_TYPE = {
    np.dtype(np.float16): F16, np.dtype(np.float32): F32, np.dtype(np.float64): F64, np.dtype(np.bool_): I1,
    np.dtype(np.int8): I8, np.dtype(np.int16): I16, np.dtype(np.int32): I32, np.dtype(np.int64): I64,
    np.dtype(np.uint8): IntegerType(8, "u"), np.dtype(np.uint16): IntegerType(16, "u"),
    np.dtype(np.uint32): IntegerType(32, "u"), np.dtype(np.uint64): IntegerType(64, "u"),
    np.dtype(np.complex64): COMPLEX64, np.dtype(np.complex128): COMPLEX128,
}


def ir_element_type(dtype: np.dtype) -> Type:
    t = _DTYPE_TO_TYPE.get(np.dtype(dtype))
    if t is None:
        raise InputError(f"numpy dtype {dtype} has no streamproof element type")
    return t


_COMPLEX_NAMES = {"complex<f32>": COMPLEX64, "complex<f64>": COMPLEX128, "cf64": COMPLEX64, "cf128": COMPLEX128}


def parse_element_type(text: str) -> Type:
    """An `--input` element type: f32, i32, i1, ui8, ..., complex<f32> (or IREE's spelling cf64,
    which counts the bits of both parts), complex<f64> (cf128)."""
    if text in _COMPLEX_NAMES:
        return _COMPLEX_NAMES[text]
    m = re.fullmatch(r"(f|bf|i|si|ui)(\d+)", text)
    if m is None:
        raise InputError(f"unknown element type '{text}' (expected e.g. f32, i32, i1, ui8, complex<f32>)")
    kind, width = m.group(1), int(m.group(2))
    t: Type = FloatType(f"{kind}{width}") if kind in ("f", "bf") else IntegerType(width, {"i": "", "si": "s", "ui": "u"}[kind])
    try:
        dtype_of(t)
    except TypeError as e:
        raise InputError(str(e)) from None
    return t


def _called(module: Module, name: str) -> set[str]:
    """`name` and every function it calls, transitively (util.call / func.call callees)."""
    by_name = {getattr(op.properties.get("sym_name"), "value", None): op for op in module.ops}
    seen, todo = {name}, [name]
    while todo:
        fn = by_name.get(todo.pop())
        if fn is None:
            continue
        for op in fn.walk():
            callee = op.properties.get("callee")
            if isinstance(callee, SymbolRefAttr) and callee.root not in seen:
                seen.add(callee.root)
                todo.append(callee.root)
    return seen


def check_holdable(module: Module, function: str) -> None:
    """Refuse (DiagnosticError, exit 2) a program whose function `function`, or a function it
    calls, uses an element type the executor has no numpy dtype for (bf16, f8E4M3FN, i4, i128,
    complex<i32>, a timepoint or another dialect's type as an element, ...), before any work: the
    diagnostic points at the op using it and names the type and how it is used."""
    names = _called(module, function)
    for use in uses(module, names, scalars=True):
        try:
            dtype_of(use.element)
        except TypeError:
            kind = "elements" if isinstance(use.type, TensorType) else "values"
            raise DiagnosticError.at(use.op.location, f"`streamproof run` cannot hold {kind} of type {use.element}{describe(use)}: "
                                     f"the executor holds {HOLDABLE}") from None


def shape_text(shape: tuple[int, ...]) -> str:
    return "".join(f"{d}x" for d in shape)


# -- dense attributes ----------------------------------------------------------------------------
_TOKEN = re.compile(r"\s*(?:(true|false)|([-+]?(?:0x[0-9a-fA-F]+|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|nan))|([\[\](),]))")


def dense_to_numpy(attr: DenseAttr) -> np.ndarray:
    """The array a `dense<...> : tensor<...>` constant denotes (splats broadcast)."""
    t = attr.type
    if not isinstance(t, TensorType) or not t.is_static:
        raise InputError(f"dense constant of type {t} must have a static tensor type")
    shape = tuple(d for d in t.shape or () if d is not None)
    dtype = dtype_of(t.element)
    body = attr.body.strip()
    if body.startswith('"0x'):  # a hex blob of the raw little-endian elements
        raw = bytes.fromhex(body.strip('"')[2:])
        count = int(np.prod(shape, dtype=np.int64))
        arr = np.frombuffer(raw, dtype=dtype)
        if arr.size == 1 and count != 1:
            return np.full(shape, arr[0], dtype=dtype)
        return arr.reshape(shape).copy()
    # A complex element is written `(re,im)`: its parts are read as numbers of the part type and paired.
    part = np.dtype(np.float32 if dtype == np.complex64 else np.float64) if dtype.kind == "c" else dtype
    values: list[Any] = []
    pos = 0
    while pos < len(body):
        m = _TOKEN.match(body, pos)
        if m is None or m.end() == pos:
            if body[pos:].strip() == "":
                break
            raise InputError(f"cannot decode dense constant <{attr.body}>")
        boolean, number, _punct = m.groups()
        if boolean is not None:
            values.append(boolean == "true")
        elif number is not None and number.startswith("0x"):
            bits = int(number, 16)  # a float written as its bit pattern, or a hex integer
            values.append(np.array(bits, dtype=f"u{part.itemsize}").view(part).item() if part.kind == "f" else bits)
        elif number is not None:
            values.append(float(number) if part.kind == "f" else int(float(number)))
        pos = m.end()
    if dtype.kind == "c":
        if len(values) % 2:
            raise InputError(f"dense constant <{attr.body}> of {t} has an odd number of parts (each element is (re,im))")
        values = [complex(re, im) for re, im in zip(values[::2], values[1::2])]
    if len(values) == 1:
        return np.full(shape, values[0], dtype=dtype)
    arr = np.array(values, dtype=dtype)
    if arr.size != int(np.prod(shape, dtype=np.int64)):
        raise InputError(f"dense constant has {arr.size} elements but {t} needs {int(np.prod(shape))}")
    return arr.reshape(shape)


# -- --input parsing ---------------------------------------------------------------------------------
DEFAULT_MAX_INPUT_BYTES = 1 << 30  # 1 GiB: what one run may allocate for its inputs unless told otherwise

_INT = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|[0-9]+)")
_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE)


def byte_size(n: int) -> str:
    """`74.5 GiB (80000000000 bytes)`: a byte count a user can read."""
    value, unit = float(n), "bytes"
    for u in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if value < 1024:
            break
        value, unit = value / 1024, u
    return f"{n} bytes" if unit == "bytes" else f"{value:.1f} {unit} ({n} bytes)"


def check_size(what: str, nbytes: int, max_bytes: int | None, hint: str = "", used: int = 0) -> None:
    """Refuse (InputError) an input of `nbytes` that would take the inputs (`used` bytes so far)
    above the limit, before anything is allocated."""
    if max_bytes is not None and used + nbytes > max_bytes:
        others = f" (the inputs before it take {byte_size(used)})" if used else ""
        raise InputError(f"{what}: {byte_size(nbytes)}{others} is above the input limit of {byte_size(max_bytes)} "
                         f"(raise it with --max-input-bytes{hint})")


def parse_input(text: str, base: Path | None = None, max_bytes: int | None = None,
                used: int = 0) -> np.ndarray | int | float | bool | complex:
    """One `--input` value (see module docstring). Returns an array for shaped values and a Python
    scalar for scalars (`7`, `i32=7`). Every element must fit its type (`5xi8=300` is an
    InputError, not a wrapped value), and a value above `max_bytes` is refused before it is
    allocated (`used`: the bytes the inputs before it take of that limit)."""
    text = text.strip().strip('"')
    if not text:
        raise InputError("empty --input value")
    if text.startswith("@"):
        return _load_npy(text[1:], base, max_bytes, used)
    head, sep, data = text.partition("=")
    if not head.isascii() or (not data.startswith("@") and not data.isascii()):
        bad = next(c for c in text if not c.isascii())
        raise InputError(f"'{text}' has the non-ASCII character {bad!r} (U+{ord(bad):04X}); write shapes and numbers in ASCII")
    if not sep:
        if _looks_like_number(head):
            return _scalar(head, None)
        shape, etype = _shape_and_type(head)
        dtype = dtype_of(etype)
        check_size(f"'{head}'", math.prod(shape) * dtype.itemsize, max_bytes, used=used)
        return np.zeros(shape, dtype=dtype)
    shape, etype = _shape_and_type(head)
    dtype = dtype_of(etype)
    if not shape and not data.startswith("@"):
        return _scalar(data, etype)
    count = math.prod(shape)
    check_size(f"'{head}'", count * dtype.itemsize, max_bytes, used=used)
    if data.startswith("@"):
        path = _resolve(data[1:], base)
        want = count * dtype.itemsize
        try:
            with open(path, "rb") as f:  # one byte more than needed tells a longer file; /dev/zero never ends
                raw = f.read(want + 1)
        except OSError as e:
            raise InputError(f"cannot read {path}: {e.strerror}") from None
        if len(raw) != want:
            held = f"{len(raw)} bytes" if len(raw) <= want else f"more than {want} bytes"
            raise InputError(f"{path} holds {held} but {head} needs {want}")
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    tokens = [t for t in re.split(r"[\s,\[\]]+", data) if t]
    if not tokens:
        return np.zeros(shape, dtype=dtype)
    values = [_element(tok, etype, dtype, text) for tok in tokens]
    if len(values) == 1:
        return np.full(shape, values[0], dtype=dtype)
    if len(values) != count:
        raise InputError(f"'{head}' needs {count} elements (or one, to splat) but {len(values)} were given")
    return np.array(values, dtype=dtype).reshape(shape)


def _looks_like_number(text: str) -> bool:
    # Decimal only: `0xf32` is a tensor of no elements, not the hexadecimal number 0xf32.
    return bool(_FLOAT.fullmatch(text)) or text in ("true", "false")


def _scalar(text: str, etype: Type | None) -> int | float | bool | complex:
    text = text.strip()
    if etype is None:
        if text in ("true", "false"):
            return text == "true"
        if _INT.fullmatch(text) and not text.lstrip("+-").lower().startswith("0x"):
            return int(text)
        if _FLOAT.fullmatch(text):
            return float(text)
        raise InputError(f"cannot read '{text}' as a number")
    value = _element(text, etype, dtype_of(etype), f"{etype}={text}")
    return value.item() if isinstance(value, np.generic) else value


_PART = r"(?:[0-9]+\.?[0-9]*(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?|inf(?:inity)?|nan)"
_COMPLEX = re.compile(rf"\(?[-+]?(?:{_PART}(?:[-+]{_PART}?j)?|{_PART}?j)\)?", re.IGNORECASE)


def _complex_element(tok: str, etype: Type, dtype: np.dtype, text: str) -> complex:
    """`1+2j`, `-0.5j`, `3`, `(1-2j)`, `nan+infj`: Python's (and numpy's) complex literal."""
    try:
        if not _COMPLEX.fullmatch(tok):
            raise ValueError
        value = complex(tok)
    except ValueError:
        raise InputError(f"cannot read the elements of '{text}' as {etype} ('{tok}'; write a complex number as 1+2j, "
                         "-0.5j or 3)") from None
    largest = float(np.finfo(dtype).max)
    for part in (value.real, value.imag):
        overflowed = math.isinf(part) and "inf" not in tok.lower()  # 1e999 overflows to inf: out of range
        if overflowed or (math.isfinite(part) and abs(part) > largest):
            raise InputError(f"{tok} in '{text}' is out of range for {etype} (largest finite part {largest:G})")
    return value


def _element(tok: str, etype: Type, dtype: np.dtype, text: str) -> Any:
    """One element of type `etype`, checked to fit: an InputError names the value and the range."""
    if dtype.kind == "c":
        return _complex_element(tok, etype, dtype, text)
    if dtype.kind == "b":
        if tok in ("1", "true"):
            return True
        if tok in ("0", "false"):
            return False
        raise InputError(f"'{tok}' in '{text}' is not an {etype} value (0, 1, true or false)")
    if dtype.kind == "f":
        if not _FLOAT.fullmatch(tok):
            raise InputError(f"cannot read the elements of '{text}' as {etype} ('{tok}')")
        value = float(tok)
        literal_inf = tok.lstrip("+-").lower() in ("inf", "infinity")  # 1e999 overflows to inf: out of range
        if not math.isnan(value) and not literal_inf and abs(value) > float(np.finfo(dtype).max):
            raise InputError(f"{tok} in '{text}' is out of range for {etype} (largest finite value {np.finfo(dtype).max:G})")
        return value
    if not _INT.fullmatch(tok):
        raise InputError(f"cannot read the elements of '{text}' as {etype} ('{tok}')")
    value = int(tok, 0) if tok.lstrip("+-").lower().startswith("0x") else int(tok)
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise InputError(f"{tok} in '{text}' is out of range for {etype} [{info.min}, {info.max}]")
    return value


# `4x8xf32`: the dims (each followed by `x`) and the element type, which may itself contain an `x`
# (`index`: 64-bit, as results print; `complex<f32>`).
_HEAD = re.compile(r"((?:[^x]*x)*?)(index|complex<[^<>]*>|[^x]*)")


def _shape_and_type(head: str) -> tuple[tuple[int, ...], Type]:
    m = _HEAD.fullmatch(head)
    if m is None:
        raise InputError(f"invalid shape in '{head}' (expected e.g. 4x8xf32)")
    etype = INDEX if m.group(2) == "index" else parse_element_type(m.group(2))
    dims: list[int] = []
    for p in m.group(1).split("x")[:-1]:
        if not re.fullmatch(r"[0-9]+", p):
            raise InputError(f"invalid shape in '{head}' (expected e.g. 4x8xf32)")
        dims.append(int(p))
    return tuple(dims), etype


def _resolve(path: str, base: Path | None) -> Path:
    p = Path(path)
    return p if p.is_absolute() or base is None else base / p


def _npy_nbytes(p: Path) -> int:
    """The size of the array a .npy file holds, from its header alone (0 if the header is not
    readable: np.load then says why)."""
    try:
        with open(p, "rb") as f:
            version = np.lib.format.read_magic(f)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, _, dtype = read(f)
    except (OSError, ValueError, EOFError, SyntaxError):
        return 0
    return math.prod(shape) * np.dtype(dtype).itemsize


def _load_npy(path: str, base: Path | None, max_bytes: int | None = None, used: int = 0) -> np.ndarray:
    p = _resolve(path, base)
    if max_bytes is not None:
        check_size(str(p), _npy_nbytes(p), max_bytes, used=used)
    try:
        arr = np.load(p, allow_pickle=False)
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except (OSError, ValueError, EOFError) as e:  # an empty or truncated file raises EOFError
        raise InputError(f"{p}: not a .npy file ({e})") from None
    if not isinstance(arr, np.ndarray):
        raise InputError(f"{p}: expected one array (.npy), not an archive")
    return np.ascontiguousarray(arr)


# -- printing ------------------------------------------------------------------------------------
def _element_text(v: Any, kind: str) -> str:
    if kind == "f":
        return f"{float(v):G}"
    if kind == "c":  # numpy's spelling with C's %G parts, and what --input reads back: 1+2J -> 1+2j
        z = complex(v)
        return f"{z.real:G}{z.imag:+G}j"
    if kind == "b":
        return "1" if v else "0"
    return str(int(v))


def format_value(value: Any, element_type: Type | None = None, max_elements: int = 1024) -> str:
    """iree-run-module's text for a result."""
    if isinstance(value, BufferView):
        return format_array(value.array, value.element_type, max_elements)
    if isinstance(value, np.ndarray):
        return format_array(value, element_type or ir_element_type(value.dtype), max_elements)
    if isinstance(value, np.generic) and not isinstance(value, np.bool_):
        t = element_type or ir_element_type(value.dtype)
        if value.dtype.kind in "fc":
            return f"{t}={_element_text(value, value.dtype.kind)}"
        return f"{t}={int(value)}"
    if isinstance(value, (bool, np.bool_)):
        return f"i1={int(bool(value))}"
    if isinstance(value, (int, np.integer)):
        return f"{element_type or 'i64'}={int(value)}"
    if isinstance(value, (float, np.floating)):
        return f"{element_type or 'f64'}={float(value):G}"
    if isinstance(value, complex):
        return f"{element_type or 'complex<f64>'}={_element_text(value, 'c')}"
    return str(value)


def format_array(arr: np.ndarray, etype: Type, max_elements: int = 1024) -> str:
    budget = [max_elements]
    kind = arr.dtype.kind

    def leaf(row: np.ndarray) -> str:
        n = min(budget[0], row.shape[0])
        budget[0] -= n
        text = " ".join(_element_text(x, kind) for x in row[:n])
        return text + ("..." if n < row.shape[0] else "")

    def nested(a: np.ndarray) -> str:
        if a.ndim == 1:
            return leaf(a)
        parts = []
        for i in range(a.shape[0]):
            if budget[0] <= 0:  # the rest is elided once, not as an empty row per row
                parts.append("...")
                break
            parts.append("[" + nested(a[i]) + "]")
        return "".join(parts)

    body = leaf(arr.reshape(1)) if arr.ndim == 0 else nested(arr)
    return f"{shape_text(tuple(arr.shape))}{etype}={body}"

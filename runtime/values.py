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
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from runtime.memory import dtype_of
from stream.ir.attributes import DenseAttr
from stream.ir.types import F16, F32, F64, I1, I8, I16, I32, I64, INDEX, FloatType, IndexType, IntegerType, TensorType, Type

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
_NUMERICAL = {"i": 0x10, "si": 0x11, "ui": 0x12, "bool": 0x13, "f": 0x21, "bf": 0x22}


def element_type_code(t: Type) -> int:
    """IREE's element type code: (numerical type << 24) | bit count."""
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
}


def ir_element_type(dtype: np.dtype) -> Type:
    t = _DTYPE_TO_TYPE.get(np.dtype(dtype))
    if t is None:
        raise InputError(f"numpy dtype {dtype} has no streamproof element type")
    return t


def parse_element_type(text: str) -> Type:
    m = re.fullmatch(r"(f|bf|i|si|ui)(\d+)", text)
    if m is None:
        raise InputError(f"unknown element type '{text}' (expected e.g. f32, i32, i1, ui8)")
    kind, width = m.group(1), int(m.group(2))
    t: Type = FloatType(f"{kind}{width}") if kind in ("f", "bf") else IntegerType(width, {"i": "", "si": "s", "ui": "u"}[kind])
    try:
        dtype_of(t)
    except TypeError as e:
        raise InputError(str(e)) from None
    return t


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
            values.append(np.array(bits, dtype=f"u{dtype.itemsize}").view(dtype).item() if dtype.kind == "f" else bits)
        elif number is not None:
            values.append(float(number) if dtype.kind == "f" else int(float(number)))
        pos = m.end()
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
                used: int = 0) -> np.ndarray | int | float | bool:
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


def _scalar(text: str, etype: Type | None) -> int | float | bool:
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


def _element(tok: str, etype: Type, dtype: np.dtype, text: str) -> Any:
    """One element of type `etype`, checked to fit: an InputError names the value and the range."""
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


def _shape_and_type(head: str) -> tuple[tuple[int, ...], Type]:
    if head == "index" or head.endswith("xindex"):  # `index=5`, `4xindex=1`: 64-bit, as results print
        parts = [*head[: -len("index")].rstrip("x").split("x"), "index"] if head != "index" else ["index"]
    else:
        parts = head.split("x")
    etype = INDEX if parts[-1] == "index" else parse_element_type(parts[-1])
    dims: list[int] = []
    for p in parts[:-1]:
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
        return f"{t}={value.item():G}" if value.dtype.kind == "f" else f"{t}={int(value)}"
    if isinstance(value, (bool, np.bool_)):
        return f"i1={int(bool(value))}"
    if isinstance(value, (int, np.integer)):
        return f"{element_type or 'i64'}={int(value)}"
    if isinstance(value, (float, np.floating)):
        return f"{element_type or 'f64'}={float(value):G}"
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

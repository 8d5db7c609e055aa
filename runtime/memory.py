"""Device memory: allocations (numpy byte buffers), byte-range references and per-device pools.

* An `Allocation` is one block of storage: a flat `uint8` numpy array, the device it lives on,
  how it came to be (queue-ordered `alloca`, synchronous `alloc`, an `import` of caller storage, a
  `constant` upload) and its state. A queue-ordered allocation has no storage until its alloca runs
  (contents are undefined until then) and none after its dealloca ran; touching it then is an
  error naming both ops, never a crash.
* A `ResourceRef` is what a `!stream.resource` value holds at run time: an allocation and a byte
  window into it (`stream.resource.subview` moves the window; captures and ties share it).
* A `DevicePool` counts the live and peak bytes of a device's allocations. With a capacity it
  refuses (or, in the task driver, parks) allocas that do not fit, as IREE's pools do.

Fresh storage is filled with `POISON` (0xFF bytes: NaN for floats, -1 for integers) so that reading
undefined memory shows up in results instead of silently reading zeros.
"""

from __future__ import annotations

import functools
import itertools
import threading
from dataclasses import dataclass, field

import numpy as np

from stream.ir.types import ComplexType, FloatType, IndexType, IntegerType, Type

__all__ = [
    "POISON",
    "Allocation",
    "ResourceRef",
    "DevicePool",
    "dtype_of",
    "HOLDABLE",
    "MemoryFault",
]

POISON = 0xFF
_ids = itertools.count(1)

_FLOATS = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
_COMPLEX = {"f32": np.complex64, "f64": np.complex128}
_INTS = {8: (np.int8, np.uint8), 16: (np.int16, np.uint16), 32: (np.int32, np.uint32), 64: (np.int64, np.uint64)}


HOLDABLE = "i1, i8, i16, i32, i64 (signless, si or ui), f16, f32, f64, complex<f32>, complex<f64> and index"


@functools.lru_cache(maxsize=256)
def dtype_of(t: Type) -> np.dtype:
    """The numpy dtype that stores an element of type `t` (i1 takes a byte, as in IREE;
    complex<f32> is numpy's complex64: the real part, then the imaginary part). Any other type
    (bf16, f8E4M3FN, i4, i128, complex<i32>, ...) raises TypeError: the executor cannot hold it, and
    `runtime.values.check_holdable` refuses such a program before it runs."""
    if isinstance(t, FloatType):
        dt = _FLOATS.get(t.name)
        if dt is None:
            raise TypeError(f"element type {t} has no numpy equivalent (the executor holds {HOLDABLE})")
        return np.dtype(dt)
    if isinstance(t, ComplexType):
        part = t.element
        if isinstance(part, FloatType) and part.name in _COMPLEX:
            return np.dtype(_COMPLEX[part.name])
        raise TypeError(f"element type {t} has no numpy equivalent (the executor holds {HOLDABLE})")
    if isinstance(t, IntegerType):
        if t.width == 1:
            return np.dtype(np.bool_)
        pair = _INTS.get(t.width)
        if pair is None:
            raise TypeError(f"element type {t} has no numpy equivalent (the executor holds {HOLDABLE})")
        return np.dtype(pair[1] if t.signedness == "u" else pair[0])
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    raise TypeError(f"type {t} is not a scalar element type (the executor holds {HOLDABLE})")


class MemoryFault(Exception):
    """An access the memory cannot serve: before the storage exists, after it was freed, or out
    of bounds. Raised on the device that tried; it fails that submission."""


@dataclass(eq=False, slots=True)
class Allocation:
    """One block of device storage. `state` is "pending" (queue-ordered, not yet allocated),
    "live" or "freed". `label` describes it for messages ("%result (alloca at prog.mlir:14:5)")."""

    size: int
    device: str
    kind: str  # "alloca" | "alloc" | "import" | "constant"
    label: str
    lifetime: str = ""
    data: np.ndarray | None = None
    state: str = "pending"
    consumed: bool = True  # for imports: storage the program may write (`consume`)
    refcount: int = 1
    deallocas: int = 0  # deallocas issued so far (a second one is a DOUBLE_FREE)
    freed_by: str = ""
    first_free: str = ""  # the first dealloca or last-claim release issued for it (for DOUBLE_FREE reports)
    # Devices the storage lives on (from the creating op's affinity); None: unknown, any device
    # may use it (a resource-typed function argument). Dispatches and fills on other devices are
    # AFFINITY_MISMATCH; copies, flushes, invalidates and discards are transfers and may cross.
    placement: frozenset[str] | None = None
    indeterminate: bool = False  # `alloca ... indeterminate`: only its last release frees it
    escaped: bool = False  # exported or returned: the caller observes it
    _readonly: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)  # (data, read-only view of it)
    id: int = field(default_factory=lambda: next(_ids))

    def materialize(self, poison: bool = True) -> None:
        """Give the allocation its storage (filled with POISON when `poison`). A size numpy or the
        machine cannot hold (`alloca` of 2^63 bytes) is a MemoryFault, as any failed access is."""
        try:
            self.data = np.full(self.size, POISON, dtype=np.uint8) if poison else np.empty(self.size, dtype=np.uint8)
        except (MemoryError, ValueError) as e:
            raise MemoryFault(f"cannot allocate {self.size} bytes for {self.label} ({e or type(e).__name__})") from None
        self.state = "live"

    def readonly(self) -> np.ndarray:
        """A read-only view of the whole storage (kept while the storage stays the same), from
        which dispatches cut their input arrays: cheaper than flagging each input view."""
        data = self.data
        cached = self._readonly
        if cached is not None and cached[0] is data:
            return cached[1]
        assert data is not None, "readonly() of an allocation without storage"
        view = data.view()
        view.flags.writeable = False
        self._readonly = (data, view)
        return view

    def bytes(self, offset: int, length: int, what: str) -> np.ndarray:
        """The byte window [offset, offset+length), checked; `what` names the access for errors."""
        data = self.data
        if data is None:
            if self.state == "freed":
                raise MemoryFault(f"{what} touches {self.label} after it was freed ({self.freed_by})")
            raise MemoryFault(f"{what} touches {self.label} before its storage exists (the alloca has not run)")
        if offset < 0 or length < 0 or offset + length > self.size:
            raise MemoryFault(f"{what} accesses bytes [{offset}, {offset + length}) of {self.label}, which has {self.size} bytes")
        return data[offset : offset + length]

    def __repr__(self) -> str:
        return f"<Allocation #{self.id} {self.label} {self.size}B on @{self.device} {self.state}>"


@dataclass(frozen=True, slots=True)
class ResourceRef:
    """A `!stream.resource` value at run time: `length` bytes of `allocation` from `offset`."""

    allocation: Allocation
    offset: int
    length: int

    def subview(self, offset: int, length: int) -> ResourceRef:
        if offset < 0 or length < 0 or offset + length > self.length:
            raise MemoryFault(
                f"subview [{offset}, {offset + length}) is outside the resource's {self.length} bytes ({self.allocation.label})"
            )
        return ResourceRef(self.allocation, self.offset + offset, length)


class DevicePool:
    """Live and peak bytes of one device's pool-backed allocations (alloca, alloc, constants;
    imports are the caller's memory and are not counted). `capacity` None means unlimited."""

    def __init__(self, device: str, capacity: int | None = None) -> None:
        self.device = device
        self.capacity = capacity
        self.live = 0
        self.peak = 0
        self.allocations = 0
        self._lock = threading.Lock()

    def fits(self, size: int) -> bool:
        return self.capacity is None or self.live + size <= self.capacity

    def reserve(self, size: int) -> bool:
        """Count `size` more live bytes; False (nothing counted) when over capacity."""
        with self._lock:
            if self.capacity is not None and self.live + size > self.capacity:
                return False
            self.live += size
            self.allocations += 1
            self.peak = max(self.peak, self.live)
            return True

    def release(self, size: int) -> None:
        with self._lock:
            self.live -= size
            assert self.live >= 0, "pool accounting went negative"

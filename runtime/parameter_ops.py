"""The host rules of the parameter ops (`stream.cmd.parameter.*`, `util.buffer.constant`).

There is no parameter archive: the executor's parameter store is a deterministic stand-in. Byte
`i` of the parameter `scope::key` is byte `i % 64` of BLAKE2b-512 of `scope NUL key NUL i // 64`,
so every run, driver and schedule reads the same bytes, and two reads of overlapping ranges agree.
A `write`/`scatter` stores its bytes in the session's overlay (`Session.parameters`), which later
reads of the same run see.

Each op is a submission on its device after its `await` timepoint: loads allocate their results
and fill them; reads and gathers write target ranges, writes and scatters read source ranges,
each access recorded with the race detector (`--check-races`) like a command's.
"""

from __future__ import annotations

import hashlib

import numpy as np

from runtime.frame import Frame, rule
from runtime.frame import fence as _fence
from runtime.frame import lifetime as _lifetime
from runtime.frame import named as _named
from runtime.frame import ref as _ref
from runtime.memory import Allocation, MemoryFault, ResourceRef
from runtime.races import AccessSite
from runtime.scheduler import Submission, WorkContext, WorkFailure
from runtime.status import Status, StatusCode
from stream.ir.attributes import StringAttr
from stream.ir.core import Op, Value
from stream.ir.spec import view

__all__ = ["parameter_bytes"]

Key = tuple[bytes, bytes]


def parameter_bytes(scope: bytes, key: bytes, offset: int, length: int) -> bytes:
    """The stand-in archive's bytes `[offset, offset + length)` of `scope::key`."""
    if length <= 0:
        return b""
    first, last = offset // 64, (offset + length - 1) // 64
    blob = b"".join(hashlib.blake2b(scope + b"\0" + key + b"\0" + str(b).encode()).digest() for b in range(first, last + 1))
    start = offset - first * 64
    return blob[start:start + length]


@rule("util.buffer.constant")
def _buffer_constant(fr: Frame, op: Op) -> None:
    value = op.properties.get("value")
    fr.env[op.results[0]] = value.value.encode() if isinstance(value, StringAttr) else str(value).encode()


def _name(fr: Frame, v: Value | None) -> bytes:
    if v is None:
        return b""
    b = fr.value(v)
    return b if isinstance(b, bytes) else str(b).encode()


def _read(fr: Frame, key: Key, offset: int, length: int) -> bytes:
    data = bytearray(parameter_bytes(key[0], key[1], offset, length))
    for w_off, w_data in fr.session.parameters.get(key, ()):
        lo, hi = max(offset, w_off), min(offset + length, w_off + len(w_data))
        if lo < hi:
            data[lo - offset:hi - offset] = w_data[lo - w_off:hi - w_off]
    return bytes(data)


class _Op:
    """One parameter submission: its accesses, checked and recorded when it runs."""

    def __init__(self, fr: Frame, op: Op) -> None:
        self.fr, self.op = fr, op
        s = fr.session
        self.races = s.races
        self.component = self.races.new_component() if self.races is not None else 0
        self.seq = self.races.next_seq() if self.races is not None else 0
        self.label = f"{op.name} at {op.location}"
        self.site = AccessSite(op.name, str(op.location), self.component, {self.component: 1}, (self.seq, 0), self.seq)

    def touch(self, ctx: WorkContext, ref: ResourceRef, offset: int, length: int, write: bool) -> np.ndarray:
        if offset < 0 or length < 0 or offset + length > ref.length:
            raise WorkFailure(Status(StatusCode.OUT_OF_RANGE, f"OUT_OF_BOUNDS: {self.op.name} accesses [{offset}, {offset + length}) "
                                     f"of a {ref.length}-byte resource", self.label))
        lo = ref.offset + offset
        if self.races is not None:
            self.races.access(ref.allocation, lo, lo + length, write, self.site, ctx.submission.start_clock)
        try:
            return ref.allocation.bytes(lo, length, self.label)
        except MemoryFault as e:
            raise WorkFailure(Status(StatusCode.DATA_LOSS, str(e), self.label)) from None

    def submit(self, work: object, memory: int = 0) -> Submission:
        s = self.fr.session
        v = view(self.op)
        fence, sub = s.submit(self.op, self.op.name.rsplit(".", 1)[-1], _fence(self.fr, v.await_timepoint), work,  # type: ignore[arg-type]
                            memory=memory, component=self.component, final_local={self.component: 1})
        self.fr.env[self.op.results[-1]] = fence
        return sub


@rule("stream.cmd.parameter.load")
def _load(fr: Frame, op: Op) -> None:
    v = view(op)
    s = fr.session
    scope = _name(fr, v.source_scope)
    keys = [(scope, _name(fr, k)) for k in v.source_keys]
    offsets = [int(fr.value(o)) for o in v.source_offsets]
    sizes = [int(fr.value(n)) for n in v.result_sizes]
    device, _ = s.device_of(op)
    p = _Op(fr, op)
    allocs = []
    for i, (r, size) in enumerate(zip(v.results, sizes)):
        alloc = Allocation(size, device, "alloca", _named(r, f"parameter {i}", op), _lifetime(r.type), placement=s.devices_of(op))
        s.allocations.append(alloc)
        allocs.append(alloc)
        fr.env[r] = ResourceRef(alloc, 0, size)

    def work(ctx: WorkContext) -> None:
        for alloc, key, offset in zip(allocs, keys, offsets):
            alloc.materialize(s.sched.poison)
            assert alloc.data is not None
            alloc.data[:] = np.frombuffer(_read(fr, key, offset, alloc.size), dtype=np.uint8)
        s.counter(device)

    sub = p.submit(work, memory=sum(sizes))
    if p.races is not None:
        for alloc in allocs:
            p.races.on_alloca(alloc, sub)


def _gather(fr: Frame, op: Op, keys: tuple[Value, ...], offsets: tuple[Value, ...], t_offsets: tuple[Value, ...],
            t_lengths: tuple[Value, ...]) -> None:
    v = view(op)
    scope = _name(fr, v.source_scope)
    rows = [((scope, _name(fr, k)), int(fr.value(o)), int(fr.value(t)), int(fr.value(n)))
            for k, o, t, n in zip(keys, offsets, t_offsets, t_lengths)]
    target = _ref(fr, v.target, op)
    p = _Op(fr, op)

    def work(ctx: WorkContext) -> None:
        for key, offset, t_offset, length in rows:
            p.touch(ctx, target, t_offset, length, True)[:] = np.frombuffer(_read(fr, key, offset, length), dtype=np.uint8)

    p.submit(work)


@rule("stream.cmd.parameter.read")
def _read_rule(fr: Frame, op: Op) -> None:
    v = view(op)
    _gather(fr, op, (v.source_key,), (v.source_offset,), (v.target_offset,), (v.target_length,))


@rule("stream.cmd.parameter.gather")
def _gather_rule(fr: Frame, op: Op) -> None:
    v = view(op)
    _gather(fr, op, v.source_keys, v.source_offsets, v.target_offsets, v.target_lengths)


def _scatter(fr: Frame, op: Op, s_offsets: tuple[Value, ...], s_lengths: tuple[Value, ...], keys: tuple[Value, ...],
             offsets: tuple[Value, ...]) -> None:
    v = view(op)
    scope = _name(fr, v.target_scope)
    rows = [(int(fr.value(so)), int(fr.value(n)), (scope, _name(fr, k)), int(fr.value(o)))
            for so, n, k, o in zip(s_offsets, s_lengths, keys, offsets)]
    source = _ref(fr, v.source, op)
    p = _Op(fr, op)
    store = fr.session.parameters

    def work(ctx: WorkContext) -> None:
        for s_offset, length, key, offset in rows:
            data = bytes(p.touch(ctx, source, s_offset, length, False))
            store.setdefault(key, []).append((offset, data))

    p.submit(work)


@rule("stream.cmd.parameter.write")
def _write_rule(fr: Frame, op: Op) -> None:
    v = view(op)
    _scatter(fr, op, (v.source_offset,), (v.source_length,), (v.target_key,), (v.target_offset,))


@rule("stream.cmd.parameter.scatter")
def _scatter_rule(fr: Frame, op: Op) -> None:
    v = view(op)
    _scatter(fr, op, v.source_offsets, v.source_lengths, v.target_keys, v.target_offsets)

"""schedule-allocation's lowering of the async parameter ops to their cmd forms.

`stream.async.parameter.{load,read,write,gather,scatter}` run outside execution regions at both
levels. At the cmd level a load returns the new resources (`stream.cmd.parameter.load`, one row);
the others touch storage the program already has, so their resource result is the target
(read, gather) or source (write, scatter) storage itself, and the ranges lose their `end`
(`[offset for length]`). The awaited and the result timepoint carry over unchanged; a pending
host upload or alloca the op takes is awaited on the host first (`settle`), as for any host op.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from stream.ir.core import Op, Value
from stream.ir.spec import view
from stream.passes.block_builder import BlockBuilder

__all__ = ["parameter_rules"]


class Host(Protocol):
    b: BlockBuilder

    def settle(self, op: Op) -> None: ...


def _lookup(b: BlockBuilder, v: Value | tuple[Value, ...] | None) -> Any:
    if v is None:
        return ()
    if isinstance(v, tuple):
        return tuple(b.lookup(x) for x in v)
    return b.lookup(v)


def _emit(host: Host, op: Op, name: str, groups: dict[str, Any], results: dict[str, Any] | None = None) -> Op:
    host.settle(op)
    b = host.b
    operands = {k: _lookup(b, v) for k, v in groups.items()}
    new = b.create(name, operands, results or {}, {"affinity": view(op).affinity}, discardable=op.attributes, location=op.location)
    b.bind(op.results[-1], new.results[-1])
    return new


def _load(host: Host, op: Op) -> None:
    v = view(op)
    new = _emit(host, op, "stream.cmd.parameter.load",
                {"source_scope": v.source_scope, "source_keys": (v.source_key,), "source_offsets": (v.source_offset,),
                 "result_sizes": (v.result_size,), "await_timepoint": v.await_timepoint}, {"results": (op.results[0].type,)})
    host.b.bind(op.results[0], new.results[0])


def _read(host: Host, op: Op) -> None:
    v = view(op)
    _emit(host, op, "stream.cmd.parameter.read",
          {"source_scope": v.source_scope, "source_key": v.source_key, "source_offset": v.source_offset, "target": v.target,
           "target_size": v.target_size, "target_offset": v.target_offset, "target_length": v.target_length,
           "await_timepoint": v.await_timepoint})
    host.b.bind(op.results[0], host.b.lookup(v.target))


def _write(host: Host, op: Op) -> None:
    v = view(op)
    _emit(host, op, "stream.cmd.parameter.write",
          {"source": v.source, "source_size": v.source_size, "source_offset": v.source_offset, "source_length": v.source_length,
           "target_scope": v.target_scope, "target_key": v.target_key, "target_offset": v.target_offset,
           "await_timepoint": v.await_timepoint})
    host.b.bind(op.results[0], host.b.lookup(v.source))


def _gather(host: Host, op: Op) -> None:
    v = view(op)
    _emit(host, op, "stream.cmd.parameter.gather",
          {"source_scope": v.source_scope, "source_keys": v.source_keys, "source_offsets": v.source_offsets, "target": v.target,
           "target_size": v.target_size, "target_offsets": v.target_offsets, "target_lengths": v.target_lengths,
           "await_timepoint": v.await_timepoint})
    host.b.bind(op.results[0], host.b.lookup(v.target))


def _scatter(host: Host, op: Op) -> None:
    v = view(op)
    _emit(host, op, "stream.cmd.parameter.scatter",
          {"source": v.source, "source_size": v.source_size, "source_offsets": v.source_offsets, "source_lengths": v.source_lengths,
           "target_scope": v.target_scope, "target_keys": v.target_keys, "target_offsets": v.target_offsets,
           "await_timepoint": v.await_timepoint})
    host.b.bind(op.results[0], host.b.lookup(v.source))


def parameter_rules() -> dict[str, Callable[[Any, Op], None]]:
    """The entries of schedule-allocation's `_HOST_RULES` for the parameter ops."""
    return {
        "stream.async.parameter.load": _load,
        "stream.async.parameter.read": _read,
        "stream.async.parameter.write": _write,
        "stream.async.parameter.gather": _gather,
        "stream.async.parameter.scatter": _scatter,
    }

"""Semantics of the parameter ops (`stream.async.parameter.*`, `stream.cmd.parameter.*`).

A parameter's bytes are opaque but deterministic: one atom per (scope, key), so that the bytes
`[offset, offset + length)` read from it are the same term in both programs whenever the scope,
the key and the range are the same (a key is `util.buffer.constant`'s string, or the function
argument that carries it). Loads make new values (async) or allocations (cmd) holding them;
reads and gathers overwrite ranges of their target with them (tied at the async level, stored
at the cmd level).

Writes and scatters send bytes to the archive, which a caller can observe but the comparison of
returned values does not: they make the check undecided rather than say nothing about them.
"""

from __future__ import annotations

from typing import Any

from stream.ir.core import Op, Value
from verify.refinement.ints import IntExpr
from verify.refinement.machine import BufView, Machine, Res, groups, rule
from verify.refinement.rules_host import parameter_atom
from verify.refinement.rules_tensor import sized
from verify.refinement.solver import Undecided
from verify.refinement.terms import ByteStr


def _name(m: Machine, v: Value | None) -> Any:
    if v is None:
        return None
    e = m.entry(v)
    if isinstance(e, BufView):
        return ("arg", e.arg)
    return e


def parameter_bytes(m: Machine, op: Op, scope: Value | None, key: Value, offset: Value, length: IntExpr) -> ByteStr:
    """The bytes `[offset, offset + length)` of the parameter `scope::key`."""
    atom = parameter_atom(m, op, (_name(m, scope), _name(m, key)))
    return m.terms.of(atom, length, m.integer(offset))


@rule("stream.async.parameter.load")
def _async_load(m: Machine, op: Op) -> None:
    v = groups(op)
    size = m.integer(v.result_size)
    m.facts.assume_nonneg(size)
    m.set(op.results[0], m.fresh(parameter_bytes(m, op, v.source_scope, v.source_key, v.source_offset, size), op))
    m.set(op.results[1], None)


def _async_gather(m: Machine, op: Op, keys: tuple[Value, ...], offsets: tuple[Value, ...], t_offsets: tuple[Value, ...],
                  t_ends: tuple[Value, ...], t_lengths: tuple[Value, ...]) -> None:
    v = groups(op)
    target = sized(m, v.target, v.target_size)
    data = m.bytes_of(target)
    low: IntExpr | None = None
    high: IntExpr | None = None
    for key, offset, start_v, end_v, length_v in zip(keys, offsets, t_offsets, t_ends, t_lengths):
        start, length = m.integer(start_v), m.integer(length_v)
        m.facts.assume_eq(m.integer(end_v), m.ints.add(start, length))
        m.in_bounds(start, length, target.size)
        data = m.terms.overwrite(data, start, parameter_bytes(m, op, v.source_scope, key, offset, length))
        low = start if low is None else low
        high = m.ints.add(start, length)
    written = (low, high) if len(keys) == 1 and low is not None and high is not None else None
    m.set(op.results[0], m.tied(target, data, op, written))
    m.set(op.results[1], None)


@rule("stream.async.parameter.read")
def _async_read(m: Machine, op: Op) -> None:
    v = groups(op)
    _async_gather(m, op, (v.source_key,), (v.source_offset,), (v.target_offset,), (v.target_end,), (v.target_length,))


@rule("stream.async.parameter.gather")
def _async_gather_rule(m: Machine, op: Op) -> None:
    v = groups(op)
    _async_gather(m, op, v.source_keys, v.source_offsets, v.target_offsets, v.target_ends, v.target_lengths)


@rule("stream.cmd.parameter.load")
def _cmd_load(m: Machine, op: Op) -> None:
    v = groups(op)
    for i, (key, offset, size_v) in enumerate(zip(v.source_keys, v.source_offsets, v.result_sizes)):
        size = m.integer(size_v)
        m.facts.assume_nonneg(size)
        data = parameter_bytes(m, op, v.source_scope, key, offset, size)
        alloc = m.new_alloc("parameter", f"parameter load {i} of {op.name} at {op.location}", op, size, data)
        m.set(op.results[i], Res(size, None, alloc, 0, 0, op))
    m.set(op.results[-1], None)


def _cmd_gather(m: Machine, op: Op, keys: tuple[Value, ...], offsets: tuple[Value, ...], t_offsets: tuple[Value, ...],
                t_lengths: tuple[Value, ...]) -> None:
    v = groups(op)
    target = sized(m, v.target, v.target_size)
    alloc, base = m.storage(target, op)
    for key, offset, start_v, length_v in zip(keys, offsets, t_offsets, t_lengths):
        start, length = m.integer(start_v), m.integer(length_v)
        m.in_bounds(start, length, target.size)
        m.write(alloc, m.ints.add(base, start), parameter_bytes(m, op, v.source_scope, key, offset, length), op)
    m.set(op.results[0], None)


@rule("stream.cmd.parameter.read")
def _cmd_read(m: Machine, op: Op) -> None:
    v = groups(op)
    _cmd_gather(m, op, (v.source_key,), (v.source_offset,), (v.target_offset,), (v.target_length,))


@rule("stream.cmd.parameter.gather")
def _cmd_gather_rule(m: Machine, op: Op) -> None:
    v = groups(op)
    _cmd_gather(m, op, v.source_keys, v.source_offsets, v.target_offsets, v.target_lengths)


@rule("stream.async.parameter.write", "stream.async.parameter.scatter", "stream.cmd.parameter.write", "stream.cmd.parameter.scatter")
def _write(m: Machine, op: Op) -> None:
    raise Undecided(f"'{op.name}' writes to a parameter archive, an effect the refinement check does not compare")

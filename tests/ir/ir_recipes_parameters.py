"""Recipes for the parameter ops (`stream.async.parameter.*`, `stream.cmd.parameter.*`) and
`util.buffer.constant`, registered in `ir_gen.RECIPES`: random scopes (present or not), keys,
`i64` offsets and one to three rows for the batched ops.
"""

from __future__ import annotations

from ir_gen import Gen, identifiers, recipe, resource_types

from stream.ir.attributes import StringAttr
from stream.ir.core import Value
from stream.ir.types import I64, OpaqueType

BUFFER = OpaqueType("!util.buffer")


@recipe("util.buffer.constant")
def _buffer_constant(g: Gen) -> None:
    g.build("util.buffer.constant", {}, {}, {"value": StringAttr(g.draw(identifiers)), "name": StringAttr(g.draw(identifiers)) if g.flag(0.2) else None})


def _scope(g: Gen) -> list[Value]:
    return [g.value(BUFFER)] if g.flag() else []


def _await(g: Gen) -> list[Value]:
    return [g.timepoint()] if g.flag() else []


@recipe("stream.async.parameter.load")
def _async_load(g: Gen) -> None:
    g.build("stream.async.parameter.load",
            {"await_timepoint": _await(g), "source_scope": _scope(g), "source_key": g.value(BUFFER), "source_offset": g.value(I64),
             "result_size": g.index()}, {"result": g.draw(resource_types)}, {"affinity": g.affinity()})


@recipe("stream.async.parameter.read", "stream.async.parameter.write")
def _async_read_write(g: Gen, name: str) -> None:  # type: ignore[misc]
    res, param = ("target", "source") if name.endswith("read") else ("source", "target")
    r = g.resource()
    g.build(name, {res: r, f"{res}_size": g.index(), f"{res}_offset": g.index(), f"{res}_end": g.index(), f"{res}_length": g.index(),
                   f"{param}_scope": _scope(g), f"{param}_key": g.value(BUFFER), f"{param}_offset": g.value(I64), "await_timepoint": _await(g)},
            {"result": r.type}, {"affinity": g.affinity()})


@recipe("stream.async.parameter.gather", "stream.async.parameter.scatter", "stream.cmd.parameter.gather", "stream.cmd.parameter.scatter")
def _batched(g: Gen, name: str) -> None:  # type: ignore[misc]
    gather = name.endswith("gather")
    res, param = ("target", "source") if gather else ("source", "target")
    n = g.count(1, 3)
    r = g.resource()
    groups: dict[str, object] = {
        res: r, f"{res}_size": g.index(), f"{res}_offsets": [g.index() for _ in range(n)], f"{res}_lengths": [g.index() for _ in range(n)],
        f"{param}_scope": _scope(g), f"{param}_keys": [g.value(BUFFER) for _ in range(n)], f"{param}_offsets": [g.value(I64) for _ in range(n)],
        "await_timepoint": _await(g),
    }
    if name.startswith("stream.async."):
        groups[f"{res}_ends"] = [g.index() for _ in range(n)]
    g.build(name, groups, {"result": r.type} if name.startswith("stream.async.") else {}, {"affinity": g.affinity()})


@recipe("stream.cmd.parameter.load")
def _cmd_load(g: Gen) -> None:
    n = g.count(1, 3)
    g.build("stream.cmd.parameter.load",
            {"source_scope": _scope(g), "source_keys": [g.value(BUFFER) for _ in range(n)], "source_offsets": [g.value(I64) for _ in range(n)],
             "result_sizes": [g.index() for _ in range(n)], "await_timepoint": _await(g)},
            {"results": [g.draw(resource_types) for _ in range(n)]}, {"affinity": g.affinity()})


@recipe("stream.cmd.parameter.read", "stream.cmd.parameter.write")
def _cmd_read_write(g: Gen, name: str) -> None:  # type: ignore[misc]
    res, param = ("target", "source") if name.endswith("read") else ("source", "target")
    g.build(name, {res: g.resource(), f"{res}_size": g.index(), f"{res}_offset": g.index(), f"{res}_length": g.index(),
                   f"{param}_scope": _scope(g), f"{param}_key": g.value(BUFFER), f"{param}_offset": g.value(I64), "await_timepoint": _await(g)},
            {}, {"affinity": g.affinity()})

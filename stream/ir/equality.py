"""Alpha-equivalence of IR: equal up to value identity, value names and source locations."""

from __future__ import annotations

from collections.abc import Callable

from stream.ir.attributes import ArrayAttr, Attribute, IntegerAttr, StringAttr, TypeAttr
from stream.ir.core import Block, Module, Op, Region, Value
from stream.ir.rule_table import RuleTable
from stream.ir.types import INDEX, FunctionType

__all__ = ["structurally_equal", "first_difference", "ops_equal", "IMPLIED_PROPERTIES"]


def _util_func_defaults(op: Op) -> dict[str, Attribute]:
    ftype = op.properties.get("function_type")
    n = len(ftype.type.results) if isinstance(ftype, TypeAttr) and isinstance(ftype.type, FunctionType) else 0
    implied: dict[str, Attribute] = {"sym_visibility": StringAttr("public")}
    if n:
        implied["tied_operands"] = ArrayAttr(tuple(IntegerAttr(-1, INDEX) for _ in range(n)))
    return implied


IMPLIED_PROPERTIES: RuleTable[Callable[[Op], dict[str, Attribute]]] = RuleTable(
    "IMPLIED_PROPERTIES",
    """Properties an op means when it lacks them (IREE's builders omit them, its parser stores
    them): an absent one equals this value. A util.func without `tied_operands` ties nothing, as
    one whose parser stored `[-1, ...]` from its pretty signature; without `sym_visibility` it is
    public (IREE prints `public` for it, which its parser then stores).""",
    policy="identity",
    entries={"util.func": _util_func_defaults},
)


def _properties(op: Op) -> dict[str, Attribute]:
    props = dict(op.properties)
    implied = IMPLIED_PROPERTIES.get(op.name)
    if implied is not None:
        for key, value in implied(op).items():
            props.setdefault(key, value)
    return props


class _Mismatch(Exception):
    pass


def _values(a: tuple[Value, ...], b: tuple[Value, ...], env: dict[Value, Value], where: str, define: bool) -> None:
    if len(a) != len(b):
        raise _Mismatch(f"{where}: {len(a)} vs {len(b)} values")
    for x, y in zip(a, b):
        if x.type != y.type:
            raise _Mismatch(f"{where}: type {x.type} vs {y.type}")
        if define:
            env[x] = y
        elif env.get(x, x) is not y:
            raise _Mismatch(f"{where}: different values")


def _op(a: Op, b: Op, env: dict[Value, Value]) -> None:
    where = f"'{a.name}' at {a.location}"
    if a.name != b.name:
        raise _Mismatch(f"op '{a.name}' vs '{b.name}' (at {a.location} / {b.location})")
    _values(a.operands, b.operands, env, where + " operands", define=False)
    if _properties(a) != _properties(b):
        raise _Mismatch(f"{where}: properties {dict(a.properties)} vs {dict(b.properties)}")
    if dict(a.attributes) != dict(b.attributes):
        raise _Mismatch(f"{where}: attributes {dict(a.attributes)} vs {dict(b.attributes)}")
    if a.successors != b.successors or a.loc != b.loc:
        raise _Mismatch(f"{where}: successors or loc differ")
    if len(a.regions) != len(b.regions):
        raise _Mismatch(f"{where}: region count")
    for ra, rb in zip(a.regions, b.regions):
        _region(ra, rb, env)
    _values(a.results, b.results, env, where + " results", define=True)


def _block(a: Block, b: Block, env: dict[Value, Value]) -> None:
    _values(a.arguments, b.arguments, env, "block arguments", define=True)
    if len(a.ops) != len(b.ops):
        raise _Mismatch(f"block has {len(a.ops)} vs {len(b.ops)} ops")
    # Results may be used before their definition (later blocks, graph regions): bind first.
    for x, y in zip(a.ops, b.ops):
        _values(x.results, y.results, env, f"'{x.name}' results", define=True)
    for x, y in zip(a.ops, b.ops):
        _op(x, y, env)


def _region(a: Region, b: Region, env: dict[Value, Value]) -> None:
    if len(a.blocks) != len(b.blocks):
        raise _Mismatch(f"region has {len(a.blocks)} vs {len(b.blocks)} blocks")
    for x, y in zip(a.blocks, b.blocks):
        _values(x.arguments, y.arguments, env, "block arguments", define=True)
    for x, y in zip(a.blocks, b.blocks):
        _block(x, y, env)


def first_difference(a: Module, b: Module) -> str | None:
    """A description of the first difference between two modules, or None when equal."""
    try:
        if dict(a.attributes) != dict(b.attributes) or a.sym_name != b.sym_name:
            raise _Mismatch("module attributes or name differ")
        if [(x.name, x.value) for x in a.aliases] != [(x.name, x.value) for x in b.aliases]:
            raise _Mismatch("alias definitions differ")
        _block(Block((), a.ops), Block((), b.ops), {})
    except _Mismatch as e:
        return str(e)
    return None


def structurally_equal(a: Module, b: Module) -> bool:
    return first_difference(a, b) is None


def ops_equal(a: Op, b: Op) -> bool:
    """Two top-level ops (functions, executables) are equal up to renaming (they capture no
    values from outside, so their value maps start empty)."""
    try:
        _values(a.results, b.results, {}, "results", define=True)
        _op(a, b, {})
    except _Mismatch:
        return False
    return True

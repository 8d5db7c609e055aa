"""Alpha-equivalence of IR: equal up to value identity, value names and source locations."""

from __future__ import annotations

from collections.abc import Callable

from stream.ir.attributes import ArrayAttr, Attribute, DictAttr, IntegerAttr, StringAttr
from stream.ir.core import Block, Module, Op, Region, Value
from stream.ir.rule_table import RuleTable

__all__ = ["structurally_equal", "first_difference", "ops_equal", "IMPLIED_PROPERTIES"]


def _visibility(value: Attribute) -> Attribute | None:
    """A symbol without `sym_visibility` is public (MLIR's rule): IREE's builders omit it, its
    parsers store the `public` they read."""
    return None if value == StringAttr("public") else value


def _ties(value: Attribute) -> Attribute | None:
    """`tied_operands` that ties nothing says nothing: IREE's parsers store `[-1, ...]` where
    its builders store `[]` or omit it (region ops, util.func)."""
    if isinstance(value, ArrayAttr) and all(isinstance(e, IntegerAttr) and e.value < 0 for e in value.elements):
        return None
    return value


def _empty_dicts(value: Attribute) -> Attribute | None:
    """Argument (result) attributes that are all empty dictionaries say nothing: IREE's
    signature parsers store one per argument, its builders none."""
    if isinstance(value, ArrayAttr) and all(isinstance(e, DictAttr) and not e.entries for e in value.elements):
        return None
    return value


IMPLIED_PROPERTIES: RuleTable[Callable[[Attribute], Attribute | None]] = RuleTable(
    "IMPLIED_PROPERTIES",
    """Properties whose absence means a value: each maps a property to its normal form (None:
    the same as absent), so that what IREE's builders omit and its parsers store compare equal.""",
    policy="identity",
    entries={"sym_visibility": _visibility, "tied_operands": _ties, "arg_attrs": _empty_dicts, "res_attrs": _empty_dicts},
)


def _properties(op: Op) -> dict[str, Attribute]:
    props: dict[str, Attribute] = {}
    for key, value in op.properties.items():
        normal = IMPLIED_PROPERTIES.get(key)
        kept = normal(value) if normal is not None else value
        if kept is not None:
            props[key] = kept
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

"""Census of the per-op tables in the product code: which module-level containers are keyed by op
name, in which modules, and which of them name a given op.

A *table keyed by op name* is a module-level dict, set, frozenset, tuple or list (or a `RuleTable`)
defined in a module of `stream`, `verify`, `runtime` or `streamproof` whose keys (or members) are
strings and at least one of them is a registered op name, at least half of them looking like op
names (`dialect.name`) or op-name prefixes (`arith.`). The op registry itself, and memos of it
(dicts op name -> OpSpec filled at run time), are left out. The census imports every module and reads the
objects, so tables filled by decorators count with their final contents.

    python tests/op_census.py [-v] [OP ...]   # the figures, the tables naming each OP (-v: every table)

Kept in the repository because issue 10's closing note compares the figures before and after the
rule tables were unified (tests/test_op_coverage.py prints them too).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("stream", "verify", "runtime", "streamproof")
# The op registry itself (name -> OpSpec) is not a rule table.
REGISTRIES = frozenset({"stream.ir.spec_registry._REGISTRY", "stream.ir.spec.SPECS"})
_OP_LIKE = re.compile(r"^[a-z_][a-z0-9_]*\.[a-z0-9_.]*$")


@dataclass(frozen=True)
class Table:
    module: str
    name: str
    kind: str  # dict | set | tuple | RuleTable
    keys: frozenset[str]

    @property
    def where(self) -> str:
        return f"{self.module}.{self.name}"


def _module_names() -> list[str]:
    names = []
    for package in PACKAGES:
        names.append(package)
        pkg = importlib.import_module(package)
        for info in pkgutil.walk_packages(pkg.__path__, package + "."):
            if not info.name.endswith(".__main__"):
                names.append(info.name)
    return sorted(set(names))


def _defined_names(path: Path) -> list[str]:
    """Names assigned at module level (the tables the module itself defines, not imports)."""
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in tree.body:
        targets: Iterable[ast.expr] = ()
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = (node.target,)
        out.extend(t.id for t in targets if isinstance(t, ast.Name))
    return out


def _keys(value: object) -> tuple[str, frozenset[str]] | None:
    from stream.ir.rule_table import RuleTable

    if isinstance(value, RuleTable):
        return "RuleTable", frozenset(value.names())
    if isinstance(value, dict):
        from stream.ir.spec import OpSpec

        if value and all(v is None or isinstance(v, OpSpec) for v in value.values()):
            return None  # a memo of the registry (op name -> spec, filled at run time), not a rule table
        kind, items = "dict", list(value)
    elif isinstance(value, (set, frozenset)):
        kind, items = "set", list(value)
    elif isinstance(value, (tuple, list)):
        kind, items = "tuple", list(value)
    else:
        return None
    if not items or not all(isinstance(k, str) for k in items):
        return None
    return kind, frozenset(items)


def census() -> list[Table]:
    from stream.ir.spec_registry import registered_names

    ops = set(registered_names())
    tables = []
    for name in _module_names():
        module = importlib.import_module(name)
        path = Path(module.__file__ or "")
        if path.suffix != ".py":
            continue
        for attr in _defined_names(path):
            found = _keys(getattr(module, attr, None))
            if found is None:
                continue
            kind, keys = found
            if f"{name}.{attr}" in REGISTRIES:
                continue
            op_like = sum(1 for k in keys if _OP_LIKE.match(k))
            if kind != "RuleTable" and (not keys & ops or 2 * op_like < len(keys)):
                continue
            tables.append(Table(name, attr, kind, keys))
    return tables


def naming(tables: list[Table], op: str) -> list[Table]:
    """The tables with an entry for `op` (or a prefix entry such as `arith.` covering it)."""
    return [t for t in tables if op in t.keys or any(k.endswith(".") and op.startswith(k) for k in t.keys)]


def summary(ops: Iterable[str] = ("stream.async.copy",)) -> str:
    tables = census()
    modules = {t.module for t in tables}
    kinds: dict[str, int] = {}
    for t in tables:
        kinds[t.kind] = kinds.get(t.kind, 0) + 1
    lines = [
        f"tables keyed by op name: {len(tables)} in {len(modules)} modules "
        f"({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})",
    ]
    for op in ops:
        hits = naming(tables, op)
        files = {t.module for t in hits}
        lines.append(f"{op}: {len(hits)} tables in {len(files)} modules")
        lines.extend(f"  {t.where} ({t.kind})" for t in hits)
    return "\n".join(lines)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    ops = [a for a in sys.argv[1:] if a != "-v"]
    print(summary(ops or ("stream.async.copy",)))
    if "-v" in sys.argv:
        for t in census():
            print(f"{t.where:60} {t.kind:9} {len(t.keys)}")

"""Layers import one way (SPEC §1): `stream` <- `verify`, `stream` <- `runtime`, all three <-
`streamproof`. The runtime never imports the verifier or the passes, so that running a program
is an independent check of what they prove. Every import counts, including function-local ones."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "stream": ("verify", "runtime", "streamproof"),
    "verify": ("runtime", "streamproof"),
    "runtime": ("verify", "streamproof", "stream.passes", "stream.analysis"),
}


def imports(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
    return out


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_layers_import_one_way(package: str) -> None:
    bad = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for line, name in imports(path):
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN[package]):
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {name}")
    assert bad == []


PACKAGES = ("stream", "verify", "runtime", "streamproof")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _import_time_edges(path: Path, modules: dict[str, Path], local: bool = False) -> set[str]:
    """The project modules `path` imports when it is imported: module-level imports (also inside
    module-level `if`/`try`), not `if TYPE_CHECKING:` blocks; with `local`, function-local
    imports too (the imports that run later)."""
    out: set[str] = set()

    def scan(body: list[ast.stmt]) -> None:
        for node in body:
            if local and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.For, ast.While)):
                scan(node.body)
            if isinstance(node, ast.If):
                if "TYPE_CHECKING" not in ast.unparse(node.test):
                    scan(node.body)
                scan(node.orelse)
            elif isinstance(node, ast.Try):
                scan(node.body)
                for handler in node.handlers:
                    scan(handler.body)
                scan(node.orelse)
                scan(node.finalbody)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:  # `from pkg import submodule` imports the submodule
                    sub = f"{node.module}.{a.name}"
                    out.add(sub if sub in modules else node.module)

    scan(ast.parse(path.read_text(), str(path)).body)
    return {m for m in out if m in modules}


def import_cycles(local: bool = False) -> list[list[str]]:
    """Strongly connected components (more than one module) of the import-time import graph
    (with `local`, of the graph with function-local imports too)."""
    modules = _modules()
    edges = {m: _import_time_edges(p, modules, local) - {m} for m, p in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for m in sorted(edges):
        if m not in index:
            visit(m)
    return sorted(cycles)


def test_no_import_cycles() -> None:
    """A module imports what it needs and is imported by what registers it: a table that is
    filled by importing its rule modules at the bottom of the file that defines it makes every
    rule module import its own importer (a cycle that only works because of the import order).
    Put the shared part (the table, its decorator, the helpers) in a module both import."""
    assert import_cycles() == []


# Cycles through function-local imports that are deliberate, each with its reason. A module of a
# new cycle must not join one of these unless it belongs to the same reason.
DEFERRED_CYCLES = {
    # The model applies the effect rules, which describe an op in the model's Builder vocabulary;
    # storage and calls ask whether an op has a rule. The rules are looked up at call time.
    "effect rules": lambda m: m in ("verify.model", "verify.storage", "verify.calls") or m == "verify.rules"
    or m.startswith("verify.rules."),
}


def test_function_local_imports_hide_no_other_cycle() -> None:
    """An import inside a function that only breaks a cycle (the CLI and its commands, before
    `streamproof.errors`; stream.ir.format and format_parse, before `Format` was given its
    compiled steps) hides the same coupling: only the reasoned cycle above may exist."""
    unexplained = [c for c in import_cycles(local=True) if not any(all(ok(m) for m in c) for ok in DEFERRED_CYCLES.values())]
    assert unexplained == []


def test_no_private_names_imported_across_modules() -> None:
    """`from other.module import _name` couples a module to another's internals: make the name
    public (and document it) where it is defined, or keep the helper local. Function-local
    imports count too. (Tests may import private helpers to test them; product code may not.)"""
    bad = []
    for module, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module != module \
                    and node.module.split(".")[0] in PACKAGES:
                bad.extend(f"{path.relative_to(ROOT)}:{node.lineno}: from {node.module} import {a.name}"
                           for a in node.names if a.name.startswith("_") and not a.name.startswith("__"))
    assert bad == []

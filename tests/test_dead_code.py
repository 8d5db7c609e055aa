"""No dead definitions in the product packages (a small vulture: `vulture` is not a dependency).

A function, class, method or module-level name defined in `stream`, `verify`, `runtime` or
`streamproof` must be referenced somewhere else in the repository: Python files (product code,
tests, benchmarks, proofs, examples) or the documentation. Decorated functions (rules entered
into a table by their decorator), dunder names and `visit_*` methods are exempt: they are
reached by registration or by name. A name whose only other mention is an `__all__` list is dead
too: exporting it is not a use.
"""

from __future__ import annotations

import ast
import functools
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("stream", "verify", "runtime", "streamproof")
SKIP_DIRS = {".venv", ".git", "__pycache__", "node_modules"}
# Defined but not used yet, each with the reason it stays.
PENDING = {
    "stream/analysis/storage.py:is_tied_writer": "new with the op interfaces (issue 10 item 1) for the consumers still to derive from them",
}
_ALL = re.compile(r"__all__\s*(?::[^=]*)?=\s*[\[(][^\])]*[\])]", re.DOTALL)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _files(suffix: str) -> list[Path]:
    return [p for p in ROOT.rglob(f"*{suffix}") if not SKIP_DIRS & set(p.relative_to(ROOT).parts)]


@functools.cache
def _word_counts() -> Counter[str]:
    counts: Counter[str] = Counter()
    for path in _files(".py") + _files(".md"):
        if path == Path(__file__).resolve():  # PENDING names them
            continue
        counts.update(_WORD.findall(_ALL.sub("", path.read_text(errors="replace"))))
    return counts


def _definitions(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(), str(path))
    out: list[tuple[str, int]] = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.extend((t.id, node.lineno) for t in targets if isinstance(t, ast.Name))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            plain = all(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod", "property", "dataclass")
                        for d in node.decorator_list)
            if plain:
                out.append((node.name, node.lineno))
    return [(n, line) for n, line in out if not n.startswith("__") and not n.startswith("visit_")]


def test_every_definition_is_used_somewhere() -> None:
    counts = _word_counts()
    dead = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for name, line in _definitions(path):
                key = f"{path.relative_to(ROOT)}:{name}"
                if counts[name] <= 1 and key not in PENDING:
                    dead.append(f"{path.relative_to(ROOT)}:{line}: {name} is defined and never used: remove it")
    assert dead == []


def test_pending_entries_are_still_pending() -> None:
    counts = _word_counts()
    used = [key for key in PENDING if counts[key.split(":")[1]] > 1]
    assert used == [], "now used: remove these from PENDING"

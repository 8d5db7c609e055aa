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

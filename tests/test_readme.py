"""The README's Python example runs as written (a README that lies is a bug)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_example_runs(capsys) -> None:  # type: ignore[no-untyped-def]
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "the README has a Python example"
    for code in blocks:
        exec(compile(code, str(README), "exec"), {})
    assert "12 passes proved" in capsys.readouterr().out


def test_readme_quick_start_uses_bundled_files() -> None:
    text = README.read_text()
    root = README.parent
    for path in re.findall(r"\b((?:examples|proofs/corpus|tests/data/iree)/[\w./-]+\.mlir)", text):
        assert (root / path).exists(), path

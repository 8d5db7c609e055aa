"""The control-flow test programs (tests/data/control_flow) and their mutants, shared by the loop
tests: `read(name)` gives a program's text, `mutant(name, old, new)` the text with the one
occurrence of `old` replaced (a mutant that does not apply fails the test instead of passing)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "control_flow"
SMT = ["pruned", "full"]


def read(name: str) -> str:
    return (DATA / f"{name}.mlir").read_text()


def mutant(name: str, old: str, new: str) -> str:
    text = read(name)
    assert text.count(old) == 1, old
    return text.replace(old, new)

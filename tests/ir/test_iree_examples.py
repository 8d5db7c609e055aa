"""Every IREE 3.13 dump under tests/data/iree/ reads, prints and round-trips.

* generic files print back byte-identical to IREE's own `--mlir-print-op-generic` output;
* pretty files (stage dumps) read, with executable bodies kept verbatim where they use ops
  streamproof does not model (linalg, ...); printing is a fixed point after one round;
* a pretty and a generic print of one module parse to equal IR;
* linalg inputs (not stream programs) get the diagnostic that points to --mlir-print-op-generic.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import stream.ir as ir
from stream.ir.equality import first_difference
from stream.ir.verifier import structural_diagnostics

DATA = Path(__file__).resolve().parent.parent / "data" / "iree"
GENERIC = sorted(DATA.glob("*/generic/*.mlir"))
PRETTY = sorted(p for p in DATA.glob("*/[0-9]*.mlir"))
LINALG = sorted(DATA.glob("*/input.linalg.mlir"))


def _strip(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if line.strip() and not line.startswith("//"))


def test_corpus_present() -> None:
    assert len(GENERIC) == 20 and len(PRETTY) == 52 and len(LINALG) == 4


@pytest.mark.parametrize("path", GENERIC, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_generic_prints_back_identically(path: Path) -> None:
    text = path.read_text()
    module = ir.parse_module(text, str(path))
    assert _strip(ir.print_module(module, generic=True)) == _strip(text)


@pytest.mark.parametrize("path", GENERIC + PRETTY, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_round_trip_fixed_point_and_forms_agree(path: Path) -> None:
    module = ir.parse_module(path.read_text(), str(path))
    assert structural_diagnostics(module) == []
    for generic in (False, True):
        once = ir.print_module(module, generic=generic)
        again = ir.print_module(ir.parse_module(once, "round-trip.mlir"), generic=generic)
        assert once == again
    from_pretty = ir.parse_module(ir.print_module(module), "pretty.mlir")
    from_generic = ir.parse_module(ir.print_module(module, generic=True), "generic.mlir")
    assert first_difference(from_pretty, from_generic) is None


@pytest.mark.parametrize("path", GENERIC, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_pretty_function_bodies_match_iree(path: Path) -> None:
    """Our pretty print of IREE's generic dump equals IREE's own pretty dump of the functions
    (executables aside, which IREE prints with linalg syntax streamproof does not model)."""
    module = ir.parse_module(path.read_text(), str(path))
    ours = ir.print_module(module)
    theirs = (path.parent.parent / path.name.replace(".generic", "")).read_text()

    def functions(text: str) -> list[str]:
        out, current = [], None
        for line in text.splitlines():
            if line.startswith("  util.func"):
                current = [line]
            elif current is not None:
                current.append(line)
                if line == "  }":
                    out.append("\n".join(current))
                    current = None
        return out

    assert functions(ours) == functions(theirs)


@pytest.mark.parametrize("path", LINALG, ids=lambda p: p.parent.name)
def test_linalg_input_gets_generic_form_hint(path: Path) -> None:
    with pytest.raises(ir.DiagnosticError) as info:
        ir.parse_module(path.read_text(), str(path))
    message = str(info.value)
    assert "--mlir-print-op-generic" in message and f"{path}:" in message

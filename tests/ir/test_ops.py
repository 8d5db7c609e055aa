"""Parse, print and round-trip every op family (`op_samples.SAMPLES`), in both forms.

For each sample (one module per family, in IREE's pretty syntax):
* it parses and passes the structural verifier;
* printing it gives back the sample byte for byte (pretty form is a fixed point);
* its generic form parses to equal IR, prints back identically, and prints back to the same
  pretty text (up to value names, which the generic form does not keep);
* the samples together use every op of the op tables.
"""

from __future__ import annotations

import re

import pytest
from op_samples import SAMPLES

import stream.ir as ir
from stream.ir.equality import first_difference
from stream.ir.spec_registry import registered_names
from stream.ir.verifier import structural_diagnostics

NAMES = sorted(SAMPLES)


def _parse(name: str) -> ir.Module:
    return ir.parse_module(SAMPLES[name], f"{name}.mlir")


def test_samples_use_every_registered_op() -> None:
    used = {op.name for name in NAMES for op in _parse(name).walk()}
    missing = sorted(set(registered_names()) - used)
    assert missing == [], f"ops without a sample in op_samples.py: {missing}"


@pytest.mark.parametrize("name", NAMES)
def test_sample_is_structurally_valid(name: str) -> None:
    assert [d.render() for d in structural_diagnostics(_parse(name))] == []


@pytest.mark.parametrize("name", NAMES)
def test_pretty_print_is_the_sample(name: str) -> None:
    assert ir.print_module(_parse(name)) == SAMPLES[name]


@pytest.mark.parametrize("name", NAMES)
def test_generic_form_round_trips(name: str) -> None:
    module = _parse(name)
    generic = ir.print_module(module, generic=True)
    reparsed = ir.parse_module(generic, "generic.mlir")
    assert first_difference(module, reparsed) is None
    assert ir.print_module(reparsed, generic=True) == generic
    # Every op is spelled generically: `"dialect.op"(...)`, nothing in custom syntax.
    body = [line.strip() for line in generic.splitlines()[:-1] if line.strip() and not line.startswith(("#", "!"))]
    for line in body:
        assert re.match(r'(%[\w#:, ]+ = )?"[\w.]+"\(|\^bb\d+|\}', line), line


def _strip_names(text: str) -> str:
    """Replace value names by their order of first appearance (the generic form renumbers)."""
    seen: dict[str, str] = {}

    def rename(m: re.Match[str]) -> str:
        return seen.setdefault(m.group(1), f"%v{len(seen)}") + (m.group(2) or "")

    return re.sub(r"(%[\w$.\-]+?)(#\d+|:\d+)?(?=[^\w$.\-]|$)", rename, text)


@pytest.mark.parametrize("name", NAMES)
def test_pretty_and_generic_forms_agree(name: str) -> None:
    module = _parse(name)
    from_pretty = ir.parse_module(ir.print_module(module), "pretty.mlir")
    from_generic = ir.parse_module(ir.print_module(module, generic=True), "generic.mlir")
    assert first_difference(from_pretty, from_generic) is None
    # The generic form keeps no names, so its pretty print differs from the sample only by them.
    assert _strip_names(ir.print_module(from_generic)) == _strip_names(SAMPLES[name])

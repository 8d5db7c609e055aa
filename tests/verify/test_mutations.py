"""Mutation self-test (SPEC §8): mutants of proved programs are rejected with the right class.

Sources are proved cmd-level programs: IREE's stage-10 dumps, corpus twins, compiled programs
and synthetic schedules. Operators: drop an await (device or host), drop a join input, free
right after the alloca, move two commands into one concurrent wave, shift a pack slice offset.

For concrete programs the oracle is an independent brute-force checker (path search on the raw
event graph, integer range overlap; `mutations.brute_force_classes`): the verifier must report
exactly the classes it finds, so a mutant that breaks an ordering some access needs is caught
with its class, and a mutant that only drops a redundant wait (IREE's stage 10 makes device_a
allocations wait for device_b's dealloca, which nothing needs) is proved, not flagged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CORPUS, IREE, parse
from mutations import (
    brute_force_classes,
    drop_await,
    drop_join_input,
    move_dealloca_earlier,
    move_into_wave,
    shift_pack_offset,
)

from stream.ir.core import Module
from verify import verify_module
from verify.synth import cmd_program

CONCRETE = [p for p in sorted(IREE.glob("*/generic/10_*.mlir")) if "d_inplace" not in str(p)] + [
    CORPUS / f"{n}.mlir" for n in ("cmd_serial_ok", "cmd_late_dealloca_ok", "cmd_chained_await_ok", "cmd_concurrent_disjoint_ok",
                                   "cmd_affinity_transfer_ok", "cmd_export_after_wait_ok")
]
PACKED = [p for p in sorted(IREE.glob("*/generic/07_*.mlir")) if "d_inplace" not in str(p)] + [CORPUS / "cmd_pack_serial_ok.mlir"]
OPERATORS = {"drop-await": drop_await, "drop-join-input": drop_join_input, "free-early": move_dealloca_earlier, "into-wave": move_into_wave}


def sources() -> list[tuple[str, Module]]:
    out = [(p.stem, parse(p.read_text(), str(p))) for p in CONCRETE]
    out.append(("synth", parse(cmd_program(30, devices=2, width=3, seed=11).text, "synth.mlir")))
    return out


@pytest.mark.parametrize("operator", OPERATORS)
def test_mutants_are_rejected_with_the_classes_the_oracle_finds(operator: str) -> None:
    total = rejected = 0
    for name, module in sources():
        assert verify_module(module).ok, name
        assert brute_force_classes(module) == set(), name
        for desc, mutant, allowed in OPERATORS[operator](module):
            total += 1
            oracle = brute_force_classes(mutant)
            report = verify_module(mutant, witnesses=0)
            found = report.classes - {"LEAK"}
            assert found == oracle, f"{name}: {desc}: verifier {sorted(found)}, oracle {sorted(oracle)}"
            assert found <= allowed | {"USE_BEFORE_ALLOC", "USE_AFTER_FREE", "MISSED_WAIT"}, desc
            rejected += bool(found)
    assert total >= 10
    assert rejected >= 0.6 * total, f"only {rejected} of {total} {operator} mutants break anything"


@pytest.mark.parametrize("path", PACKED, ids=lambda p: f"{p.parts[-3] if p.parent.name == 'generic' else ''}{p.stem}")
def test_shifted_pack_offsets_are_pack_overlaps(path: Path) -> None:
    module = parse(path.read_text(), str(path))
    assert verify_module(module).status == "proved"
    mutants = list(shift_pack_offset(module))
    assert mutants
    for desc, mutant, expected in mutants:
        report = verify_module(mutant, witnesses=0)
        assert expected <= report.classes, f"{desc}: {sorted(report.classes)}"


def test_removing_a_protective_clone_is_caught() -> None:
    from mutations import remove_clone

    module = parse((CORPUS / "async_borrowed_cloned_ok.mlir").read_text())
    assert verify_module(module).ok
    (desc, mutant, expected), = remove_clone(module)
    assert verify_module(mutant).classes == {"BORROWED_INPUT_MUTATED"}

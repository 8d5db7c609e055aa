"""automatic-reference-counting: every owned allocation freed once, after all its uses."""

from __future__ import annotations

from pathlib import Path

import pytest
from concrete_semantics import assert_refines, infer_arg_sizes, random_inputs, run_function
from timeline_check import HappensBefore
from verifier_faults import accepted, rejection

import stream.ir as ir
import stream.passes.automatic_reference_counting as arc
from stream.analysis.liveness import allocation_uses
from stream.ir.spec import view
from stream.ir.verifier import verify_structure
from stream.ir.walk import functions
from stream.passes.automatic_reference_counting import Deallocation, automatic_reference_counting
from stream.passes.schedule_allocation import schedule_allocation

ROOT = Path(__file__).resolve().parents[2]
IREE = ROOT / "tests" / "data" / "iree"
EXAMPLES = ("b_diamond", "d_inplace", "f_multidevice", "i_multidevice_overlap")
GOLDEN = ROOT / "tests" / "golden" / "automatic_reference_counting.mlir"


def parse(text: str) -> ir.Module:
    return ir.parse_module(text, "test.mlir")


def golden_chunks() -> list[str]:
    return [chunk for chunk, _ in ir.split_input_file(GOLDEN.read_text())]


def check_frees(module: ir.Module) -> dict[str, int]:
    """Every dealloca frees an alloca once, after every device use of it (independent HB check),
    and after every host access in program order. Returns the number of frees per function."""
    counts: dict[str, int] = {}
    for f in functions(module):
        hb = HappensBefore(f.body)
        frees = 0
        for uses in allocation_uses(f.body):
            deallocas = [op for _, op in uses.owned if op.name == "stream.resource.dealloca"]
            assert len(deallocas) <= 1, f"@{f.name}: allocation freed {len(deallocas)} times"
            if not deallocas:
                continue
            assert not uses.escapes, f"@{f.name}: an escaping allocation is freed"
            frees += 1
            free = deallocas[0]
            position = hb.position[free]
            for p, op in uses.device:
                done = [r for r in op.results if str(r.type) == "!stream.timepoint"][0]
                assert hb.finished_before_start(done, free), f"@{f.name}: freed before {op.name} at {p} finished"
            assert all(p < position for p, _ in uses.host), f"@{f.name}: freed before a host access"
        for op in f.body.ops:
            if op.name == "stream.resource.dealloca":
                assert view(op).operand in {u.resource for u in allocation_uses(f.body)}, "freed something not allocated"
        counts[f.name] = frees
    return counts


# Deallocas in IREE 3.13's stage 10 output for the same programs (read off tests/data/iree).
IREE_FREES = {"b_diamond": {"diamond": 1}, "d_inplace": {"kv_update": 1, "scatter_rows": 0},
              "f_multidevice": {"two_dev": 2}, "i_multidevice_overlap": {"two_dev_overlap": 3}}


@pytest.mark.parametrize("example", EXAMPLES)
def test_iree_examples_free_like_iree_and_refine(example: str) -> None:
    module = parse((IREE / example / "06_async_final.mlir").read_text())
    out = automatic_reference_counting(schedule_allocation(module))
    verify_structure(out)
    assert check_frees(out) == IREE_FREES[example]
    iree = parse((IREE / example / "10_elide_timepoints.mlir").read_text())
    assert {f.name: sum(op.name == "stream.resource.dealloca" for op in f.body.ops) for f in functions(iree)} == IREE_FREES[example]
    for f in functions(module):
        args = random_inputs(module, f.name, infer_arg_sizes(module, f.name))
        assert_refines(module, out, f.name, args)


@pytest.mark.parametrize("index", range(len(golden_chunks())))
def test_golden_inputs_keep_results_and_free_correctly(index: int) -> None:
    module = parse(golden_chunks()[index])
    out = automatic_reference_counting(module)
    verify_structure(out)
    check_frees(out)
    for f in functions(module):
        args = random_inputs(module, f.name, infer_arg_sizes(module, f.name))
        before = run_function(module, f.name, args, "cmd")
        after = run_function(out, f.name, args, "cmd")
        assert [str(x) for x in before] == [str(x) for x in after]


def test_owned_allocations_are_all_freed_once() -> None:
    counts = check_frees(automatic_reference_counting(parse("\n".join(golden_chunks()))))
    assert counts == {"singleLastUse": 1, "forkedLastUses": 1, "coveredLastUses": 1, "neverFreed": 0,
                      "hostReadThenFree": 1, "explicitAndAliases": 1, "sharedLastUse": 2}


def test_running_twice_changes_nothing() -> None:
    once = automatic_reference_counting(parse("\n".join(golden_chunks())))
    twice = automatic_reference_counting(once)
    assert ir.print_module(twice) == ir.print_module(once)


def test_a_too_early_free_is_caught_by_the_check() -> None:
    """The HB check used above is not vacuous: a free awaiting only the allocation is rejected."""
    text = golden_chunks()[0].replace("%o = stream.timepoint.await %e0", "%d = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%rt) => %r : !stream.resource<transient>{%c64} => !stream.timepoint\n  %o = stream.timepoint.await %e0")
    with pytest.raises(AssertionError, match="freed before stream.cmd.execute"):
        check_frees(parse(text))


# -- fault injection: broken variants of the pass must be rejected by the verifier ----------------


def test_fault_free_after_the_first_use_is_use_after_free(monkeypatch: pytest.MonkeyPatch) -> None:
    module = parse(golden_chunks()[2])  # @coveredLastUses: two uses in sequence
    accepted(module, automatic_reference_counting(module), "automatic-reference-counting")
    original = arc.plan_deallocations

    def too_early(f):  # type: ignore[no-untyped-def]
        return [Deallocation(p.uses, p.after, tuple(p.uses.device_timepoints()[:1])) for p in original(f)]

    monkeypatch.setattr(arc, "plan_deallocations", too_early)
    assert "USE_AFTER_FREE" in rejection(module, automatic_reference_counting(module), "automatic-reference-counting")


def test_fault_freeing_exported_storage(monkeypatch: pytest.MonkeyPatch) -> None:
    module = parse(golden_chunks()[3])  # @neverFreed
    original = arc.allocation_uses

    def forget_escapes(block):  # type: ignore[no-untyped-def]
        uses = original(block)
        for u in uses:
            u.escapes.clear()
            u.alloca = u.alloca.replace(properties={k: v for k, v in u.alloca.properties.items() if k != "indeterminate_lifetime"})
        return uses

    monkeypatch.setattr(arc, "allocation_uses", forget_escapes)
    assert rejection(module, automatic_reference_counting(module), "automatic-reference-counting") & {"USE_AFTER_FREE", "DOUBLE_FREE"}


def test_fault_freeing_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    module = parse(golden_chunks()[0])
    once = automatic_reference_counting(module)
    original = arc.allocation_uses

    def forget_ownership(block):  # type: ignore[no-untyped-def]
        uses = original(block)
        for u in uses:
            u.owned.clear()
        return uses

    monkeypatch.setattr(arc, "allocation_uses", forget_ownership)
    assert "DOUBLE_FREE" in rejection(module, automatic_reference_counting(once), "automatic-reference-counting")


MULTI_BLOCK = """
"util.func"() <{function_type = (index) -> (), sym_name = "f"}> ({
^bb0(%n: index):
  "cf.br"() [^bb1] : () -> ()
^bb1:
  %r, %t = "stream.resource.alloca"(%n) : (index) -> (!stream.resource<transient>, !stream.timepoint)
  %d = "stream.resource.dealloca"(%r, %n, %t) : (!stream.resource<transient>, index, !stream.timepoint) -> !stream.timepoint
  "util.return"() : () -> ()
}) : () -> ()
"""


def test_multi_block_functions_are_refused_not_skipped() -> None:
    from stream.ir.diagnostics import DiagnosticError

    with pytest.raises(DiagnosticError, match="automatic-reference-counting: @f has 2 blocks"):
        automatic_reference_counting(parse(MULTI_BLOCK))

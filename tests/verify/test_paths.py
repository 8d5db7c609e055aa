"""Functions with branches are checked path by path (verify/paths.py): each path is exact, its
branch conditions are facts, and what a path violates names the path."""

from __future__ import annotations

from pathlib import Path

import pytest

from stream.ir.diagnostics import DiagnosticError
from stream.ir.parser import parse_module
from stream.ir.walk import functions
from verify import verify_module, verify_text
from verify.paths import paths

DATA = Path(__file__).resolve().parents[1] / "data" / "control_flow"


def _read(name: str) -> str:
    return (DATA / name).read_text()


@pytest.mark.parametrize("smt", ["pruned", "full"])
def test_the_branch_condition_is_a_fact_on_its_edge(smt: str) -> None:
    text = _read("guarded_offset.mlir")
    report = verify_text(text, "guarded.mlir", smt=smt)
    assert report.ok, report.text()
    assert report.functions[0].note == "2 control-flow path(s), each checked"
    # The same fill on the other edge (%i >= %n) is out of bounds, and the witness satisfies it.
    swapped = verify_text(text.replace("[^bb1, ^bb2]", "[^bb2, ^bb1]"), "swapped.mlir", smt=smt)
    (v,) = swapped.violations
    assert v.cls == "OUT_OF_BOUNDS" and "on the path ^bb0 -> (false) ^bb1 -> ^bb3" in v.notes
    assert v.symbols["%i"] >= v.symbols["%n"]


def test_a_violation_on_one_edge_names_that_path() -> None:
    report = verify_text(_read("branch_forgets_wait.mlir"), "diamond.mlir")
    assert report.classes == {"RACE_WRITE_AFTER_WRITE", "USE_AFTER_FREE"}, report.text()
    assert all(v.notes[-1] == "on the path ^bb0 -> (false) ^bb2 -> ^bb3" for v in report.violations)
    # Both edges passing the fill's timepoint: proved.
    fixed = _read("branch_forgets_wait.mlir").replace('"cf.br"(%ta)[^bb3]', '"cf.br"(%t1)[^bb3]')
    assert verify_text(fixed, "fixed.mlir").ok


def test_scf_if_results_are_the_values_the_taken_region_yields() -> None:
    report = verify_text(_read("scf_if_timepoint.mlir"), "if.mlir")
    assert report.classes == {"MISSED_WAIT", "USE_BEFORE_ALLOC"}, report.text()  # the host did not wait for the alloca either
    assert all("on the path ^bb0 -> scf.if@9:3 else" in v.notes for v in report.violations)
    both = _read("scf_if_timepoint.mlir").replace('"scf.yield"(%i)', '"scf.yield"(%t1)')
    assert verify_text(both, "both.mlir").ok


def test_paths_are_the_block_sequences_with_arguments_substituted() -> None:
    module = parse_module(_read("branch_forgets_wait.mlir"), "diamond.mlir")
    (f,) = functions(module)
    ps = paths(f)
    assert [p.label for p in ps] == ["^bb0 -> (true) ^bb1 -> ^bb3", "^bb0 -> (false) ^bb2 -> ^bb3"]
    block_args = {a for b in f.blocks[1:] for a in b.arguments}
    for p in ps:
        assert not any(o.name.startswith("cf.") and o.name != "cf.assert" for o in p.ops)
        assert not any(v in block_args for o in p.ops for inner in o.walk() for v in inner.operands)


def test_two_loops_in_one_function_are_each_checked_by_induction() -> None:
    # Two loops one after the other, each spinning on the flag: the second loop's header is
    # reached from the first one's exit, after any number of its iterations.
    text = """
util.func public @spin(%c: i1) {
  "cf.br"()[^bb1] : () -> ()
^bb1:
  "cf.cond_br"(%c)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb2:
  "cf.cond_br"(%c)[^bb2, ^bb3] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb3:
  util.return
}
"""
    report = verify_module(parse_module(text, "spin.mlir"))
    assert report.status == "proved", report.text()
    assert "2 loops, at ^bb1, ^bb2, checked by induction" in report.functions[0].note, report.functions[0].note


def test_too_many_paths_are_refused_not_truncated() -> None:
    # 10 diamonds in a row: 1024 paths, over the limit of 512.
    blocks = []
    for k in range(10):
        blocks.append(f'^bb{2 * k}:\n  "cf.cond_br"(%c)[^bb{2 * k + 1}, ^bb{2 * k + 2}] <{{operandSegmentSizes = array<i32: 1, 0, 0>}}> : (i1) -> ()')
        blocks.append(f'^bb{2 * k + 1}:\n  "cf.br"()[^bb{2 * k + 2}] : () -> ()')
    body = "\n".join(blocks)[len("^bb0:\n"):]
    text = f"util.func public @wide(%c: i1) {{\n{body}\n^bb20:\n  util.return\n}}\n"
    with pytest.raises(DiagnosticError, match="more than 512 control-flow paths"):
        verify_module(parse_module(text, "wide.mlir"))


def test_a_mapped_constant_is_storage_of_its_own_and_read_only() -> None:
    """`try_map`'s result is the host buffer's memory: distinct storage (nothing else aliases
    it, so publishing it needs no wait), and a constant: writing it is BORROWED_INPUT_MUTATED."""
    text = _read("try_map_written.mlir")
    report = verify_text(text, "map.mlir")
    (v,) = report.violations
    assert v.cls == "BORROWED_INPUT_MUTATED" and "writes a constant" in v.message and v.allocation is not None
    assert v.allocation[1] == "mapped"
    start, end = text.index("  %t = stream.cmd.execute"), text.index("  util.global.store")
    untouched = text[:start] + text[end:].replace("util.global.store %r", "util.global.store %m")
    assert verify_text(untouched, "untouched.mlir").status == "proved"


SWITCH = """
util.func public @pick(%flag: i32) -> () {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %e = stream.cmd.execute await(%rt) => with(%r as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  "cf.switch"(%flag, %e, %rt, %e)[^bb1, ^bb1, ^bb1] <{case_operand_segments = array<i32: 1, 1>, case_values = dense<[1, 2]> : tensor<2xi32>, operandSegmentSizes = array<i32: 1, 1, 2>}> : (i32, !stream.timepoint, !stream.timepoint, !stream.timepoint) -> ()
^bb1(%t: !stream.timepoint):
  %d = stream.resource.dealloca await(%t) => %r : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return
}
"""


def test_every_destination_of_a_switch_is_a_path() -> None:
    # Case 1 passes the alloca's timepoint: the free does not wait for the fill on that path only.
    report = verify_text(SWITCH, "switch.mlir")
    assert "USE_AFTER_FREE" in report.classes, report.text()
    assert all("(case 0)" in v.notes[-1] for v in report.violations), report.text()
    fixed = SWITCH.replace('"cf.switch"(%flag, %e, %rt, %e)', '"cf.switch"(%flag, %e, %e, %e)')
    report = verify_text(fixed, "switch.mlir")
    assert report.status == "proved" and "3 control-flow path(s)" in report.functions[0].note, report.text()

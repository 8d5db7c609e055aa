"""Branches and loops in the refinement check (`verify.refinement.control_flow`).

A branch is decided or split on; a loop pair is related by induction on equal loop states. Each
premise of the loop argument has a test that breaks it (another start state, another
condition, another step) and must not be proved, and each way a loop's effects could leak past
it unsoundly has a program whose real executions differ while a naive symbolic run of one
iteration finds them equal: facts that only an iteration establishes, stores to globals, opaque
effects, and a carried resource whose storage may be the one it started from.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stream.ir import parse_module
from verify.refinement import check_refinement

D0 = "#hal.device.affinity<@dev0>"
R = "!stream.resource<external>"
DATA = Path(__file__).resolve().parents[1] / "data" / "iree_models" / "rnn_loop"


def check(before: str, after: str):  # type: ignore[no-untyped-def]
    return check_refinement(parse_module(before, "before.mlir"), parse_module(after, "after.mlir"))


def loop_program(init: str = "%x", kernel: str = "@ex::@k", cond: str = "%n", extra: str = "") -> str:
    """An `scf.for` over `[0, cond)` that carries a 64-byte resource through one kernel."""
    return f"""
util.func public @f(%arg0: !hal.buffer_view, %n: index) -> !hal.buffer_view {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %x = stream.tensor.import on({D0}) %arg0 : !hal.buffer_view -> tensor<16xf32> in {R}{{%c64}}
  %x2 = stream.async.dispatch on({D0}) @ex::@pre(%x[%c0 to %c64 for %c64]) : ({R}{{%c64}}) -> {R}{{%c64}}
  %r = "scf.for"(%c0, {cond}, %c1, {init}) ({{
  ^bb0(%i: index, %acc: {R}):
    %y = stream.async.dispatch on({D0}) {kernel}(%acc[%c0 to %c64 for %c64], %i) : ({R}{{%c64}}, index) -> {R}{{%c64}}
    {extra}"scf.yield"(%y) : ({R}) -> ()
  }}) : (index, index, index, {R}) -> {R}
  %e = stream.tensor.export on({D0}) %r : tensor<16xf32> in {R}{{%c64}} -> !hal.buffer_view
  util.return %e : !hal.buffer_view
}}
"""


def test_the_same_loop_refines_itself() -> None:
    r = check(loop_program(), loop_program())
    assert r.status == "proved", r.render_text()


def test_a_loop_lowered_to_blocks_refines_the_scf_for() -> None:
    # IREE's scf-to-cf lowering between stages: the same loop as a header block and a back edge.
    blocks = f"""
util.func public @f(%arg0: !hal.buffer_view, %n: index) -> !hal.buffer_view {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %x = stream.tensor.import on({D0}) %arg0 : !hal.buffer_view -> tensor<16xf32> in {R}{{%c64}}
  %x2 = stream.async.dispatch on({D0}) @ex::@pre(%x[%c0 to %c64 for %c64]) : ({R}{{%c64}}) -> {R}{{%c64}}
  "cf.br"(%c0, %x)[^bb1] : (index, {R}) -> ()
^bb1(%i: index, %acc: {R}):
  %go = arith.cmpi slt, %i, %n : index
  "cf.cond_br"(%go)[^bb2, ^bb3] <{{operandSegmentSizes = array<i32: 1, 0, 0>}}> : (i1) -> ()
^bb2:
  %y = stream.async.dispatch on({D0}) @ex::@k(%acc[%c0 to %c64 for %c64], %i) : ({R}{{%c64}}, index) -> {R}{{%c64}}
  %next = arith.addi %i, %c1 : index
  "cf.br"(%next, %y)[^bb1] : (index, {R}) -> ()
^bb3:
  %e = stream.tensor.export on({D0}) %acc : tensor<16xf32> in {R}{{%c64}} -> !hal.buffer_view
  util.return %e : !hal.buffer_view
}}
"""
    r = check(loop_program(), blocks)
    assert r.status == "proved", r.render_text()


@pytest.mark.parametrize("premise, after", [
    ("the start states", loop_program(init="%x2")),
    ("the condition", loop_program(cond="%c64")),
    ("the step", loop_program(kernel="@ex::@other")),
])
def test_a_broken_premise_is_never_proved(premise: str, after: str) -> None:
    r = check(loop_program(), after)
    assert r.status == "unknown", (premise, r.render_text())
    assert "loop" in r.unknowns[0].reason


def test_a_branch_on_an_input_is_followed_both_ways() -> None:
    def program(on_false: str) -> str:
        return f"""
util.func public @f(%a: index, %b: index) -> index {{
  %c = arith.cmpi slt, %a, %b : index
  "cf.cond_br"(%c, %a, {on_false})[^bb1, ^bb1] <{{operandSegmentSizes = array<i32: 1, 1, 1>}}> : (i1, index, index) -> ()
^bb1(%r: index):
  util.return %r : index
}}
"""

    assert check(program("%b"), program("%b")).status == "proved"
    r = check(program("%b"), program("%a"))
    assert r.status == "mismatch", r.render_text()


# -- what an iteration does must not leak past the loop ------------------------------------------------
def bounds_program(result: str) -> str:
    """Every iteration slices the first 64 bytes of a resource of `%s` bytes, which is in bounds
    only when `%s >= 64`; the loop may run zero times, so after it nothing says so."""
    return f"""
util.func public @f(%arg0: !hal.buffer_view, %s: index, %n: index) -> (!hal.buffer_view, i1) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %x = stream.tensor.import on({D0}) %arg0 : !hal.buffer_view -> tensor<?xi8>{{%s}} in {R}{{%s}}
  %r = "scf.for"(%c0, %n, %c1, %x) ({{
  ^bb0(%i: index, %acc: {R}):
    %h = stream.async.slice on({D0}) %acc[%c0 to %c64] : {R}{{%s}} -> {R}{{%c64}}
    %y = stream.async.dispatch on({D0}) @ex::@k(%h[%c0 to %c64 for %c64]) : ({R}{{%c64}}) -> {R}{{%s}}
    "scf.yield"(%y) : ({R}) -> ()
  }}) : (index, index, index, {R}) -> {R}
  %big = arith.cmpi sge, %s, %c64 : index
  %true = arith.constant true
  %e = stream.tensor.export on({D0}) %r : tensor<?xi8>{{%s}} in {R}{{%s}} -> !hal.buffer_view
  util.return %e, {result} : !hal.buffer_view, i1
}}
"""


def test_facts_an_iteration_relies_on_do_not_hold_after_the_loop() -> None:
    # With n = 0 and s = 8, BEFORE returns false and AFTER true.
    assert check(bounds_program("%big"), bounds_program("%big")).status == "proved"
    r = check(bounds_program("%big"), bounds_program("%true"))
    assert r.status == "mismatch", r.render_text()


def global_program(store_in_loop: bool) -> str:
    """An initializer stores 1 into @g, then runs a loop of zero trips, and stores 5 into @g in
    the loop's body or after it."""
    store = """
    %c5 = arith.constant 5 : index
    util.global.store %c5, @g : index"""
    return f"""
util.global private @g : index
util.initializer {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  util.global.store %c1, @g : index
  "scf.for"(%c0, %c0, %c1) ({{
  ^bb0(%i: index):{store if store_in_loop else ""}
    "scf.yield"() : () -> ()
  }}) : (index, index, index) -> (){"" if store_in_loop else store}
  util.return
}}
util.func public @f() -> index {{
  %v = util.global.load @g : index
  util.return %v : index
}}
"""


def test_a_global_stored_in_a_loop_body_is_not_its_value_after_the_loop() -> None:
    # BEFORE's @g stays 1 (the body never runs), AFTER's is 5.
    r = check(global_program(store_in_loop=True), global_program(store_in_loop=False))
    assert r.status == "unknown" and "stored in a loop body" in r.unknowns[0].reason, r.render_text()


def effect_program(in_loop: bool) -> str:
    effect = '"test.effect"() : () -> ()\n'
    return f"""
util.func public @f(%n: index) -> index {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "scf.for"(%c0, %n, %c1) ({{
  ^bb0(%i: index):
    {effect if in_loop else ""}"scf.yield"() : () -> ()
  }}) : (index, index, index) -> ()
  {"" if in_loop else effect}%v = "test.observe"() : () -> index
  util.return %v : index
}}
"""


def test_an_opaque_effect_in_a_loop_body_is_part_of_its_state() -> None:
    # BEFORE runs the effect n times, AFTER once: what the observation sees may differ.
    r = check(effect_program(in_loop=True), effect_program(in_loop=False))
    assert r.status != "proved", r.render_text()


def alias_program(init: str) -> str:
    """The loop passes its resource through; after it, the result is filled in place. When the
    loop started from the imported `%x` itself, that fill writes the caller's buffer too."""
    return f"""
util.func public @f(%arg0: !hal.buffer_view, %n: index) -> (!hal.buffer_view, !hal.buffer_view) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7 : i32
  %x = stream.tensor.import on({D0}) %arg0 : !hal.buffer_view -> tensor<16xf32> in {R}{{%c64}}
  %copy = stream.async.clone on({D0}) %x : {R}{{%c64}} -> {R}{{%c64}}
  %r = "scf.for"(%c0, %n, %c1, {init}) ({{
  ^bb0(%i: index, %acc: {R}):
    "scf.yield"(%acc) : ({R}) -> ()
  }}) : (index, index, index, {R}) -> {R}
  %w = stream.async.fill on({D0}) %c7, %r[%c0 to %c64 for %c64] : i32 -> %r as {R}{{%c64}}
  %e0 = stream.tensor.export on({D0}) %w : tensor<16xf32> in {R}{{%c64}} -> !hal.buffer_view
  %e1 = stream.tensor.export on({D0}) %x : tensor<16xf32> in {R}{{%c64}} -> !hal.buffer_view
  util.return %e0, %e1 : !hal.buffer_view, !hal.buffer_view
}}
"""


def test_a_write_to_storage_a_loop_result_may_share_is_not_followed() -> None:
    # AFTER elided the clone before the loop (IREE #23246's shape): its fill writes %x.
    assert check(alias_program("%copy"), alias_program("%copy")).status == "proved"
    r = check(alias_program("%copy"), alias_program("%x"))
    assert r.status == "unknown" and "may live in that storage" in r.unknowns[0].reason, r.render_text()


def test_a_carried_resource_that_changes_size_is_followed_with_its_size() -> None:
    # The size is part of the loop state (IREE's stage 99 carries a slab of 256, then 512 bytes).
    grow = loop_program().replace(
        f"-> {R}{{%c64}}\n    \"scf.yield\"", f"-> {R}{{%c128}}\n    \"scf.yield\"").replace(
        "%c64 = arith.constant 64 : index\n", "%c64 = arith.constant 64 : index\n  %c128 = arith.constant 128 : index\n", 1)
    assert grow.count("%c128") == 2
    assert check(grow, grow).status == "proved"
    other = grow.replace("%c128 = arith.constant 128", "%c128 = arith.constant 192")
    r = check(grow, other)  # AFTER's iterations make another size: the states differ
    assert r.status == "unknown" and "different states in one iteration" in r.unknowns[0].reason, r.render_text()


@pytest.mark.parametrize("stage", ["03", "04", "05", "07", "10", "99"])
def test_rnn_loop_stages_refine_their_predecessors(stage: str) -> None:
    stages = sorted(DATA.glob("[0-9]*.generic.mlir"))
    index = [p.name[:2] for p in stages].index(stage)
    before, after = stages[index - 1], stages[index]
    r = check_refinement(parse_module(before.read_text(), str(before)), parse_module(after.read_text(), str(after)))
    assert r.status == "proved", r.render_text()


# -- cmd level: storage from before the loop that the body writes is part of the loop state --------
def cmd_program(value: str = "%c7", passed: str = "%t") -> str:
    """Every iteration fills the first half of a buffer allocated before the loop and copies it
    to the second half; the buffer is exported after the loop."""
    return f"""
util.func public @f(%n: index) -> !hal.buffer_view {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i32
  %c9 = arith.constant 9 : i32
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %b, %bt = stream.resource.alloca uninitialized : {R}{{%c64}} => !stream.timepoint
  %f = stream.cmd.execute await(%bt) => with(%b as %x: {R}{{%c64}}) {{
    stream.cmd.fill %c9, %x[%c0 for %c64] : i32 -> {R}{{%c64}}
  }} => !stream.timepoint
  %last = "scf.for"(%c0, %n, %c1, %f) ({{
  ^bb0(%i: index, %t: !stream.timepoint):
    %e = stream.cmd.execute await(%t) => with(%b as %x: {R}{{%c64}}) {{
      stream.cmd.fill {value}, %x[%c0 for %c32] : i32 -> {R}{{%c64}}
      stream.cmd.copy %x[%c0], %x[%c32], %c32 : {R}{{%c64}} -> {R}{{%c64}}
    }} => !stream.timepoint
    "scf.yield"({passed}) : (!stream.timepoint) -> ()
  }}) : (index, index, index, !stream.timepoint) -> !stream.timepoint
  %r = stream.timepoint.await %last => %b : {R}{{%c64}}
  %out = stream.tensor.export on({D0}) %r : tensor<64xi8> in {R}{{%c64}} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}}
"""


def test_a_loop_writing_storage_from_before_it_refines_itself() -> None:
    assert check(cmd_program(passed="%e"), cmd_program(passed="%e")).status == "proved"
    # What the iterations wait for orders them (the safety check's business), not the values.
    r = check(cmd_program(passed="%e"), cmd_program(passed="%t"))
    assert r.status == "proved", r.render_text()


def test_a_loop_writing_other_bytes_into_storage_from_before_it_is_not_proved() -> None:
    r = check(cmd_program(), cmd_program(value="%c9"))
    assert r.status == "unknown" and "different states in one iteration" in r.unknowns[0].reason, r.render_text()


def test_a_carried_resource_in_storage_the_body_writes_is_undecided() -> None:
    # The loop also carries %b itself: its bytes and the storage's would be two parts of the state.
    text = cmd_program().replace('"scf.for"(%c0, %n, %c1, %f)', '"scf.for"(%c0, %n, %c1, %f, %b)').replace(
        "^bb0(%i: index, %t: !stream.timepoint):", f"^bb0(%i: index, %t: !stream.timepoint, %carried: {R}):").replace(
        '"scf.yield"(%t) : (!stream.timepoint) -> ()', f'"scf.yield"(%t, %b) : (!stream.timepoint, {R}) -> ()').replace(
        "(index, index, index, !stream.timepoint) -> !stream.timepoint", f"(index, index, index, !stream.timepoint, {R}) -> (!stream.timepoint, {R})").replace(
        "%last = ", "%last:2 = ").replace("await %last =>", "await %last#0 =>")
    r = check(text, text)
    assert r.status == "unknown" and "carries" in r.unknowns[0].reason, r.render_text()


def test_timepoints_a_pass_adds_to_the_loop_state_do_not_shift_it() -> None:
    # IREE's propagate-timepoints carries a timepoint next to each resource: the resources keep
    # their place among the values the loop carries (it was a different unknown, undecided).
    def program(with_timepoints: bool) -> str:
        tp = ", %t: !stream.timepoint" if with_timepoints else ""
        return f"""
util.func public @f(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %n: index) -> !hal.buffer_view {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %now = stream.timepoint.immediate => !stream.timepoint
  %x = stream.tensor.import on({D0}) %arg0 : !hal.buffer_view -> tensor<16xf32> in {R}{{%c64}}
  %y = stream.tensor.import on({D0}) %arg1 : !hal.buffer_view -> tensor<16xf32> in {R}{{%c64}}
  %r:{4 if with_timepoints else 2} = "scf.for"(%c0, %n, %c1, %x{", %now" if with_timepoints else ""}, %y{", %now" if with_timepoints else ""}) ({{
  ^bb0(%i: index, %a: {R}{tp}, %b: {R}{tp.replace("%t", "%u")}):
    %s = stream.async.dispatch on({D0}) @ex::@k(%a[%c0 to %c64 for %c64], %b[%c0 to %c64 for %c64]) : ({R}{{%c64}}, {R}{{%c64}}) -> {R}{{%c64}}
    "scf.yield"(%s{", %now" if with_timepoints else ""}, %a{", %now" if with_timepoints else ""}) : ({R}{", !stream.timepoint" if with_timepoints else ""}, {R}{", !stream.timepoint" if with_timepoints else ""}) -> ()
  }}) : (index, index, index, {R}{", !stream.timepoint" if with_timepoints else ""}, {R}{", !stream.timepoint" if with_timepoints else ""}) -> ({R}{", !stream.timepoint" if with_timepoints else ""}, {R}{", !stream.timepoint" if with_timepoints else ""})
  %e = stream.tensor.export on({D0}) %r#{2 if with_timepoints else 1} : tensor<16xf32> in {R}{{%c64}} -> !hal.buffer_view
  util.return %e : !hal.buffer_view
}}
"""

    r = check(program(False), program(True))
    assert r.status == "proved", r.render_text()


SWITCH = """
util.func public @f(%flag: i32, %a: index, %b: index) -> index {
  %c2 = arith.constant 2 : index
  "cf.switch"(%flag, %a, %b)[^bb1, ^bb1, ^bb2] <{case_operand_segments = array<i32: 1, 0>, case_values = dense<[CASES]> : tensor<2xi32>, operandSegmentSizes = array<i32: 1, 1, 1>}> : (i32, index, index) -> ()
^bb1(%r: index):
  util.return %r : index
^bb2:
  %d = arith.muli %b, %c2 : index
  util.return %d : index
}
"""
CHAIN = """
util.func public @f(%flag: i32, %a: index, %b: index) -> index {
  %c2 = arith.constant 2 : index
  %m1 = arith.constant -1 : i32
  %c7 = arith.constant 7 : i32
  %is_m1 = arith.cmpi eq, %flag, %m1 : i32
  %is_7 = arith.cmpi eq, %flag, %c7 : i32
  "cf.cond_br"(%is_m1, %b)[^bb1, ^bb3] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, index) -> ()
^bb3:
  "cf.cond_br"(%is_7, %a)[^bb2, ^bb1] <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (i1, index) -> ()
^bb1(%r: index):
  util.return %r : index
^bb2:
  %d = arith.muli %b, %c2 : index
  util.return %d : index
}
"""


def test_a_switch_is_followed_case_by_case() -> None:
    # Case -1 (spelled as the 32-bit pattern 4294967295, as MLIR may print it) passes %b, case 7
    # doubles %b, the default passes %a; the same as two conditional branches.
    assert check(SWITCH.replace("CASES", "4294967295, 7"), CHAIN).status == "proved"
    r = check(SWITCH.replace("CASES", "4294967295, 8"), CHAIN)  # another case value
    assert r.status == "mismatch", r.render_text()


INDEX_SWITCH = """
util.func public @f(%i: index, %a: index, %b: index) -> index {
  %r = "scf.index_switch"(%i) <{cases = array<i64: 2, 5>}> ({
    "scf.yield"(%a) : (index) -> ()
  }, {
    "scf.yield"(%b) : (index) -> ()
  }, {
    %s = arith.addi %a, %b : index
    "scf.yield"(%s) : (index) -> ()
  }) : (index) -> index
  util.return %r : index
}
"""


def test_an_index_switch_runs_the_region_of_its_case() -> None:
    assert check(INDEX_SWITCH, INDEX_SWITCH).status == "proved"
    swapped = INDEX_SWITCH.replace("array<i64: 2, 5>", "array<i64: 5, 2>")
    assert check(INDEX_SWITCH, swapped).status == "mismatch"

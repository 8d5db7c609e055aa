"""Globals and initializers in the refinement check (`verify.refinement.rules_globals`).

Real IREE 3.13 stages from tests/data/iree_globals: ResNet-50 (constant globals the initializer
fills; schedule-allocation packs them into one slab) and the transformer with named parameters
(constants that become `cmd.parameter.load`s of `util.buffer.constant` names; FuseDispatchBindings
fuses two bindings of a kernel and renumbers the rest). Before the initializers were run, every
pair of these stages was undecided (`util.global.load` was opaque). Each holding pair has a mutant
that changes one value the function reads through a global, which must be a VALUE_MISMATCH.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import parse

from verify.refinement import check_refinement

DATA = Path(__file__).resolve().parents[1] / "data" / "iree_globals"


def _text(model: str, stage: str) -> str:
    return (DATA / f"{model}_{stage}.generic.mlir").read_text()


def _refines(after: str, before: str) -> tuple[str, object]:
    report = check_refinement(parse(before, "before.mlir"), parse(after, "after.mlir"))
    return report.status, report


@pytest.mark.parametrize("model, before, after", [
    ("resnet50", "05_propagate_timepoints", "07_schedule_allocation"),
    ("tiny_transformer_params", "05_propagate_timepoints", "07_schedule_allocation"),
    ("tiny_transformer_params", "07_schedule_allocation", "10_elide_timepoints"),
    ("tiny_transformer_params", "10_elide_timepoints", "99_final"),
])
def test_consecutive_stages_reading_globals_refine(model: str, before: str, after: str) -> None:
    status, report = _refines(_text(model, after), _text(model, before))
    assert status == "proved", report


def test_a_changed_fill_in_the_initializer_is_a_mismatch() -> None:
    """Stage 07's initializer fills four constant subviews with 0x40E2A2B6 (7.08...); one more ulp
    in the pattern changes every global the function reads from them."""
    after = _text("resnet50", "07_schedule_allocation")
    pattern = '"arith.constant"() <{value = 1088567222 : i32}>'
    assert after.count(pattern) == 1
    status, report = _refines(after.replace(pattern, pattern.replace("1088567222", "1088567223")),
                              _text("resnet50", "05_propagate_timepoints"))
    assert status == "mismatch", report


def test_another_parameter_key_is_a_mismatch() -> None:
    """Stage 10 loads `model::l0_ln1_g` by a `util.buffer.constant` key where 07 names it in a
    `#stream.parameter.named` constant: the same bytes. Loading `l0_ln1_b` there is not."""
    after = _text("tiny_transformer_params", "10_elide_timepoints")
    key = '"util.buffer.constant"() <{value = "l0_ln1_g"}>'
    assert after.count(key) == 1
    status, report = _refines(after.replace(key, key.replace("l0_ln1_g", "l0_ln1_b")),
                              _text("tiny_transformer_params", "07_schedule_allocation"))
    assert status == "mismatch", report


def test_swapped_fused_subspans_are_a_mismatch() -> None:
    """At stage 99 a kernel views its fused binding twice; the kernel order is the order of the
    subspans in the function. Swapping which weight each subspan views changes what it computes."""
    after = _text("tiny_transformer_params", "99_final")
    a, b = '"util.buffer.constant"() <{value = "l1_w1"}>', '"util.buffer.constant"() <{value = "l1_w2"}>'
    assert after.count(a) == 1 and after.count(b) == 1
    swapped = after.replace(a, "@@A@@").replace(b, a).replace("@@A@@", b)
    status, report = _refines(swapped, _text("tiny_transformer_params", "10_elide_timepoints"))
    assert status == "mismatch", report


def test_an_initializer_that_branches_on_try_map_is_followed_both_ways() -> None:
    """Stage 10 uploads the constants by `try_map` and, where mapping fails, reads them through a
    file: either way the resource holds the buffer's bytes. A fallback that reads 1024 bytes from
    offset 512 instead breaks only the path where the map fails."""
    after = _text("resnet50", "10_elide_timepoints")
    status, report = _refines(after, _text("resnet50", "07_schedule_allocation"))
    assert status == "proved", report
    file_constant = '"stream.file.constant"(%839, %840, %826, %840)'
    file_read = '"stream.file.read"(%843, %831, %842, %840, %826, %840, %832)'
    assert after.count(file_constant) == 1 and after.count(file_read) == 1
    mutant = after.replace(file_constant, '"stream.file.constant"(%839, %840, %836, %838)').replace(
        file_read, '"stream.file.read"(%843, %831, %842, %840, %826, %838, %832)')
    status, report = _refines(mutant, _text("resnet50", "07_schedule_allocation"))
    assert status == "mismatch", report


STATE = """
util.global private mutable @state : !stream.resource<external>
util.func public @f(%n: index) -> !stream.resource<external> {{
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %s = util.global.load @state : !stream.resource<external>
  %r = stream.async.clone %s : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c64}}
  {store}
  util.return %r : !stream.resource<external>
}}
"""


def test_a_mutable_global_is_the_same_unknown_state_in_both_programs() -> None:
    """A mutable global's value at a call depends on earlier calls: both programs start the call
    from the same unknown state (the induction over calls, verify.refinement.rules_globals), so
    what is read from it is equal in both, and nothing more is assumed of it."""
    text = STATE.format(store="")
    status, report = _refines(text, text.replace("util.func public @f(%n: index)", "util.func public @f(%m: index)"))
    assert status == "proved", report
    other = text.replace("%s = util.global.load @state", "%s = stream.async.splat %c0 : index -> !stream.resource<external>{%c64} //")
    status, report = _refines(other, text)
    assert status == "mismatch", report


def test_a_function_storing_a_mutable_global_changes_the_state_the_next_call_sees() -> None:
    """AFTER stores @state where BEFORE leaves it alone: the state after the call differs."""
    splat = "%s = stream.async.splat %c0 : index -> !stream.resource<external>{%c64} //"
    before = STATE.format(store="").replace("%s = util.global.load @state", splat)
    after = STATE.format(store="util.global.store %s, @state : !stream.resource<external>").replace("%s = util.global.load @state", splat)
    status, report = _refines(after, before)
    assert status == "mismatch", report
    assert report.mismatches[0].observable == "global" and report.mismatches[0].result_name == "@state"  # type: ignore[attr-defined]
    # Storing the very value the call returns would let the caller change the next call's state.
    returned = STATE.format(store="util.global.store %r, @state : !stream.resource<external>").replace("%s = util.global.load @state", splat)
    status, report = _refines(returned, returned)
    assert status == "unknown" and "hands to the caller" in report.unknowns[0].reason  # type: ignore[attr-defined]


def _partial(stop: bool) -> str:
    region_op = '  "test.region"() ({\n  }) : () -> ()\n' if stop else ""
    return f"""
util.global private @g : index
util.initializer {{
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  util.global.store %c1, @g : index
{region_op}  util.global.store %c5, @g : index
  util.return
}}
util.func public @f() -> index {{
  %v = util.global.load @g : index
  util.return %v : index
}}
"""


def test_an_initializer_that_stops_part_way_leaves_no_global_known() -> None:
    """The check cannot run an op with regions it has no rule for; the store of 1 before it is
    not @g's value when the function runs (5 is), so BEFORE's load is undecided, not 1."""
    status, report = _refines(_partial(stop=False).replace("%c5, @g", "%c1, @g"), _partial(stop=True))
    assert status == "unknown", report
    assert "could not run" in report.unknowns[0].reason  # type: ignore[attr-defined]


def _host_buffer(value: str) -> str:
    return f"""
util.func public @f() -> !stream.resource<constant> {{
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %buf = "util.buffer.constant"() <{{value = {value}}}> : () -> !util.buffer
  %ok, %r = "stream.resource.try_map"(%buf, %c0, %c16) : (!util.buffer, index, index) -> (i1, !stream.resource<constant>)
  util.return %r : !stream.resource<constant>
}}
"""


def test_a_composite_with_vector_padding_is_its_elements_bytes() -> None:
    """IREE pads packed constants with `dense<0> : vector<Nxi8>` elements (held-back ShuffleNet,
    10 against 07, was a false VALUE_MISMATCH: the composite was a constant keyed by its text)."""
    composite = "#util.composite<16xi8, [dense<[1.0, 2.0]> : tensor<2xf32>, dense<0> : vector<8xi8>]>"
    status, report = _refines(_host_buffer(composite), _host_buffer("dense<[1.0, 2.0, 0.0, 0.0]> : tensor<4xf32>"))
    assert status == "proved", report
    status, report = _refines(_host_buffer(composite.replace("2.0]", "3.0]")), _host_buffer("dense<[1.0, 2.0, 0.0, 0.0]> : tensor<4xf32>"))
    assert status == "mismatch", report


def test_a_composite_the_check_cannot_lay_out_is_unknown_bytes_not_a_constant() -> None:
    composite = "#util.composite<16xi8, [dense<[1.0, 2.0]> : tensor<2xf32>, dense<0> : vector<7xi8>]>"  # 15 of 16 bytes
    status, report = _refines(_host_buffer(composite), _host_buffer("dense<[1.0, 2.0, 0.0, 0.0]> : tensor<4xf32>"))
    assert status == "unknown", report

"""The function-boundary ABI rules (SPEC §3.1 rule 8, `stream.analysis.abi`): the coarse-fences
wait fence guards every input, and a private function may hand a wait to its caller."""

from __future__ import annotations

from conftest import check, parse

from stream.analysis.abi import handed_pairs, wait_fences
from stream.ir.walk import functions

HEAD = "%c0 = arith.constant 0 : index\n  %c64 = arith.constant 64 : index\n  %c1_i32 = arith.constant 1 : i32"
IMPORT = ("%in = stream.tensor.import on(#hal.device.affinity<@dev0>) {consume} %view : !hal.buffer_view -> tensor<16xf32> "
          "in !stream.resource<external>{{%c64}}")
RES = "!stream.resource<external>{%c64}"


def coarse(body: str, attrs: str = ' attributes {iree.abi.model = "coarse-fences"}', consume: str = "") -> str:
    return f"""
util.func public @main$async(%view: !hal.buffer_view, %wait: !hal.fence, %signal: !hal.fence) -> !hal.buffer_view{attrs} {{
  {HEAD}
  {IMPORT.format(consume=consume)}
  {body}
  %v = stream.tensor.export on(#hal.device.affinity<@dev0>) %in : tensor<16xf32> in {RES} -> !hal.buffer_view
  util.return %v : !hal.buffer_view
}}
"""


def fill(awaits: str = "") -> str:
    aw = f"await({awaits}) => " if awaits else ""
    return (f"%t = stream.cmd.execute on(#hal.device.affinity<@dev0>) {aw}with(%in as %a: {RES}) {{\n"
            f"    stream.cmd.fill %c1_i32, %a[%c0 for %c64] : i32 -> {RES}\n"
            "  } => !stream.timepoint\n"
            "  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t => (%signal : !hal.fence)")


IMPORT_WAIT = "%ready = stream.timepoint.import on(#hal.device.affinity<@dev0>) %wait : (!hal.fence) => !stream.timepoint"


def classes(text: str) -> set[str]:
    return {v.cls for v in check(text).violations}


# -- which fence guards the inputs ---------------------------------------------------------------
def test_the_wait_fence_is_the_second_to_last_argument_of_a_coarse_fences_function() -> None:
    (f,) = functions(parse(coarse(fill())))
    assert [v.name_hint for v in wait_fences(f)] == ["wait"]


def test_without_the_attribute_an_imported_fence_the_function_never_signals_is_a_wait_fence() -> None:
    (f,) = functions(parse(coarse(f"{IMPORT_WAIT}\n  {fill('%ready')}", attrs="")))
    assert [v.name_hint for v in wait_fences(f)] == ["wait"]
    (g,) = functions(parse(coarse(fill(), attrs="")))  # never imported: nothing says it is a wait fence
    assert wait_fences(g) == ()


def test_a_fence_the_function_signals_and_imports_back_is_no_wait_fence(corpus) -> None:  # type: ignore[no-untyped-def]
    (f,) = functions(parse((corpus / "cmd_fence_roundtrip_ok.mlir").read_text()))
    assert wait_fences(f) == ()


# -- the obligation ------------------------------------------------------------------------------
def test_a_write_to_a_consumed_input_before_the_wait_fence_is_a_missed_wait() -> None:
    # Writable (consumed) storage is still the caller's until the wait fence: the caller may be
    # writing it, or reading what it held.
    assert classes(coarse(f"{IMPORT_WAIT}\n  {fill()}", consume="consume ")) == {"MISSED_WAIT"}
    assert classes(coarse(f"{IMPORT_WAIT}\n  {fill('%ready')}", consume="consume ")) == set()


def test_awaiting_the_fence_through_a_join_or_an_alloca_covers_the_inputs() -> None:
    join = ("%now = stream.timepoint.immediate => !stream.timepoint\n"
            "  %j = stream.timepoint.join max(%now, %ready) => !stream.timepoint")
    assert classes(coarse(f"{IMPORT_WAIT}\n  {join}\n  {fill('%j')}", consume="consume ")) == set()
    alloca = ("%tmp, %ta = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%ready) => "
              "!stream.resource<transient>{%c64} => !stream.timepoint")
    # (the transient is never freed: a LEAK warning, nothing else)
    assert classes(coarse(f"{IMPORT_WAIT}\n  {alloca}\n  {fill('%ta')}", consume="consume ")) == {"LEAK"}


def test_a_coarse_fences_function_that_never_imports_its_wait_fence_reads_its_inputs_unguarded() -> None:
    report = check(coarse(fill(), consume="consume "))
    assert [v.cls for v in report.violations] == ["MISSED_WAIT"]
    assert "wait fence" in report.violations[0].message


def test_iree_conversion_form_a_host_await_on_the_import_is_proved() -> None:
    # What ConvertToStream emits for `hal.tensor.import wait(%wait)`: the import is awaited on the
    # host and the region captures the awaited value.
    body = (f"{IMPORT_WAIT}\n  %ok = stream.timepoint.await %ready => %in : {RES}\n"
            f"  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%ok as %a: {RES}) {{\n"
            f"    stream.cmd.fill %c1_i32, %a[%c0 for %c64] : i32 -> {RES}\n"
            "  } => !stream.timepoint\n"
            "  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t => (%signal : !hal.fence)")
    assert classes(coarse(body, consume="consume ")) == set()


def test_handed_pairs_only_on_private_functions() -> None:
    text = """
util.func private @p(%x: !stream.resource<external>, %t: !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint) {
  util.return %x, %t : !stream.resource<external>, !stream.timepoint
}
util.func public @q(%x: !stream.resource<external>, %t: !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint) {
  util.return %x, %t : !stream.resource<external>, !stream.timepoint
}
"""
    p, q = functions(parse(text))
    assert handed_pairs(p, p.body.ops[-1]) == {0: 1}
    assert handed_pairs(q, q.body.ops[-1]) == {}

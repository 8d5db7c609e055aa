"""The function-boundary ABI rules (SPEC §3.1 rule 8, `stream.dialect.abi`): the coarse-fences
wait fence guards every input, and a private function may hand a wait to its caller."""

from __future__ import annotations

from conftest import check, parse

from stream.dialect.abi import handed_pairs, wait_fences
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


# -- private functions hand the wait to their caller (issue 9 item 6) ------------------------------
def private_fill(ret: str, vis: str = "private", results: str = "(!stream.resource<external>, !stream.timepoint)") -> str:
    return f"""
util.func {vis} @fill(%buf: !stream.resource<external>, %t0: !stream.timepoint, %other: !stream.resource<external>) -> {results} {{
  {HEAD}
  %ta = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%buf as %b: {RES}) {{
    stream.cmd.fill %c1_i32, %b[%c0 for %c64] : i32 -> {RES}
  }} => !stream.timepoint
  %tb = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%other as %o: {RES}) {{
    stream.cmd.fill %c1_i32, %o[%c0 for %c64] : i32 -> {RES}
  }} => !stream.timepoint
  %tab = stream.timepoint.join max(%ta, %tb) => !stream.timepoint
  util.return {ret}
}}
"""


TWO = "(!stream.resource<external>, !stream.timepoint, !stream.resource<external>, !stream.timepoint)"


def test_a_private_function_returning_a_covering_timepoint_leaves_the_wait_to_its_caller() -> None:
    assert classes(private_fill("%buf, %tab : !stream.resource<external>, !stream.timepoint")) == set()
    # Each result is covered by its own timepoint; %tab covers both, so the caller's buffers are
    # done once it has awaited either.
    two = "%buf, %tab, %other, %tab : !stream.resource<external>, !stream.timepoint, !stream.resource<external>, !stream.timepoint"
    assert classes(private_fill(two, results=TWO)) == set()


def test_a_returned_timepoint_that_misses_a_write_is_a_missed_wait() -> None:
    # %ta covers the write to %buf but not the one to %other, which the caller may reuse once it
    # has awaited %ta.
    report = check(private_fill("%buf, %ta : !stream.resource<external>, !stream.timepoint"))
    assert {v.cls for v in report.violations} == {"MISSED_WAIT"}
    assert any("a timepoint the function returns" in v.message for v in report.violations)
    # Swapped pairs: each result comes with the other's timepoint.
    swapped = "%buf, %tb, %other, %ta : !stream.resource<external>, !stream.timepoint, !stream.resource<external>, !stream.timepoint"
    report = check(private_fill(swapped, results=TWO))
    assert {v.cls for v in report.violations} == {"MISSED_WAIT"}
    assert {v.allocation[0] for v in report.violations if v.allocation} == {"%buf", "%other"}
    # The timepoint it was given covers neither write.
    assert classes(private_fill("%buf, %t0 : !stream.resource<external>, !stream.timepoint")) == {"MISSED_WAIT"}


def test_public_functions_and_results_without_a_timepoint_keep_the_synchronous_rule() -> None:
    covering = "%buf, %tab : !stream.resource<external>, !stream.timepoint"
    assert classes(private_fill(covering, vis="public")) == {"MISSED_WAIT"}
    # A resource followed by a non-timepoint: returned ready, so finished at the return.
    assert classes(private_fill("%buf : !stream.resource<external>", results="!stream.resource<external>")) == {"MISSED_WAIT"}


def test_the_handed_over_value_is_ready_only_where_the_caller_has_awaited_it() -> None:
    # Async level: the returned value itself must be produced under its timepoint.
    text = f"""
util.func private @produce(%x: !stream.resource<external>, %tx: !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint) {{
  {HEAD}
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) await(%tx) => with(%x as %a: {RES}) -> {RES} {{
    %y = stream.async.dispatch @ex::@f(%a[%c0 to %c64 for %c64]) : ({RES}) -> {RES}
    stream.yield %y : {RES}
  }} => !stream.timepoint
  %now = stream.timepoint.immediate => !stream.timepoint
  util.return %r, {{tp}} : !stream.resource<external>, !stream.timepoint
}}
"""
    assert classes(text.replace("{tp}", "%t")) == set()
    report = check(text.replace("{tp}", "%now"))
    assert {v.cls for v in report.violations} == {"MISSED_WAIT"}
    assert any("uses %r without a wait that covers execute #1" in v.message for v in report.violations)


# -- the caller's side: a call's result is ready once its returned timepoint is awaited ----------
CALLEE = f"""
util.func private @produce(%x: !stream.resource<external>, %tx: !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint, !stream.resource<external>, !stream.timepoint) {{
  {HEAD}
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) await(%tx) => with(%x as %a: {RES}) -> {RES} {{
    %y = stream.async.dispatch @ex::@f(%a[%c0 to %c64 for %c64]) : ({RES}) -> {RES}
    stream.yield %y : {RES}
  }} => !stream.timepoint
  %r2, %t2 = stream.async.execute on(#hal.device.affinity<@dev0>) await(%t) => with(%r as %b: {RES}) -> {RES} {{
    %y = stream.async.dispatch @ex::@g(%b[%c0 to %c64 for %c64]) : ({RES}) -> {RES}
    stream.yield %y : {RES}
  }} => !stream.timepoint
  %now = stream.timepoint.immediate => !stream.timepoint
  util.return %r, {{T1}}, %r2, %t2 : !stream.resource<external>, !stream.timepoint, !stream.resource<external>, !stream.timepoint
}}
"""
RESULTS = "(!stream.resource<external>, !stream.timepoint, !stream.resource<external>, !stream.timepoint)"


def caller(body: str, t1: str = "%t") -> str:
    return CALLEE.replace("{T1}", t1) + f"""
util.func public @main(%view: !hal.buffer_view) -> !hal.buffer_view {{
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in {RES}
  %now = stream.timepoint.immediate => !stream.timepoint
  %p:4 = util.call @produce(%in, %now) : (!stream.resource<external>, !stream.timepoint) -> {RESULTS}
  {body}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %use : tensor<16xf32> in {RES} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}}
"""


def main_verdicts(text: str) -> tuple[set[str], list[str]]:
    report = check(text)
    return ({v.cls for v in report.violations if v.function == "main"}, [u.reason for u in report.unknowns if u.function == "main"])


def test_using_a_calls_result_without_awaiting_its_timepoint_is_a_missed_wait() -> None:
    found, _ = main_verdicts(caller("%use = stream.async.clone %p#0 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}"))
    assert found == {"MISSED_WAIT"}
    found, _ = main_verdicts(caller("%use = stream.timepoint.await %p#1 => %p#2 : !stream.resource<external>{%c64}"))
    assert found == {"MISSED_WAIT"}  # awaited the first result's timepoint; %p#2 comes with %p#3


def test_awaiting_the_returned_timepoint_or_one_that_covers_it_is_not_a_missed_wait() -> None:
    for body in ("%use = stream.timepoint.await %p#1 => %p#0 : !stream.resource<external>{%c64}",
                 "%use = stream.timepoint.await %p#3 => %p#0 : !stream.resource<external>{%c64}"):  # %t2 covers %t in @produce
        found, unknowns = main_verdicts(caller(body))
        assert found == set(), body
        assert unknowns == [], body  # the call's effect is @produce's summary (verify.calls): proved


def test_a_result_returned_with_an_immediate_timepoint_is_ready_at_the_return() -> None:
    found, _ = main_verdicts(caller("%use = stream.timepoint.await %p#3 => %p#0 : !stream.resource<external>{%c64}", t1="%now"))
    assert "MISSED_WAIT" not in found


def test_a_pair_taken_on_by_another_call_is_proved_and_a_timepoint_through_an_unmodelled_op_is_undecided() -> None:
    # @produce takes a pair handed in unready and touches it only once its timepoint is reached.
    on = ("%q:4 = util.call @produce(%p#0, %p#1) : (!stream.resource<external>, !stream.timepoint) -> " + RESULTS + "\n"
          "  %use = stream.timepoint.await %q#1 => %q#0 : !stream.resource<external>{%c64}")
    assert main_verdicts(caller(on)) == (set(), [])
    # A callee without a summary (declared only) may take the pair on unready: undecided.
    declared = caller(on).replace("%q:4 = util.call @produce(", "%q:4 = util.call @opaque(")
    declared = "util.func private @opaque(!stream.resource<external>, !stream.timepoint) -> " + RESULTS + "\n" + declared
    found, unknowns = main_verdicts(declared)
    assert found == set() and any("may take the value with its timepoint" in u for u in unknowns)
    through = ("%c1 = arith.constant 1 : i1\n"
               "  %s = arith.select %c1, %p#1, %now : !stream.timepoint\n"
               "  %w = stream.timepoint.await %s => %p#0 : !stream.resource<external>{%c64}\n"
               "  %use = stream.async.clone %p#0 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}")
    found, unknowns = main_verdicts(caller(through))
    assert "MISSED_WAIT" not in found and any("passes through it" in u for u in unknowns)


def test_a_function_of_host_ops_only_is_checked() -> None:
    # No op defines a level here (imports, a load, an await): the inputs are still guarded.
    text = f"""
util.func public @peek(%buf: !stream.resource<staging>, %wait: !hal.fence) -> i32 {{
  {HEAD}
  {IMPORT_WAIT}
  %v = stream.resource.load %buf[%c0] : !stream.resource<staging>{{%c64}} -> i32
  %b = stream.timepoint.await %ready => %buf : !stream.resource<staging>{{%c64}}
  util.return %v : i32
}}
"""
    assert classes(text) == {"MISSED_WAIT"}
    ok = text.replace("%v = stream.resource.load %buf[%c0]", "%v = stream.resource.load %b[%c0]")
    lines = ok.splitlines()
    i = next(k for k, line in enumerate(lines) if "resource.load" in line)
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    assert classes("\n".join(lines)) == set()


def test_a_private_function_touches_an_argument_only_after_the_timepoint_handed_in_with_it() -> None:
    # PropagateTimepoints passes (resource, timepoint) pairs to private functions: the caller's
    # writes to %buf are done once %t0 is reached, so the fill must await it.
    ret = "%buf, %tab : !stream.resource<external>, !stream.timepoint"
    assert classes(private_fill(ret)) == set()
    report = check(private_fill(ret).replace("await(%t0) => with(%buf", "with(%buf"))
    assert {v.cls for v in report.violations} == {"MISSED_WAIT"}
    assert any(v.message.startswith("on %buf") and "fill is not ordered after the timepoint the caller hands in" in v.message
               for v in report.violations)
    # A public function's timepoint arguments pair nothing (its inputs are ready).
    assert "hands in" not in check(private_fill(ret, vis="public").replace("await(%t0) => with(%buf", "with(%buf")).text()
    # IREE's forwarding shape: a private function returning its argument with its timepoint.
    forward = """
util.func private @forward(%x: !stream.resource<external>, %tx: !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint) {
  util.return %x, %tx : !stream.resource<external>, !stream.timepoint
}
"""
    assert classes(forward) == set()

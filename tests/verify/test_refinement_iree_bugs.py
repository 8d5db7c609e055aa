"""IREE's value bugs that no race check sees (reference notes section 4), as small before/after
pairs: the buggy lowering is reported as VALUE_MISMATCH naming the result and the op, and the
fixed lowering refines."""

from __future__ import annotations

from stream.ir import parse_module
from verify.refinement import RefinementReport, check_refinement

D0 = "#hal.device.affinity<@dev0>"
E64 = "!stream.resource<external>{%c64}"
E128 = "!stream.resource<external>{%c128}"
T64 = "!stream.resource<transient>{%c64}"


def check(before: str, after: str) -> RefinementReport:
    return check_refinement(parse_module(before, "before.mlir"), parse_module(after, "after.mlir"))


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


HEADER = """  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index"""


# -- #19355 (PR #19389): a tied update in a wave got a dummy allocation; its write was lost -------------
LOST_WRITE_ASYNC = f"""
util.func public @main(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view) -> !hal.buffer_view {{
{HEADER}
  %t = stream.tensor.import on({D0}) consume %arg0 : !hal.buffer_view -> tensor<32xf32> in {E128}
  %u = stream.tensor.import on({D0}) %arg1 : !hal.buffer_view -> tensor<16xf32> in {E64}
  %x = stream.tensor.import on({D0}) %arg2 : !hal.buffer_view -> tensor<16xf32> in {E64}
  %r, %tp = stream.async.execute on({D0}) with(%t as %a: {E128}, %u as %b: {E64}, %x as %y: {E64}) -> %t{{%c128}} {{
    %w:2 = stream.async.concurrent with(%a as %a2: {E128}, %b as %b2: {E64}, %y as %y2: {E64}) -> (%a{{%c128}}, {T64}) {{
      %6 = stream.async.update %b2, %a2[%c0 to %c64] : {E64} -> %a2 as {E128}
      %d = stream.async.dispatch @k(%y2[%c0 to %c64 for %c64]) : ({E64}) -> {T64}
      stream.yield %6, %d : {E128}, {T64}
    }}
    %7 = stream.async.update %w#1, %w#0[%c64 to %c128] : {T64} -> %w#0 as {E128}
    stream.yield %7 : {E128}
  }} => !stream.timepoint
  %h = stream.timepoint.await %tp => %r : {E128}
  %e = stream.tensor.export on({D0}) %h : tensor<32xf32> in {E128} -> !hal.buffer_view
  util.return %e : !hal.buffer_view
}}
"""


def lost_write_cmd(first_copy_target: str) -> str:
    return f"""
util.func public @main(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view) -> !hal.buffer_view {{
{HEADER}
  %t = stream.tensor.import on({D0}) consume %arg0 : !hal.buffer_view -> tensor<32xf32> in {E128}
  %u = stream.tensor.import on({D0}) %arg1 : !hal.buffer_view -> tensor<16xf32> in {E64}
  %x = stream.tensor.import on({D0}) %arg2 : !hal.buffer_view -> tensor<16xf32> in {E64}
  %slab, %st = stream.resource.alloca uninitialized on({D0}) : !stream.resource<transient>{{%c128}} => !stream.timepoint
  %tp = stream.cmd.execute on({D0}) await(%st) => with(%t as %a: {E128}, %u as %b: {E64}, %x as %y: {E64}, %slab as %s: !stream.resource<transient>{{%c128}}) {{
    stream.cmd.concurrent {{
      stream.cmd.copy %b[%c0], {first_copy_target}[%c0], %c64 : {E64} -> {E128 if first_copy_target == '%a' else '!stream.resource<transient>{%c128}'}
      stream.cmd.dispatch @k {{
        ro %y[%c0 for %c64] : {E64},
        wo %s[%c64 for %c64] : !stream.resource<transient>{{%c128}}
      }}
    }}
    stream.cmd.copy %s[%c64], %a[%c64], %c64 : !stream.resource<transient>{{%c128}} -> {E128}
  }} => !stream.timepoint
  %d = stream.resource.dealloca on({D0}) await(%tp) => %slab : !stream.resource<transient>{{%c128}} => !stream.timepoint
  %h = stream.timepoint.await %d => %t : {E128}
  %e = stream.tensor.export on({D0}) %h : tensor<32xf32> in {E128} -> !hal.buffer_view
  util.return %e : !hal.buffer_view
}}
"""


def test_19355_lost_write_of_a_tied_update_in_a_wave() -> None:
    assert check(LOST_WRITE_ASYNC, lost_write_cmd("%a")).ok
    bad = lost_write_cmd("%s")  # the update of the wave writes a dummy buffer
    r = check(LOST_WRITE_ASYNC, bad)
    assert r.status == "mismatch", r.render_text()
    m = r.mismatches[0]
    assert (m.klass, m.observable, m.result, m.byte_range) == ("VALUE_MISMATCH", "result", 0, ("0", "64"))
    assert "never written" in m.message and "arg1" in m.before and "arg0" in m.after
    # The output buffer was given away (consumed): only the returned buffer view is compared.
    assert [(x.observable, x.result) for x in r.mismatches] == [("result", 0)]


# -- #20819: emplaced results bound in update order instead of result order -----------------------------------
CONCAT_ASYNC = f"""
util.func public @main(%arg0: !hal.buffer_view) -> !hal.buffer_view {{
{HEADER}
  %x = stream.tensor.import on({D0}) %arg0 : !hal.buffer_view -> tensor<16xf32> in {E64}
  %r:2 = stream.async.dispatch on({D0}) @split(%x[%c0 to %c64 for %c64]) : ({E64}) -> ({E64}, {E64})
  %t = stream.async.alloca on({D0}) : {E128}
  %u1 = stream.async.update on({D0}) %r#1, %t[%c0 to %c64] : {E64} -> %t as {E128}
  %u2 = stream.async.update on({D0}) %r#0, %u1[%c64 to %c128] : {E64} -> %u1 as {E128}
  %e = stream.tensor.export on({D0}) %u2 : tensor<32xf32> in {E128} -> !hal.buffer_view
  util.return %e : !hal.buffer_view
}}
"""


def concat_cmd(result0_offset: str, result1_offset: str) -> str:
    return f"""
util.func public @main(%arg0: !hal.buffer_view) -> !hal.buffer_view {{
{HEADER}
  %x = stream.tensor.import on({D0}) %arg0 : !hal.buffer_view -> tensor<16xf32> in {E64}
  %o, %ot = stream.resource.alloca uninitialized on({D0}) : {E128} => !stream.timepoint
  %tp = stream.cmd.execute on({D0}) await(%ot) => with(%x as %y: {E64}, %o as %out: {E128}) {{
    stream.cmd.dispatch @split {{
      ro %y[%c0 for %c64] : {E64},
      wo %out[{result0_offset} for %c64] : {E128},
      wo %out[{result1_offset} for %c64] : {E128}
    }}
  }} => !stream.timepoint
  %h = stream.timepoint.await %tp => %o : {E128}
  %e = stream.tensor.export on({D0}) %h : tensor<32xf32> in {E128} -> !hal.buffer_view
  util.return %e : !hal.buffer_view
}}
"""


def test_20819_wrong_tie_order_of_emplaced_results() -> None:
    # Binding 1 is result 0 (updated into [64, 128)), binding 2 is result 1 (into [0, 64)).
    assert check(CONCAT_ASYNC, concat_cmd("%c64", "%c0")).ok
    bad = concat_cmd("%c0", "%c64")  # bound in the order of the updates
    r = check(CONCAT_ASYNC, bad)
    assert r.status == "mismatch", r.render_text()
    m = r.mismatches[0]
    assert (m.result, m.byte_range, m.op) == (0, ("0", "64"), "stream.cmd.dispatch @split")
    assert m.location.line == line_of(bad, "stream.cmd.dispatch @split")
    assert "@split#1" in m.after and "@split#2" in m.before


# -- #14685 (PR #14689): consumers of a tied subview operand used offset 0 ------------------------------------
SUBVIEW_ASYNC = f"""
util.func public @main(%arg0: !hal.buffer_view) -> !hal.buffer_view {{
{HEADER}
  %big = stream.tensor.import on({D0}) consume %arg0 : !hal.buffer_view -> tensor<32xf32> in {E128}
  %sub = stream.resource.subview %big[%c64] : {E128} -> {E64}
  %r, %tp = stream.async.execute on({D0}) with(%sub as %s: {E64}) -> %sub{{%c64}} {{
    %d = stream.async.dispatch @k(%s[%c0 to %c64 for %c64]) : ({E64}) -> %s{{%c64}}
    stream.yield %d : {E64}
  }} => !stream.timepoint
  %r2, %tp2 = stream.async.execute on({D0}) await(%tp) => with(%r as %y: {E64}) -> {E64} {{
    %g = stream.async.dispatch @g(%y[%c0 to %c64 for %c64]) : ({E64}) -> {E64}
    stream.yield %g : {E64}
  }} => !stream.timepoint
  %h = stream.timepoint.await %tp2 => %r2 : {E64}
  %e = stream.tensor.export on({D0}) %h : tensor<16xf32> in {E64} -> !hal.buffer_view
  util.return %e : !hal.buffer_view
}}
"""


def subview_cmd(consumer_offset: str) -> str:
    return f"""
util.func public @main(%arg0: !hal.buffer_view) -> !hal.buffer_view {{
{HEADER}
  %big = stream.tensor.import on({D0}) consume %arg0 : !hal.buffer_view -> tensor<32xf32> in {E128}
  %tp = stream.cmd.execute on({D0}) with(%big as %b: {E128}) {{
    stream.cmd.dispatch @k {{
      rw %b[%c64 for %c64] : {E128}
    }}
  }} => !stream.timepoint
  %o, %ot = stream.resource.alloca uninitialized on({D0}) : {E64} => !stream.timepoint
  %j = stream.timepoint.join max(%tp, %ot) => !stream.timepoint
  %tp2 = stream.cmd.execute on({D0}) await(%j) => with(%big as %b: {E128}, %o as %out: {E64}) {{
    stream.cmd.dispatch @g {{
      ro %b[{consumer_offset} for %c64] : {E128},
      wo %out[%c0 for %c64] : {E64}
    }}
  }} => !stream.timepoint
  %h = stream.timepoint.await %tp2 => %o : {E64}
  %e = stream.tensor.export on({D0}) %h : tensor<16xf32> in {E64} -> !hal.buffer_view
  util.return %e : !hal.buffer_view
}}
"""


def test_14685_wrong_subview_offset_of_a_tied_operand() -> None:
    assert check(SUBVIEW_ASYNC, subview_cmd("%c64")).ok
    bad = subview_cmd("%c0")
    r = check(SUBVIEW_ASYNC, bad)
    assert r.status == "mismatch", r.render_text()
    m = r.mismatches[0]
    assert (m.result, m.op) == (0, "stream.cmd.dispatch @g") and m.location.line == line_of(bad, "stream.cmd.dispatch @g")
    assert "input 0" in m.message and "@k#0" in m.before


# -- #23171 (PR #23208): update elision dropped the first operand of a concat ----------------------------------------
def concat(first_update: bool) -> str:
    u1 = (f"  %u1 = stream.async.update on({D0}) %a, %t[%c0 to %c64] : {E64} -> %t as {E128}\n" if first_update else "")
    target = "%u1" if first_update else "%t"
    return f"""
util.func public @main(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view {{
{HEADER}
  %a = stream.tensor.import on({D0}) %arg0 : !hal.buffer_view -> tensor<16xf32> in {E64}
  %b = stream.tensor.import on({D0}) %arg1 : !hal.buffer_view -> tensor<16xf32> in {E64}
  %t = stream.async.alloca on({D0}) : {E128}
{u1}  %u2 = stream.async.copy on({D0}) %b[%c0 to %c64], {target}[%c64 to %c128], %c64 : {E64} -> {target} as {E128}
  %e = stream.tensor.export on({D0}) %u2 : tensor<32xf32> in {E128} -> !hal.buffer_view
  util.return %e : !hal.buffer_view
}}
"""


def test_23171_update_elision_loses_a_concat_operand() -> None:
    before = concat(first_update=True)
    assert check(before, before).ok
    bad = concat(first_update=False)  # the copy into [64, 128) does not overwrite [0, 64)
    r = check(before, bad)
    assert r.status == "mismatch", r.render_text()
    m = r.mismatches[0]
    assert (m.result, m.byte_range) == (0, ("0", "64"))
    assert m.op == "stream.async.copy" and m.location.line == line_of(bad, "stream.async.copy")
    assert "uninit" in m.after and "arg0" in m.before and "nobody wrote" in m.message

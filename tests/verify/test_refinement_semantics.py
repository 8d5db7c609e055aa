"""The semantics of each op family, tested through before/after pairs: each pair either computes
the same values (refines) or provably not (VALUE_MISMATCH), derived by hand from the op's meaning."""

from __future__ import annotations

from stream.ir import parse_module
from verify.refinement import RefinementReport, check_refinement

D0 = "#hal.device.affinity<@dev0>"


def check(before: str, after: str, **kw: object) -> RefinementReport:
    return check_refinement(parse_module(before, "before.mlir"), parse_module(after, "after.mlir"), **kw)  # type: ignore[arg-type]


def assert_refines(before: str, after: str) -> None:
    r = check(before, after)
    assert r.ok, r.render_text()


def mismatch(before: str, after: str, **kw: object):  # type: ignore[no-untyped-def]
    r = check(before, after, **kw)
    assert r.status == "mismatch", r.render_text()
    return r.mismatches[0]


def async_fn(body: str, args: str = "%arg0: !hal.buffer_view", results: str = "!hal.buffer_view") -> str:
    return f"util.func public @f({args}) -> {results} {{\n{body}\n}}\n"


IMPORT0 = f"  %x = stream.tensor.import on({D0}) %arg0 : !hal.buffer_view -> tensor<4x4xf32> in !stream.resource<external>{{%c64}}"
CONSTS = "\n".join(f"  %c{n} = arith.constant {n} : index" for n in (0, 4, 8, 16, 20, 24, 32, 48, 64))


def export(v: str, size: str = "%c64", t: str = "tensor<4x4xf32>") -> str:
    return (f"  %out = stream.tensor.export on({D0}) {v} : {t} in !stream.resource<external>{{{size}}} -> !hal.buffer_view\n"
            "  util.return %out : !hal.buffer_view")


# -- input level: flow ops in bytes ------------------------------------------------------------------------
STRIDED_SLICE_FLOW = """
func.func @f(%x: tensor<4x4xf32>) -> tensor<2x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = flow.tensor.slice %x[%c1, %c1 for %c2, %c2] : tensor<4x4xf32> -> tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}
"""


def _rows_copy(second_row_offset: int) -> str:
    # Rows 1 and 2, columns 1..2 of a 4x4 f32: bytes [20, 28) and [36, 44).
    return async_fn(f"""{CONSTS}
  %c28 = arith.constant 28 : index
  %s1 = arith.constant {second_row_offset} : index
  %e1 = arith.constant {second_row_offset + 8} : index
{IMPORT0}
  %t = stream.async.alloca on({D0}) : !stream.resource<transient>{{%c16}}
  %a = stream.async.copy on({D0}) %x[%c20 to %c28], %t[%c0 to %c8], %c8 : !stream.resource<external>{{%c64}} -> %t as !stream.resource<transient>{{%c16}}
  %b = stream.async.copy on({D0}) %x[%s1 to %e1], %a[%c8 to %c16], %c8 : !stream.resource<external>{{%c64}} -> %a as !stream.resource<transient>{{%c16}}
  %e = stream.async.transfer %b : !stream.resource<transient>{{%c16}} -> !stream.resource<external>{{%c16}}
{export("%e", "%c16", "tensor<2x2xf32>")}""")


def test_strided_flow_slice_is_row_copies() -> None:
    assert_refines(STRIDED_SLICE_FLOW, _rows_copy(36))
    m = mismatch(STRIDED_SLICE_FLOW, _rows_copy(40))
    assert m.result == 0 and m.byte_range == ("8", "16")
    assert m.op is not None and m.op.startswith("stream.async.copy") and m.location.line == 17  # the second copy


UPDATE_LOAD_FLOW = """
func.func @f(%x: tensor<4x4xf32>, %u: tensor<1x4xf32>) -> (tensor<4x4xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %y = flow.tensor.update %u, %x[%c2, %c0] : tensor<1x4xf32> -> %x as tensor<4x4xf32>
  %v = flow.tensor.load %y[%c2, %c3] : tensor<4x4xf32>
  return %y, %v : tensor<4x4xf32>, f32
}
"""


def _update_load(load_offset: int) -> str:
    return f"""util.func public @f(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> (!hal.buffer_view, f32) {{
{CONSTS}
  %c44 = arith.constant 44 : index
  %c{load_offset}_l = arith.constant {load_offset} : index
{IMPORT0}
  %u = stream.tensor.import on({D0}) %arg1 : !hal.buffer_view -> tensor<1x4xf32> in !stream.resource<external>{{%c16}}
  %c = stream.async.clone on({D0}) %x : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c64}}
  %y = stream.async.update on({D0}) %u, %c[%c32 to %c48] : !stream.resource<external>{{%c16}} -> %c as !stream.resource<external>{{%c64}}
  %s = stream.async.transfer %y : !stream.resource<external>{{%c64}} -> !stream.resource<staging>{{%c64}}
  %v = stream.async.load %s[%c{load_offset}_l] : !stream.resource<staging>{{%c64}} -> f32
  %out = stream.tensor.export on({D0}) %y : tensor<4x4xf32> in !stream.resource<external>{{%c64}} -> !hal.buffer_view
  util.return %out, %v : !hal.buffer_view, f32
}}
"""


def test_update_then_load_reads_the_update() -> None:
    assert_refines(UPDATE_LOAD_FLOW, _update_load(44))  # row 2, column 3 of f32: byte 44
    m = mismatch(UPDATE_LOAD_FLOW, _update_load(40))
    assert m.result == 1 and m.observable == "result"


SPLAT_FLOW = """
func.func @f() -> tensor<4x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %s = flow.tensor.splat %cst : tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}
"""


def _splat_fill(pattern: str) -> str:
    return f"""util.func public @f() -> !hal.buffer_view {{
{CONSTS}
  %p = arith.constant {pattern}
  %s = stream.async.splat on({D0}) %p : {pattern.split(' : ')[1]} -> !stream.resource<external>{{%c64}}
{export("%s")}
}}
"""


def test_splats_compare_by_bytes() -> None:
    assert_refines(SPLAT_FLOW, _splat_fill("0 : i8"))  # f32 0.0 is the byte 0x00 repeated
    assert_refines(SPLAT_FLOW, _splat_fill("0 : i32"))
    m = mismatch(SPLAT_FLOW, _splat_fill("1065353216 : i32"))  # the bits of 1.0f
    assert "splat(0x0000803f)" in m.after and "splat(0x00)" in m.before
    dense = SPLAT_FLOW.replace("%s = flow.tensor.splat %cst : tensor<4x4xf32>", "%s = arith.constant dense<0.0> : tensor<4x4xf32>")
    assert_refines(dense, _splat_fill("0 : i8"))


def _flow_dispatch(result: str) -> str:
    return f"""
func.func @f(%a: tensor<16xf32> {{iree.abi.consume}}, %b: tensor<16xf32> {{iree.abi.consume}}) -> tensor<16xf32> {{
  %r = flow.dispatch @add(%a, %b) : (tensor<16xf32>, tensor<16xf32>) -> {result}
  return %r : tensor<16xf32>
}}
"""


def _async_dispatch(tie: str) -> str:
    return f"""util.func public @f(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view {{
{CONSTS}
  %a = stream.tensor.import on({D0}) consume %arg0 : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{{%c64}}
  %b = stream.tensor.import on({D0}) consume %arg1 : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{{%c64}}
  %r = stream.async.dispatch on({D0}) @add(%a[%c0 to %c64 for %c64], %b[%c0 to %c64 for %c64]) : (!stream.resource<external>{{%c64}}, !stream.resource<external>{{%c64}}) -> {tie}
{export("%r", t="tensor<16xf32>")}
}}
"""


def test_dispatch_bindings_follow_ties() -> None:
    # An untied result is binding 2 (after the two operands); a result tied to %a is binding 0.
    assert_refines(_flow_dispatch("tensor<16xf32>"), _async_dispatch("!stream.resource<external>{%c64}"))
    assert_refines(_flow_dispatch("%a"), _async_dispatch("%a{%c64}"))
    m = mismatch(_flow_dispatch("%a"), _async_dispatch("%b{%c64}"))
    assert "@add#1" in m.after and "@add#0" in m.before
    m = mismatch(_flow_dispatch("tensor<16xf32>"), _async_dispatch("%a{%c64}"))
    assert "@add#0" in m.after and "@add#2" in m.before


DYNAMIC_FLOW = """
func.func @f(%n: index, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = flow.dispatch @relu(%x) : (tensor<?x4xf32>{%n}) -> tensor<?x4xf32>{%n}
  return %r : tensor<?x4xf32>
}
"""


def _dynamic_async(trailing: str) -> str:
    return f"""util.func public @f(%n: index, %arg1: !hal.buffer_view) -> !hal.buffer_view {{
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %size = arith.muli %n, %c16 : index
  %x = stream.tensor.import on({D0}) %arg1 : !hal.buffer_view -> tensor<?x4xf32>{{%n}} in !stream.resource<external>{{%size}}
  %r = stream.async.dispatch on({D0}) @relu(%x[%c0 to %size for %size]{trailing}) : (!stream.resource<external>{{%size}}{', index' * trailing.count(',')}) -> !stream.resource<external>{{%size}}
  %out = stream.tensor.export on({D0}) %r : tensor<?x4xf32>{{%n}} in !stream.resource<external>{{%size}} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}}
"""


def test_dynamic_dims_are_trailing_uniforms() -> None:
    # CONVENTIONS: the dynamic dims of the binding types (operand, then result) are passed as
    # trailing index operands.
    assert_refines(DYNAMIC_FLOW, _dynamic_async(", %n, %n"))
    mismatch(DYNAMIC_FLOW, _dynamic_async(""))
    mismatch(DYNAMIC_FLOW, _dynamic_async(", %n"))
    m = mismatch(DYNAMIC_FLOW, _dynamic_async(", %n, %c16"))
    assert "uniform" in m.message


# -- async level -----------------------------------------------------------------------------------
def _async_pair(body: str) -> str:
    return async_fn(f"{CONSTS}\n{IMPORT0}\n{body}")


SLICE_OF_UPDATE = _async_pair(f"""  %u = stream.async.splat on({D0}) %c0_i8 : i8 -> !stream.resource<transient>{{%c16}}
  %y = stream.async.update on({D0}) %u, %x[%c16 to %c32] : !stream.resource<transient>{{%c16}} -> %x as !stream.resource<external>{{%c64}}
  %s = stream.async.slice on({D0}) %y[%c8 to %c24] : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c16}}
{export("%s", "%c16", "tensor<4xf32>")}""").replace("{CONSTS}", "")


def test_slice_across_an_update_sees_old_and_new_bytes() -> None:
    before = SLICE_OF_UPDATE.replace(IMPORT0, IMPORT0 + "\n  %c0_i8 = arith.constant 0 : i8")
    # Bytes [8, 16) are %x's, bytes [16, 24) the update's zeros.
    after = _async_pair(f"""  %c0_i8 = arith.constant 0 : i8
  %t = stream.async.alloca on({D0}) : !stream.resource<external>{{%c16}}
  %a = stream.async.copy on({D0}) %x[%c8 to %c16], %t[%c0 to %c8], %c8 : !stream.resource<external>{{%c64}} -> %t as !stream.resource<external>{{%c16}}
  %b = stream.async.fill on({D0}) %c0_i8, %a[%c8 to %c16 for %c8] : i8 -> %a as !stream.resource<external>{{%c16}}
{export("%b", "%c16", "tensor<4xf32>")}""")
    assert_refines(before, after)
    wrong = after.replace("%x[%c8 to %c16], %t[%c0 to %c8]", "%x[%c16 to %c24], %t[%c0 to %c8]")
    m = mismatch(before, wrong)
    assert m.byte_range == ("0", "8")


def test_uninitialized_bytes() -> None:
    defined = _async_pair(f"  %c = stream.async.clone on({D0}) %x : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c64}}\n{export('%c')}")
    fresh = _async_pair(f"  %c = stream.async.alloca on({D0}) : !stream.resource<external>{{%c64}}\n{export('%c')}")
    # Reading fresh memory where BEFORE has defined bytes is a mismatch ...
    m = mismatch(defined, fresh)
    assert "uninitialized" in m.message
    # ... while BEFORE's undefined bytes may be refined by anything.
    assert_refines(fresh, defined)
    assert_refines(fresh, fresh)


def test_execute_and_concurrent_regions_are_transparent() -> None:
    flat = _async_pair(f"""  %a = stream.async.dispatch on({D0}) @k1(%x[%c0 to %c64 for %c64]) : (!stream.resource<external>{{%c64}}) -> !stream.resource<transient>{{%c64}}
  %b = stream.async.dispatch on({D0}) @k2(%x[%c0 to %c64 for %c64]) : (!stream.resource<external>{{%c64}}) -> !stream.resource<transient>{{%c64}}
  %c = stream.async.dispatch on({D0}) @k3(%a[%c0 to %c64 for %c64], %b[%c0 to %c64 for %c64]) : (!stream.resource<transient>{{%c64}}, !stream.resource<transient>{{%c64}}) -> !stream.resource<external>{{%c64}}
{export('%c')}""")

    def scheduled(yields: str) -> str:
        return _async_pair(f"""  %r, %t = stream.async.execute on({D0}) with(%x as %y: !stream.resource<external>{{%c64}}) -> !stream.resource<external>{{%c64}} {{
    %w:2 = stream.async.concurrent with(%y as %z: !stream.resource<external>{{%c64}}) -> (!stream.resource<transient>{{%c64}}, !stream.resource<transient>{{%c64}}) {{
      %a = stream.async.dispatch @k1(%z[%c0 to %c64 for %c64]) : (!stream.resource<external>{{%c64}}) -> !stream.resource<transient>{{%c64}}
      %b = stream.async.dispatch @k2(%z[%c0 to %c64 for %c64]) : (!stream.resource<external>{{%c64}}) -> !stream.resource<transient>{{%c64}}
      stream.yield {yields} : !stream.resource<transient>{{%c64}}, !stream.resource<transient>{{%c64}}
    }}
    %c = stream.async.dispatch @k3(%w#0[%c0 to %c64 for %c64], %w#1[%c0 to %c64 for %c64]) : (!stream.resource<transient>{{%c64}}, !stream.resource<transient>{{%c64}}) -> !stream.resource<external>{{%c64}}
    stream.yield %c : !stream.resource<external>{{%c64}}
  }} => !stream.timepoint
  %h = stream.timepoint.await %t => %r : !stream.resource<external>{{%c64}}
{export('%h')}""")

    assert_refines(flat, scheduled("%a, %b"))
    m = mismatch(flat, scheduled("%b, %a"))
    assert m.op is not None and "@k3" in m.op


# -- cmd level ---------------------------------------------------------------------------------------
def _cmd(body: str, size: str = "%c64") -> str:
    return async_fn(f"""{CONSTS}
{IMPORT0}
  %r, %rt = stream.resource.alloca uninitialized on({D0}) : !stream.resource<external>{{{size}}} => !stream.timepoint
  %t = stream.cmd.execute on({D0}) await(%rt) => with(%x as %a: !stream.resource<external>{{%c64}}, %r as %b: !stream.resource<external>{{{size}}}) {{
{body}
  }} => !stream.timepoint
  %h = stream.timepoint.await %t => %r : !stream.resource<external>{{{size}}}
{export('%h', size)}""")


COPY_ASYNC = _async_pair(f"  %c = stream.async.clone on({D0}) %x : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c64}}\n{export('%c')}")


def test_cmd_copies_and_fills() -> None:
    two_halves = _cmd("""    stream.cmd.copy %a[%c0], %b[%c0], %c32 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
    stream.cmd.copy %a[%c32], %b[%c32], %c32 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}""")
    assert_refines(COPY_ASYNC, two_halves)
    lost = two_halves.replace("stream.cmd.copy %a[%c32], %b[%c32], %c32", "stream.cmd.flush %b[%c32 for %c32]").replace(
        " : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}\n  }", " : !stream.resource<external>{%c64}\n  }")
    m = mismatch(COPY_ASYNC, lost)
    assert m.byte_range == ("32", "64") and "never written" in m.message
    assert m.op == "stream.resource.alloca"
    clobbered = two_halves.replace("    stream.cmd.copy %a[%c32]", "    stream.cmd.fill %c0_i8, %b[%c32 for %c8] : i8 -> !stream.resource<external>{%c64}\n    stream.cmd.copy %a[%c32]")
    clobbered = clobbered.replace(CONSTS, CONSTS + "\n  %c0_i8 = arith.constant 0 : i8")
    assert_refines(COPY_ASYNC, clobbered)  # the fill is overwritten by the copy
    late_fill = two_halves.replace("    stream.cmd.copy %a[%c32], %b[%c32], %c32 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}",
                                   "    stream.cmd.copy %a[%c32], %b[%c32], %c32 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}\n"
                                   "    stream.cmd.fill %c0_i8, %b[%c32 for %c8] : i8 -> !stream.resource<external>{%c64}")
    late_fill = late_fill.replace(CONSTS, CONSTS + "\n  %c0_i8 = arith.constant 0 : i8")
    m = mismatch(COPY_ASYNC, late_fill)
    assert m.op == "stream.cmd.fill" and m.byte_range == ("32", "40")


def test_cmd_discard_makes_bytes_undefined() -> None:
    body = """    stream.cmd.copy %a[%c0], %b[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
    stream.cmd.discard %b[%c16 for %c16] : !stream.resource<external>{%c64}"""
    m = mismatch(COPY_ASYNC, _cmd(body))
    assert m.byte_range == ("16", "32") and m.op == "stream.cmd.discard"


def test_cmd_dispatch_reads_ro_rw_and_writes_wo_rw() -> None:
    before = _async_pair(f"""  %c = stream.async.clone on({D0}) %x : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c64}}
  %d = stream.async.dispatch on({D0}) @k(%x[%c0 to %c32 for %c32], %c[%c32 to %c64 for %c32]) : (!stream.resource<external>{{%c64}}, !stream.resource<external>{{%c64}}) -> %c{{%c64}}
{export('%d')}""")
    after = _cmd("""    stream.cmd.copy %a[%c0], %b[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
    stream.cmd.dispatch @k {
      ro %a[%c0 for %c32] : !stream.resource<external>{%c64},
      rw %b[%c32 for %c32] : !stream.resource<external>{%c64}
    }""")
    assert_refines(before, after)
    # `wo` does not read the old contents: a different term.
    m = mismatch(before, after.replace("rw %b[%c32", "wo %b[%c32"))
    assert m.op == "stream.cmd.dispatch @k"


def test_cmd_subviews_offset_their_source() -> None:
    before = _async_pair(f"  %s = stream.async.slice on({D0}) %x[%c16 to %c32] : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c16}}\n"
                         + export("%s", "%c16", "tensor<4xf32>"))

    def after(off: str) -> str:
        return _cmd("""    stream.cmd.copy %a[%c0], %v[%c0], %c16 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c16}""", "%c16").replace(
            "  %r, %rt", f"  %xv = stream.resource.subview %x[{off}] : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c16}}\n  %r, %rt").replace(
            "with(%x as %a: !stream.resource<external>{%c64}, %r as %b", "with(%xv as %a: !stream.resource<external>{%c64}, %r as %v")

    assert_refines(before, after("%c16"))
    m = mismatch(before, after("%c0"))
    assert m.op == "stream.cmd.copy"


def test_cmd_constants_and_host_load_store() -> None:
    before = async_fn(f"""{CONSTS}
  %k = stream.async.constant on({D0}) : !stream.resource<external>{{%c16}} = dense<[1, 2, 3, 4]> : tensor<4xi32>
  %s = stream.async.transfer %k : !stream.resource<external>{{%c16}} -> !stream.resource<staging>{{%c16}}
  %v = stream.async.load %s[%c8] : !stream.resource<staging>{{%c16}} -> i32
  util.return %v : i32""", "", "i32")
    after = async_fn(f"""{CONSTS}
  %r:1, %t = stream.resource.constants on({D0}) : !stream.resource<staging>{{%c16}} = dense<[1, 2, 3, 4]> : tensor<4xi32>
      => !stream.timepoint
  %h = stream.timepoint.await %t => %r : !stream.resource<staging>{{%c16}}
  %v = stream.resource.load %h[%c8] : !stream.resource<staging>{{%c16}} -> i32
  util.return %v : i32""", "", "i32")
    assert_refines(before, after)
    wrong = after.replace("%v = stream.resource.load %h[%c8]", "%v = stream.resource.load %h[%c4]")
    assert mismatch(before, wrong).observable == "result"
    stored = after.replace("  %v = stream.resource.load", "  %c3_i32 = arith.constant 3 : i32\n  stream.resource.store %c3_i32, %h[%c8] : i32 -> !stream.resource<staging>{%c16}\n  %v = stream.resource.load")
    # Storing element 2's own value (3) back is not an identity on terms: loads of stores compare
    # as stored scalars, so this is reported (a false alarm the report explains).
    mismatch(before, stored)


# -- scalars, host ops and storage observables ----------------------------------------------------------
def test_index_results_compare_as_polynomials() -> None:
    before = async_fn("  %c4 = arith.constant 4 : index\n  %r = arith.muli %n, %c4 : index\n  util.return %r : index", "%n: index", "index")
    after = async_fn("  %a = arith.addi %n, %n : index\n  %r = arith.addi %a, %a : index\n  util.return %r : index", "%n: index", "index")
    assert_refines(before, after)
    off = after.replace("%r = arith.addi %a, %a", "%r = arith.addi %a, %n")
    m = mismatch(before, off)
    assert m.before == "4*%n" and m.after == "3*%n"


def test_opaque_host_ops_keep_their_order() -> None:
    before = async_fn("  %a = util.call @g(%n) : (index) -> index\n  %b = util.call @h(%n) : (index) -> index\n  %r = arith.addi %a, %b : index\n  util.return %r : index", "%n: index", "index")
    assert_refines(before, before)
    swapped = async_fn("  %b = util.call @h(%n) : (index) -> index\n  %a = util.call @g(%n) : (index) -> index\n  %r = arith.addi %a, %b : index\n  util.return %r : index", "%n: index", "index")
    # Calls may have effects: reordering them is not proved; nor is it known to change the
    # result (the callees are not modelled), so it is undecided, not a VALUE_MISMATCH.
    r = check(before, swapped)
    assert not r.ok and r.unknowns and not r.mismatches
    assert "is not modelled" in r.unknowns[0].reason


BORROWED = async_fn(f"""{CONSTS}
{IMPORT0}
  %c = stream.async.clone on({D0}) %x : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c64}}
  %d = stream.async.dispatch on({D0}) @k(%c[%c0 to %c64 for %c64]) : (!stream.resource<external>{{%c64}}) -> %c{{%c64}}
{export('%d')}""")


def test_writing_a_borrowed_import_is_visible_to_the_caller() -> None:
    in_place = BORROWED.replace(
        f"  %c = stream.async.clone on({D0}) %x : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c64}}\n", "").replace(
        "%d = stream.async.dispatch on(#hal.device.affinity<@dev0>) @k(%c[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> %c{%c64}",
        "%d = stream.async.dispatch on(#hal.device.affinity<@dev0>) @k(%x[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> %x{%c64}")
    m = mismatch(BORROWED, in_place)
    assert m.observable == "argument" and m.result == 0 and m.result_name == "%arg0"
    # The other way round: BEFORE already wrote the borrowed buffer, so it promised nothing.
    assert_refines(in_place, BORROWED)


def test_symbolic_offsets_split_cases() -> None:
    def scatter(off: str) -> str:
        return async_fn(f"""{CONSTS}
  %o = arith.muli %row, %c16 : index
{IMPORT0}
  %u = stream.tensor.import on({D0}) %arg1 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{{%c16}}
  %c = stream.async.clone on({D0}) %x : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c64}}
  %e = arith.addi {off}, %c16 : index
  %y = stream.async.update on({D0}) %u, %c[{off} to %e] : !stream.resource<external>{{%c16}} -> %c as !stream.resource<external>{{%c64}}
  %s = stream.async.slice on({D0}) %y[%c0 to %c16] : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c16}}
{export('%s', '%c16', 'tensor<4xf32>')}""", "%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %row: index")

    r = check(scatter("%o"), scatter("%o"))
    assert r.ok and r.cases > 1, r.render_text()
    # Writing row %row + 0 vs at byte 16 * %row differ only when the row is 0 ... or not at all:
    m = mismatch(scatter("%o"), scatter("%c16"))
    assert m.assumptions and m.example.get("%row") is not None and m.example["%row"] != 1


def test_bitcast_keeps_the_bytes() -> None:
    # encode-tensors spells an f32 splat as the i32 of its bits (IREE's EncodeHostTensors does too).
    def splat(body: str) -> str:
        return f"""util.func public @f(%v: f32) -> (!hal.buffer_view, !hal.buffer_view) {{
{CONSTS}
  %one = arith.constant 1.0 : f32
{body}
  %o1 = stream.tensor.export on({D0}) %s1 : tensor<16xf32> in !stream.resource<external>{{%c64}} -> !hal.buffer_view
  %o2 = stream.tensor.export on({D0}) %s2 : tensor<16xf32> in !stream.resource<external>{{%c64}} -> !hal.buffer_view
  util.return %o1, %o2 : !hal.buffer_view, !hal.buffer_view
}}
"""

    tensor = splat(f"""  %s1 = stream.tensor.splat on({D0}) %one : f32 -> tensor<16xf32> in !stream.resource<external>{{%c64}}
  %s2 = stream.tensor.splat on({D0}) %v : f32 -> tensor<16xf32> in !stream.resource<external>{{%c64}}""")
    encoded = splat(f"""  %bits1 = arith.bitcast %one : f32 to i32
  %bits = arith.bitcast %v : f32 to i32
  %s1 = stream.async.splat on({D0}) %bits1 : i32 -> !stream.resource<external>{{%c64}}
  %s2 = stream.async.splat on({D0}) %bits : i32 -> !stream.resource<external>{{%c64}}""")
    assert_refines(tensor, encoded)
    folded = encoded.replace("%bits1 = arith.bitcast %one : f32 to i32", "%bits1 = arith.constant 1065353216 : i32")
    assert_refines(tensor, folded)
    assert mismatch(tensor, folded.replace("1065353216", "1065353217")).result == 0


def test_a_tie_on_a_borrowed_input_argument_promises_nothing_about_it() -> None:
    # The input program updates its borrowed argument in place: convert-to-stream keeps the tie
    # (copy-on-write copies the argument later), so the tensor-level program writes the import.
    flow = """
func.func @f(%x: tensor<4x4xf32>, %u: tensor<1x4xf32>) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %y = flow.tensor.update %u, %x[%c2, %c0] : tensor<1x4xf32> -> %x as tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
"""
    tensor = f"""util.func public @f(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view {{
{CONSTS}
  %c2 = arith.constant 2 : index
{IMPORT0}
  %u = stream.tensor.import on({D0}) %arg1 : !hal.buffer_view -> tensor<1x4xf32> in !stream.resource<external>{{%c16}}
  %y = stream.tensor.update on({D0}) %u, %x[%c2, %c0] : tensor<1x4xf32> in !stream.resource<external>{{%c16}} -> tensor<4x4xf32> in %x as !stream.resource<external>{{%c64}}
{export('%y')}
}}
"""
    assert_refines(flow, tensor)
    # Without the tie the argument is the caller's and must keep its bytes.
    untied = flow.replace("%y = flow.tensor.update %u, %x[%c2, %c0] : tensor<1x4xf32> -> %x as tensor<4x4xf32>",
                          "%z = flow.tensor.clone %x : tensor<4x4xf32>\n  %y = flow.tensor.update %u, %z[%c2, %c0] : tensor<1x4xf32> -> %z as tensor<4x4xf32>")
    m = mismatch(untied, tensor)
    assert m.observable == "argument" and m.result == 0


def test_an_argument_returned_as_is_has_its_type_size() -> None:
    # Found by running the pipeline on random programs: the argument is used by no op, so its
    # size must come from its type (not from a use) to match the import of AFTER.
    flow = """
func.func @f(%x: tensor<2x8xf32>, %y: tensor<2x4xf32> {iree.abi.consume}) -> (tensor<2x4xf32>, tensor<2x8xf32>) {
  return %y, %x : tensor<2x4xf32>, tensor<2x8xf32>
}
"""
    tensor = f"""util.func public @f(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {{
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %x = stream.tensor.import on({D0}) %arg0 : !hal.buffer_view -> tensor<2x8xf32> in !stream.resource<external>{{%c64}}
  %y = stream.tensor.import on({D0}) consume %arg1 : !hal.buffer_view -> tensor<2x4xf32> in !stream.resource<external>{{%c32}}
  %ey = stream.tensor.export on({D0}) %y : tensor<2x4xf32> in !stream.resource<external>{{%c32}} -> !hal.buffer_view
  %ex = stream.tensor.export on({D0}) %x : tensor<2x8xf32> in !stream.resource<external>{{%c64}} -> !hal.buffer_view
  util.return %ey, %ex : !hal.buffer_view, !hal.buffer_view
}}
"""
    assert_refines(flow, tensor)
    assert mismatch(flow, tensor.replace("util.return %ey, %ex", "util.return %ex, %ey")).result == 0


def test_a_consumed_buffer_is_given_away() -> None:
    # Found by running the pipeline on random programs: copy-on-write clones a consumed import
    # that has other uses, so the in-place write no longer lands in the caller's (given away)
    # buffer. Only the returned value is the caller's to see.
    def program(target: str, clone: str) -> str:
        return async_fn(f"""{CONSTS}
  %x = stream.tensor.import on({D0}) consume %arg0 : !hal.buffer_view -> tensor<4x4xf32> in !stream.resource<external>{{%c64}}
  %t = stream.async.transfer %x : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c64}}
{clone}  %v = stream.async.dispatch on({D0}) @relu({target}[%c0 to %c64 for %c64]) : (!stream.resource<external>{{%c64}}) -> {target}{{%c64}}
  %w = stream.async.dispatch on({D0}) @add(%v[%c0 to %c64 for %c64], %t[%c0 to %c64 for %c64]) : (!stream.resource<external>{{%c64}}, !stream.resource<external>{{%c64}}) -> %v{{%c64}}
{export('%w')}""")

    before = program("%x", "")
    after = program("%c", f"  %c = stream.async.clone on({D0}) %x : !stream.resource<external>{{%c64}} -> !stream.resource<external>{{%c64}}\n")
    assert_refines(before, after)

"""Dispatch bindings narrowed to what the executable addresses (`verify.bindings`).

FuseDispatchBindings (IREE's final stage) binds the whole slab and passes the real offsets as
i32 halves; the executable's `stream.binding.subspan`s say which bytes it touches. Each case is
a wave of two dispatches on one slab; without narrowing every one of them is a race.
"""

from __future__ import annotations

import json
import zlib

from conftest import CORPUS, check, parse

from stream.ir.walk import functions
from verify import verify_module
from verify.model import build_model

_JOIN = """
      %c32 = arith.constant 32 : i64
      %0 = arith.extui %lo : i32 to i64
      %1 = arith.extui %hi : i32 to i64
      %2 = arith.shli %1, %c32 : i64
      %3 = arith.ori %0, %2 : i64
      %off = arith.index_castui %3 : i64 to index
"""


def program(body: str, other: str = "wo %s[%c0 for %c256]", lo: str = "%c0_i32", hi: str = "%c0_i32", extra: str = "") -> str:
    """A 256-byte slab; dispatch A runs `@ex::@fn(lo, hi)` (whose body is `body`, the binding
    `%b`, the halves `%lo`/`%hi`) on the whole slab, dispatch B touches `other`, in one wave."""
    return f"""
stream.executable private @ex {{
  stream.executable.export public @fn
  builtin.module {{
    func.func @fn(%b: !stream.binding, %lo: i32, %hi: i32) {{{body}
      return
    }}
  }}
}}
util.func public @f(%n: index) -> !stream.resource<external> {{
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c0_i32 = arith.constant 0 : i32
  %c64_i32 = arith.constant 64 : i32
  %c128_i32 = arith.constant 128 : i32{extra}
  %slab, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{{%c256}} => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%slab as %s: !stream.resource<external>{{%c256}}) {{
    stream.cmd.concurrent {{
      stream.cmd.dispatch @ex::@fn({lo}, {hi} : i32, i32) {{
        rw %s[%c0 for %c256] : !stream.resource<external>{{%c256}}
      }}
      stream.cmd.dispatch @other::@g {{
        {other} : !stream.resource<external>{{%c256}}
      }}
    }}
  }} => !stream.timepoint
  %r = stream.timepoint.await %t1 => %slab : !stream.resource<external>{{%c256}}
  util.return %r : !stream.resource<external>
}}
"""


def _sub(offset: str, tensor: str, dims: str = "") -> str:
    """A subspan of `%b`, named `%v<n>` by a digest of its text (so the same call names it alike)."""
    n = zlib.crc32(f"{offset} {tensor} {dims}".encode()) % 100000
    return f"\n      %v{n} = stream.binding.subspan %b[{offset}] : !stream.binding -> !iree_tensor_ext.dispatch.tensor<readwrite:{tensor}>{dims}"


def test_a_subspan_at_a_constant_offset_is_all_the_dispatch_touches() -> None:
    body = "\n      %c128 = arith.constant 128 : index" + _sub("%c128", "tensor<32xf32>")
    assert check(program(body, other="wo %s[%c0 for %c128]")).status == "proved"
    # The subspan's 128 bytes at 128 are [128, 256): a write of [64, 192) overlaps them.
    report = check(program(body, other="wo %s[%c64 for %c128]"))
    assert report.classes == {"RACE_WRITE_AFTER_WRITE"}
    assert "rw %s[128 for 128]" in report.text()


def test_the_offset_passed_as_two_i32_halves_is_put_back_together() -> None:
    body = _JOIN + _sub("%off", "tensor<16xf32>")
    assert check(program(body, lo="%c128_i32")).classes == {"RACE_WRITE_AFTER_WRITE"}  # B writes all of it
    assert check(program(body, lo="%c128_i32", other="wo %s[%c0 for %c128]")).status == "proved"
    assert check(program(body, lo="%c64_i32", other="wo %s[%c0 for %c128]")).classes == {"RACE_WRITE_AFTER_WRITE"}
    # The high half counts: 64 * 2^32 is far outside the slab (the clipped range is empty, no race).
    assert check(program(body, lo="%c0_i32", hi="%c64_i32", other="wo %s[%c0 for %c128]")).classes == {"OUT_OF_BOUNDS"}


def test_a_symbolic_offset_split_in_halves_is_the_index_itself() -> None:
    """The corpus pair: the halves of `64 * %n + 64` (`index_castui` and `trunci(shrui(.., 32))`)
    joined by the executable are that index for every %n; the twin's `64 * %n` overlaps at 0."""
    ok = verify_module(parse((CORPUS / "cmd_fused_bindings_disjoint_ok.mlir").read_text()))
    assert ok.status == "proved", ok.text()
    bad = verify_module(parse((CORPUS / "cmd_fused_bindings_overlap.mlir").read_text()))
    assert bad.classes == {"RACE_WRITE_AFTER_WRITE"}
    (v,) = bad.violations
    assert v.symbols == {"%n": 0} and v.bytes == (0, 64) and v.lanes


def test_without_the_executable_the_whole_binding_is_touched() -> None:
    text = (CORPUS / "cmd_fused_bindings_disjoint_ok.mlir").read_text()
    start, end = text.index("stream.executable private"), text.index("util.func public")
    report = verify_module(parse(text[:start] + text[end:]))
    assert report.classes == {"RACE_WRITE_AFTER_WRITE"}
    assert "note:" not in report.text()  # a dispatch of an executable the module lacks has its bindings only


def test_a_subspan_past_its_binding_is_clipped_to_it() -> None:
    # A's binding is [0, 128); its subspan of 128 i4 elements at 64 takes at most 128 bytes
    # (a byte each, unless packed), reaching 192, but the dispatch can only touch its binding:
    # [64, 128), disjoint from B's [128, 192).
    body = "\n      %c64 = arith.constant 64 : index" + _sub("%c64", "tensor<128xi4>")
    text = program(body, other="wo %s[%c128 for %c64]").replace("rw %s[%c0 for %c256]", "rw %s[%c0 for %c128]")
    assert check(text).status == "proved"
    assert check(text.replace("wo %s[%c128 for %c64]", "wo %s[%c64 for %c64]")).classes == {"RACE_WRITE_AFTER_WRITE"}
    # Whole-byte elements have an exact size: 128 bytes of f32 at 64 do not fit in the binding.
    report = check(text.replace("tensor<128xi4>", "tensor<32xf32>"))
    assert report.classes == {"OUT_OF_BOUNDS"}
    (v,) = report.violations
    assert "the rw subspan range [64, 192) exceeds the 128 bytes of the binding" in v.message


def test_dynamic_dims_and_several_subspans() -> None:
    # Two subspans of one binding: [0, 64) and [128, 128 + 4 * %lo); B writes [64, 128).
    body = "\n      %c128 = arith.constant 128 : index\n      %c0 = arith.constant 0 : index\n      %d = arith.index_castui %lo : i32 to index"
    body += _sub("%c0", "tensor<16xf32>") + _sub("%c128", "tensor<?xf32>", "{%d}")
    extra = "\n  %nl = arith.index_castui %n : index to i32"
    # No race; but 4 * %n bytes at 128 run past the 256-byte binding for %n > 32.
    report = check(program(body, lo="%nl", extra=extra, other="wo %s[%c64 for %c64]"))
    assert report.classes == {"OUT_OF_BOUNDS"}
    assert report.violations[0].symbols["%n"] > 32
    report = check(program(body, lo="%nl", extra=extra, other="wo %s[%c128 for %c64]"))
    assert report.classes == {"RACE_WRITE_AFTER_WRITE", "OUT_OF_BOUNDS"}
    (v,) = [v for v in report.violations if v.cls == "RACE_WRITE_AFTER_WRITE"]
    assert v.symbols.get("%n", 0) >= 1  # the dynamic subspan reaches into B's range only when it is not empty


def test_an_executable_that_cannot_be_read_keeps_the_whole_binding_and_says_why() -> None:
    body = _JOIN + "\n      %c7 = arith.constant 7 : index\n      %x = arith.andi %off, %c7 : index" + _sub("%x", "tensor<16xf32>")
    text = program(body, lo="%c128_i32", other="wo %s[%c0 for %c128]")
    report = check(text)
    assert report.classes == {"RACE_WRITE_AFTER_WRITE"}
    assert "note: the dispatch keeps its whole binding (@ex::@fn binding #0: 'arith.andi' in an offset or size computation)" in report.text()
    (f,) = json.loads(json.dumps(report.to_json()))["functions"]
    assert "'arith.andi' in an offset or size computation" in f["note"]


def test_the_high_half_alone_or_a_binding_used_elsewhere_is_not_read() -> None:
    hi_alone = "\n      %h = arith.index_castui %hi : i32 to index" + _sub("%h", "tensor<16xf32>")
    halves = ("\n  %c32_i64 = arith.constant 32 : i64\n  %w = arith.index_castui %n : index to i64"
              "\n  %sh = arith.shrui %w, %c32_i64 : i64\n  %nh = arith.trunci %sh : i64 to i32")
    report = check(program(hi_alone, hi="%nh", extra=halves, other="wo %s[%c128 for %c128]"))
    assert report.classes == {"RACE_WRITE_AFTER_WRITE"} and "the high half of an index used alone" in report.text()
    used = "\n      %c0 = arith.constant 0 : index" + _sub("%c0", "tensor<16xf32>") + "\n      %kept = util.optimization_barrier %b : !stream.binding"
    report = check(program(used, other="wo %s[%c128 for %c128]"))
    assert report.classes == {"RACE_WRITE_AFTER_WRITE"} and "used by 'util.optimization_barrier'" in report.text()


def test_the_binding_range_itself_is_still_checked() -> None:
    body = "\n      %c0 = arith.constant 0 : index" + _sub("%c0", "tensor<16xf32>")
    text = program(body, other="wo %s[%c128 for %c128]").replace("rw %s[%c0 for %c256]", "rw %s[%c128 for %c256]")
    report = check(text)
    assert "OUT_OF_BOUNDS" in report.classes
    model = build_model(next(iter(functions(parse(text)))), parse(text))
    narrowed = [a for a in model.accesses if a.label == "rw"]
    assert [(a.local.value, a.length.value) for a in narrowed] == [(128, 64)]


def test_a_verbatim_pretty_executable_is_read_from_its_text() -> None:
    """IREE's pretty dumps keep executables with `tensor`/`linalg` bodies verbatim; the subspans
    and their arithmetic are read from the text, a multi-line `util.assume.int` included."""
    body = _JOIN + """
      %a:2 = util.assume.int
          %off<udiv = 64>,
          %off<umin = 0, umax = 4096>
        : index, index""" + _sub("%a#1", "tensor<16xf32>") + """
      %e = tensor.empty() : tensor<16xf32>
      iree_tensor_ext.dispatch.tensor.store %e, %v0, offsets = [0], sizes = [16], strides = [1] : tensor<16xf32> -> !iree_tensor_ext.dispatch.tensor<readwrite:tensor<16xf32>>"""
    body = body.replace(_sub("%a#1", "tensor<16xf32>").split(" = ")[0].strip(), "%v0")
    text = program(body, lo="%c128_i32", other="wo %s[%c0 for %c128]")
    module = parse(text)
    assert module.ops[0].regions[0].blocks[0].ops[0].name == "streamproof.verbatim"
    report = verify_module(module)
    assert report.status == "proved" and "note:" not in report.text(), report.text()
    assert check(program(body, lo="%c64_i32", other="wo %s[%c0 for %c128]")).classes == {"RACE_WRITE_AFTER_WRITE"}
    # A binding named by a statement that is not read (here the store takes the binding itself).
    used = body.replace("tensor.store %e, %v0", "tensor.store %e, %b")
    report = check(program(used, lo="%c128_i32", other="wo %s[%c0 for %c128]"))
    assert report.classes == {"RACE_WRITE_AFTER_WRITE"}
    assert "binding #0: used by 'iree_tensor_ext.dispatch.tensor.store'" in report.text()

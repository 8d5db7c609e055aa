"""The storage map (verify.storage): which allocation and offset every resource value names."""

from __future__ import annotations

from conftest import IREE, parse

from stream.ir.walk import functions
from verify.storage import AllocKind, analyze_storage

SUBVIEWS = """
util.func public @views(%view: !hal.buffer_view, %n: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %imp = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<64xf32> in !stream.resource<external>{%c256}
  %buf, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev1>) : !stream.resource<transient>{%c256} => !stream.timepoint
  %a = stream.resource.subview %buf[%c64] : !stream.resource<transient>{%c256} -> !stream.resource<transient>{%c64}
  %b = stream.resource.subview %a[%n] : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c16}
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev1>) await(%t0) => with(%b as %x: !stream.resource<transient>{%c16}, %imp as %y: !stream.resource<external>{%c256}) {
    stream.cmd.copy %y[%c0], %x[%c0], %c16 : !stream.resource<external>{%c256} -> !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %imp : !stream.resource<external>{%c256}
  util.return %r : !stream.resource<external>
}
"""


def _values(func):  # type: ignore[no-untyped-def]
    out = {}
    for op in func.op.walk():
        for v in op.results:
            if v.name_hint:
                out[v.name_hint] = v
        for region in op.regions:
            for block in region.blocks:
                for a in block.arguments:
                    if a.name_hint:
                        out[a.name_hint] = a
    return out


def test_subviews_captures_and_awaits_alias_their_storage() -> None:
    module = parse(SUBVIEWS)
    func = functions(module)[0]
    storage = analyze_storage(func, module)
    v = _values(func)
    s = storage.symbols
    buf = storage.view(v["buf"])
    assert buf is not None and buf.alloc.kind is AllocKind.ALLOCA and buf.alloc.placement == frozenset({"dev1"})
    a, b, x = storage.view(v["a"]), storage.view(v["b"]), storage.view(v["x"])
    assert a is not None and b is not None and x is not None
    assert a.alloc is b.alloc is x.alloc is buf.alloc
    assert a.offset.const == 64 and a.size.const == 64
    n = s.expr(func.arguments[1])
    assert b.offset == n + 64 and x.offset == b.offset and x.size.const == 16
    imp, y, r = storage.view(v["imp"]), storage.view(v["y"]), storage.view(v["r"])
    assert imp is not None and imp.alloc.kind is AllocKind.IMPORT and imp.alloc.readonly is not None
    assert y is not None and r is not None and y.alloc is imp.alloc is r.alloc and r.version == imp.version


TIES = """
util.func public @ties(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %x0 = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %res:2, %tp = stream.async.execute on(#hal.device.affinity<@dev0>) with(%x0 as %x: !stream.resource<external>{%c64}) -> (%x0{%c64}, !stream.resource<transient>{%c32}) {
    %filled = stream.async.fill %c1_i32, %x[%c0 to %c32 for %c32] : i32 -> %x as !stream.resource<external>{%c64}
    %fresh = stream.async.slice %filled[%c0 to %c32] : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c32}
    stream.yield %filled, %fresh : !stream.resource<external>{%c64}, !stream.resource<transient>{%c32}
  } => !stream.timepoint
  %r:2 = stream.timepoint.await %tp => %res#0, %res#1 : !stream.resource<external>{%c64}, !stream.resource<transient>{%c32}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r#0 : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}
"""


def test_ties_make_new_versions_of_the_same_storage() -> None:
    module = parse(TIES)
    func = functions(module)[0]
    storage = analyze_storage(func, module)
    v = _values(func)
    x0, x, filled, fresh = (storage.view(v[k]) for k in ("x0", "x", "filled", "fresh"))
    assert x0 is not None and x is not None and filled is not None and fresh is not None
    assert x0.alloc.kind is AllocKind.IMPORT_CONSUMED and x0.alloc.readonly is None
    assert x.alloc is x0.alloc and x.version == x0.version  # a capture is the same value
    assert filled.alloc is x0.alloc and filled.version != x0.version  # a tie is a new version
    assert fresh.alloc is not x0.alloc and fresh.alloc.kind is AllocKind.VALUE
    execute = next(op for op in func.body.ops if op.name == "stream.async.execute")
    tied, untied = storage.view(execute.results[0]), storage.view(execute.results[1])
    assert tied is not None and untied is not None
    assert tied.alloc is x0.alloc and tied.version == filled.version  # the yielded version
    assert untied.alloc is fresh.alloc


def test_pack_slices_are_offsets_into_one_slab() -> None:
    module = parse((IREE / "i_multidevice_overlap" / "07_schedule_allocation.mlir").read_text())
    func = functions(module)[0]
    storage = analyze_storage(func, module)
    pack = next(op for op in func.body.ops if op.name == "stream.resource.pack")
    s = storage.symbols
    total, *offsets = (s.expr(r) for r in pack.results)
    assert all(not o.is_const for o in offsets) and len(offsets) == 4
    assert {s.atoms[o.terms[0][0]].kind for o in offsets} == {"pack_offset"}
    slab_alloca = next(op for op in func.body.ops if op.name == "stream.resource.alloca" and op.operands[0] is pack.results[0])
    view = storage.view(slab_alloca.results[0])
    assert view is not None and view.alloc.size == total


def test_resource_arguments_take_the_size_their_uses_declare() -> None:
    module = parse("""
util.func public @arg(%buf: !stream.resource<external>, %n: index) -> !stream.resource<external> {
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%n}) {
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%n}
  util.return %r : !stream.resource<external>
}
""")
    func = functions(module)[0]
    storage = analyze_storage(func, module)
    view = storage.view(func.arguments[0])
    assert view is not None and view.alloc.kind is AllocKind.ARGUMENT and view.alloc.readonly is None
    assert view.size == storage.symbols.expr(func.arguments[1])

// EXPECT: proved
// The export uses a subview of the await's result: what derives from an awaited value is ordered after the await.
util.func public @awaited_subview_export(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %out = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64}
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@scale {
      ro %a[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %o[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %out : !stream.resource<external>{%c64}
  %c32 = arith.constant 32 : index
  %s = stream.resource.subview %r[%c0] : !stream.resource<external>{%c64} -> !stream.resource<external>{%c32}
  %v = stream.tensor.export on(#hal.device.affinity<@dev0>) %s : tensor<8xf32> in !stream.resource<external>{%c32} -> !hal.buffer_view
  util.return %v : !hal.buffer_view
}

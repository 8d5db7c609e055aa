// EXPECT: MISSED_WAIT
// The first export uses the await's result, the second the un-awaited %out2: exports are pure, so the first one makes the host wait for nothing.
util.func public @export_twin(%view: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %out = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64}
  %out2 = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64}
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c64}, %out as %o: !stream.resource<external>{%c64}, %out2 as %p: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@two {
      ro %a[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %o[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %p[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %r:2 = stream.timepoint.await %t1 => %out, %out2 : !stream.resource<external>{%c64}, !stream.resource<external>{%c64}
  %v = stream.tensor.export on(#hal.device.affinity<@dev0>) %r#0 : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  %w = stream.tensor.export on(#hal.device.affinity<@dev0>) %out2 : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %v, %w : !hal.buffer_view, !hal.buffer_view
}

// EXPECT: MISSED_WAIT
// A second execute captures the un-awaited %out and awaits nothing: the dead await of %t1 before it orders nothing.
util.func public @dead_await_capture(%view: !hal.buffer_view) -> !hal.buffer_view {
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
  %dead = stream.timepoint.await %t1 => %out : !stream.resource<external>{%c64}
  %out2 = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64}
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%out as %o: !stream.resource<external>{%c64}, %out2 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@scale {
      ro %o[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %b[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await sync %t2 => %out2 : !stream.resource<external>{%c64}
  %v = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %v : !hal.buffer_view
}

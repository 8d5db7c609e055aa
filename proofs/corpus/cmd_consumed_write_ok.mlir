// EXPECT: proved
// The same in-place dispatch on an input imported with `consume`: the program owns it and may write it.
util.func public @consumed(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@scale {
      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %in : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

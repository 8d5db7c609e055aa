// EXPECT: UNKNOWN
// util.optimization_barrier on the execute timepoint (an op without an effect rule): the await of its result may order the export, so the wait is undecided, not a MISSED_WAIT.
util.func public @barrier_timepoint(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%in as %a: !stream.resource<external>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@scale {
      ro %a[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %o[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %b = util.optimization_barrier %t1 : !stream.timepoint
  %r = stream.timepoint.await %b => %out : !stream.resource<external>{%c64}
  %v = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %v : !hal.buffer_view
}

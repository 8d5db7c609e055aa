// EXPECT: MISSED_WAIT UNKNOWN
// The export reads %out before anything waits (a MISSED_WAIT whatever the barrier does, since it comes later); the return after the barrier's await is undecided.
util.func public @barrier_after_export(%buf: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%c64}) {
    stream.cmd.fill %c1_i32, %b[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %v = stream.tensor.export on(#hal.device.affinity<@dev0>) %buf : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  %tb = util.optimization_barrier %t1 : !stream.timepoint
  %r = stream.timepoint.await %tb => %buf : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

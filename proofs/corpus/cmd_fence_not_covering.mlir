// EXPECT: MISSED_WAIT
// IREE #22803 / #17316: the signalled fence is chained to a timepoint that misses the last write
// (the copy into the returned buffer runs in a later execute).
util.func public @fence_early(%buf: !stream.resource<external>, %out: !stream.resource<external>, %fence: !hal.fence) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%c64}) {
    stream.cmd.fill %c1_i32, %b[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t) => with(%buf as %b: !stream.resource<external>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %b[%c0], %o[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t => (%fence : !hal.fence)
  util.return %out : !stream.resource<external>
}

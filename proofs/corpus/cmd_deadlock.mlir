// EXPECT: DEADLOCK
// The host waits on a fence that only work issued after the wait signals.
util.func public @deadlock(%buf: !stream.resource<external>, %fence: !hal.fence) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %wait = stream.timepoint.import on(#hal.device.affinity<@dev0>) %fence : (!hal.fence) => !stream.timepoint
  %ready = stream.timepoint.await %wait => %buf : !stream.resource<external>{%c64}
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%ready as %b: !stream.resource<external>{%c64}) {
    stream.cmd.fill %c1_i32, %b[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t => (%fence : !hal.fence)
  util.return %ready : !stream.resource<external>
}

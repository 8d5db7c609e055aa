// EXPECT: proved
// The fence is chained before the host waits on it (imported back): reached once the execute is done.
util.func public @roundtrip(%buf: !stream.resource<external>, %fence: !hal.fence) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%c64}) {
    stream.cmd.fill %c1_i32, %b[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t => (%fence : !hal.fence)
  %wait = stream.timepoint.import on(#hal.device.affinity<@dev0>) %fence : (!hal.fence) => !stream.timepoint
  %ready = stream.timepoint.await %wait => %buf : !stream.resource<external>{%c64}
  %v = stream.resource.load %ready[%c0] : !stream.resource<external>{%c64} -> i32
  util.return %ready : !stream.resource<external>
}

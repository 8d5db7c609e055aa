// EXPECT: MISSED_WAIT
// Two submissions to one device queue with no timepoint between them are not ordered (queues are not FIFO).
util.func public @same_queue(%buf: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c7_i32 = arith.constant 7 : i32
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%c64}) {
    stream.cmd.fill %c7_i32, %b[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@use {
      rw %b[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %j = stream.timepoint.join max(%e1, %e2) => !stream.timepoint
  %r = stream.timepoint.await %j => %buf : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

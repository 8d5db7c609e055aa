// EXPECT: RACE_WRITE_AFTER_WRITE
// Two fills of overlapping ranges in one cmd.concurrent: the final bytes depend on the schedule.
util.func public @concurrent_waw(%buf: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %c2_i32 = arith.constant 2 : i32
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%c64}) {
    stream.cmd.concurrent {
      stream.cmd.fill %c1_i32, %b[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
      stream.cmd.fill %c2_i32, %b[%c32 for %c32] : i32 -> !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

// EXPECT: RACE_READ_AFTER_WRITE
// A copy whose source and target ranges of one resource overlap (stream.cmd.copy forbids it).
util.func public @copy_overlap(%buf: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%c64}) {
    stream.cmd.copy %b[%c0], %b[%c16], %c48 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

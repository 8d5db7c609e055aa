// EXPECT: UNKNOWN
// An op the verifier does not model (util.call) gets the buffer while a device op may still write it:
// whether the call reads it is unknown, so the wait is undecided (exit 3, the call named), not a MISSED_WAIT.
// The callee is declared only: what it does is not in the module.
util.func private @consume(%b: !stream.resource<external>) -> i32
util.func public @unknown(%buf: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%c64}) {
    stream.cmd.fill %c1_i32, %b[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %x = util.call @consume(%buf) : (!stream.resource<external>) -> i32
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

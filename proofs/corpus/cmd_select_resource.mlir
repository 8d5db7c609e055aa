// EXPECT: UNKNOWN
// arith.select of two resources before the wait (no effect rule: it may only pick one): neither a MISSED_WAIT nor proved; the select is named.
util.func public @select_resource(%cond: i1, %a: !stream.resource<external>, %b: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%a as %x: !stream.resource<external>{%c64}) {
    stream.cmd.fill %c1_i32, %x[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %s = arith.select %cond, %a, %b : !stream.resource<external>
  %r = stream.timepoint.await %t => %s : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

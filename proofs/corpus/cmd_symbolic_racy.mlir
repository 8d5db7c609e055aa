// EXPECT: RACE_WRITE_AFTER_WRITE
// Concurrent writers of [0, a) and [b, b + 64): they race exactly when a > b (Z3 gives such sizes).
util.func public @sizes(%a: index, %b: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %ab = arith.addi %a, %b : index
  %size = arith.addi %ab, %c64 : index
  %buf, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%size} => !stream.timepoint
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%buf as %x: !stream.resource<external>{%size}) {
    stream.cmd.concurrent {
      stream.cmd.fill %c1_i32, %x[%c0 for %a] : i32 -> !stream.resource<external>{%size}
      stream.cmd.dispatch @ex::@tail {
        wo %x[%b for %c64] : !stream.resource<external>{%size}
      }
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%size}
  util.return %r : !stream.resource<external>
}

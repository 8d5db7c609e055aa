// EXPECT: proved
// Two concurrent writers of [0, n) and [n, 2n) of a 2n-byte slab: disjoint for every n (Z3).
util.func public @halves(%n: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1_i32 = arith.constant 1 : i32
  %size = arith.muli %n, %c2 : index
  %buf, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%size} => !stream.timepoint
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%buf as %b: !stream.resource<external>{%size}) {
    stream.cmd.concurrent {
      stream.cmd.fill %c1_i32, %b[%c0 for %n] : i32 -> !stream.resource<external>{%size}
      stream.cmd.dispatch @ex::@upper {
        wo %b[%n for %n] : !stream.resource<external>{%size}
      }
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%size}
  util.return %r : !stream.resource<external>
}

// EXPECT: proved
// cf.assert(n >= 64) before the execute: the writes [0, 64) and [n, n + 64) it issues after the check are disjoint (the program aborts at the check otherwise).
util.func public @checked(%n: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %ok = "arith.cmpi"(%n, %c64) <{predicate = 9 : i64}> : (index, index) -> i1
  "cf.assert"(%ok) <{msg = "n >= 64"}> : (i1) -> ()
  %size = arith.addi %n, %c64 : index
  %buf, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%size} => !stream.timepoint
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%buf as %b: !stream.resource<external>{%size}) {
    stream.cmd.concurrent {
      stream.cmd.fill %c1_i32, %b[%c0 for %c64] : i32 -> !stream.resource<external>{%size}
      stream.cmd.dispatch @ex::@second {
        wo %b[%n for %c64] : !stream.resource<external>{%size}
      }
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%size}
  util.return %r : !stream.resource<external>
}

// EXPECT: proved
// A slab of align(n, 64) + n bytes, as IREE lays out dynamic slices: a fill of [0, n) and a write of [align(n, 64), +n) in one wave are disjoint for every n (util.align rounds up).
util.func public @slab(%n: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %off = "util.align"(%n, %c64) : (index, index) -> index
  %size = arith.addi %off, %n : index
  %buf, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%size} => !stream.timepoint
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%buf as %b: !stream.resource<external>{%size}) {
    stream.cmd.concurrent {
      stream.cmd.fill %c1_i32, %b[%c0 for %n] : i32 -> !stream.resource<external>{%size}
      stream.cmd.dispatch @ex::@second {
        wo %b[%off for %n] : !stream.resource<external>{%size}
      }
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%size}
  util.return %r : !stream.resource<external>
}

// EXPECT: RACE_WRITE_AFTER_WRITE
// The twin of cmd_align_slab_ok with a fill of n + 1 bytes: util.align(n, 64) equals n when n is a multiple of 64, so the fill's last byte is the dispatch's first (Z3 finds such an n).
util.func public @slab(%n: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %off = "util.align"(%n, %c64) : (index, index) -> index
  %size = arith.addi %off, %c64 : index
  %fill = arith.addi %n, %c1 : index
  %buf, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%size} => !stream.timepoint
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%buf as %b: !stream.resource<external>{%size}) {
    stream.cmd.concurrent {
      stream.cmd.fill %c1_i32, %b[%c0 for %fill] : i32 -> !stream.resource<external>{%size}
      stream.cmd.dispatch @ex::@second {
        wo %b[%off for %c64] : !stream.resource<external>{%size}
      }
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%size}
  util.return %r : !stream.resource<external>
}

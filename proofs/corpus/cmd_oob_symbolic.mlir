// EXPECT: OUT_OF_BOUNDS
// A window at a caller-chosen offset into a 256-byte buffer: out of bounds once %off > 192.
util.func public @oob(%buf: !stream.resource<external>, %off: index) -> !stream.resource<external> {
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%c256}) {
    stream.cmd.dispatch @ex::@window {
      rw %b[%off for %c64] : !stream.resource<external>{%c256}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%c256}
  util.return %r : !stream.resource<external>
}

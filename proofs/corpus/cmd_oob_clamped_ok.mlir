// EXPECT: proved
// The same window with its offset reduced modulo 193: in bounds for every caller value (Z3).
util.func public @clamped(%buf: !stream.resource<external>, %x: index) -> !stream.resource<external> {
  %c64 = arith.constant 64 : index
  %c193 = arith.constant 193 : index
  %c256 = arith.constant 256 : index
  %off = arith.remui %x, %c193 : index
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%c256}) {
    stream.cmd.dispatch @ex::@window {
      rw %b[%off for %c64] : !stream.resource<external>{%c256}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%c256}
  util.return %r : !stream.resource<external>
}

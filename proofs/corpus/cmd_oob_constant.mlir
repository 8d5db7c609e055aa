// EXPECT: OUT_OF_BOUNDS
// Constant ranges past the end: a 48-byte copy to offset 32 of a 64-byte target, a binding at 200 of 256 bytes (IREE accepts both; a program bug, not bad input).
util.func public @oob_constant(%src: !stream.resource<external>, %dst: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %c256 = arith.constant 256 : index
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%src as %s: !stream.resource<external>{%c256}, %dst as %d: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@window {
      rw %s[%c200 for %c64] : !stream.resource<external>{%c256}
    }
    stream.cmd.copy %s[%c0], %d[%c32], %c48 : !stream.resource<external>{%c256} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %dst : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

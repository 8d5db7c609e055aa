// EXPECT: proved
// util.assume.int with two alternatives for two offsets, (0, 128) or (128, 0): the 64-byte writes at them are disjoint in each alternative; the per-operand union ({0, 128} each) would allow equal offsets.
util.func public @pair(%x: index, %y: index) -> !stream.resource<external> {
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %a, %b = "util.assume.int"(%x, %y) <{assumptions = [[#util.int.assumption<umin = 0, umax = 0>, #util.int.assumption<umin = 128, umax = 128, udiv = 128>], [#util.int.assumption<umin = 128, umax = 128, udiv = 128>, #util.int.assumption<umin = 0, umax = 0>]]}> : (index, index) -> (index, index)
  %buf, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c256} => !stream.timepoint
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%buf as %r: !stream.resource<external>{%c256}) {
    stream.cmd.concurrent {
      stream.cmd.dispatch @ex::@first {
        wo %r[%a for %c64] : !stream.resource<external>{%c256}
      }
      stream.cmd.dispatch @ex::@second {
        wo %r[%b for %c64] : !stream.resource<external>{%c256}
      }
    }
  } => !stream.timepoint
  %out = stream.timepoint.await %t => %buf : !stream.resource<external>{%c256}
  util.return %out : !stream.resource<external>
}

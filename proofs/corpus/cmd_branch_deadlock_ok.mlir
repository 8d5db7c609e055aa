// EXPECT: proved
// On one branch the host peeks at a staging word after the fill's timepoint; both branches then free it and chain the signal fence.
util.func public @maybe_peek(%c: i1, %signal: !hal.fence) -> i32 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : i32
  %c0_i32 = arith.constant 0 : i32
  %st, %ta = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<staging>{%c4} => !stream.timepoint
  %e = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%ta) => with(%st as %s: !stream.resource<staging>{%c4}) {
    stream.cmd.fill %c7, %s[%c0 for %c4] : i32 -> !stream.resource<staging>{%c4}
  } => !stream.timepoint
  "cf.cond_br"(%c, %c0_i32)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (i1, i32) -> ()
^bb1:
  %ready = stream.timepoint.await %e => %st : !stream.resource<staging>{%c4}
  %v = stream.resource.load %ready[%c0] : !stream.resource<staging>{%c4} -> i32
  "cf.br"(%v)[^bb2] : (i32) -> ()
^bb2(%x: i32):
  %free = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e) => %st : !stream.resource<staging>{%c4} => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %free => (%signal : !hal.fence)
  util.return %x : i32
}

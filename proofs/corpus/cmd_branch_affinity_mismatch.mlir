// EXPECT: AFFINITY_MISMATCH
// On one branch a fill on @dev1 writes a buffer allocated on @dev0, with no transfer.
util.func public @maybe_fill(%c: i1) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %a, %ta = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  "cf.cond_br"(%c, %ta)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (i1, !stream.timepoint) -> ()
^bb1:
  %e = stream.cmd.execute on(#hal.device.affinity<@dev1>) await(%ta) => with(%a as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  "cf.br"(%e)[^bb2] : (!stream.timepoint) -> ()
^bb2(%t: !stream.timepoint):
  %f = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t) => %a : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return %f : !stream.timepoint
}

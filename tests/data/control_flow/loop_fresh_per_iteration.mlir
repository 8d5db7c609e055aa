util.func private @chain(%n: index, %in: !stream.resource<external>) -> (!stream.resource<external>, !stream.timepoint) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t0 = stream.timepoint.immediate => !stream.timepoint
  "cf.br"(%c0, %in, %t0)[^bb1] : (index, !stream.resource<external>, !stream.timepoint) -> ()
^bb1(%i: index, %cur: !stream.resource<external>, %t: !stream.timepoint):
  %more = arith.cmpi slt, %i, %n : index
  "cf.cond_br"(%more)[^bb2, ^bb3] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb2:
  %new, %ta = stream.resource.alloca uninitialized await(%t) => !stream.resource<external>{%c64} => !stream.timepoint
  %done = stream.cmd.execute await(%ta) => with(%cur as %src: !stream.resource<external>{%c64}, %new as %dst: !stream.resource<external>{%c64}) {
    stream.cmd.copy %src[%c0], %dst[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %next = arith.addi %i, %c1 : index
  "cf.br"(%next, %new, %done)[^bb1] : (index, !stream.resource<external>, !stream.timepoint) -> ()
^bb3:
  util.return %cur, %t : !stream.resource<external>, !stream.timepoint
}

// EXPECT: RACE_WRITE_AFTER_WRITE USE_AFTER_FREE
// Each iteration's fill awaits only the alloca, not the carried timepoint: iterations overlap, and the free does not wait for the earlier ones.
util.func public @refill(%n: index) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7 : i32
  %buf, %ta = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  "cf.br"(%c0, %ta)[^bb1] : (index, !stream.timepoint) -> ()
^bb1(%i: index, %t: !stream.timepoint):
  %more = arith.cmpi slt, %i, %n : index
  "cf.cond_br"(%more)[^bb2, ^bb3] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb2:
  %done = stream.cmd.execute await(%ta) => with(%buf as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %next = arith.addi %i, %c1 : index
  "cf.br"(%next, %done)[^bb1] : (index, !stream.timepoint) -> ()
^bb3:
  %free = stream.resource.dealloca await(%t) => %buf : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return %free : !stream.timepoint
}

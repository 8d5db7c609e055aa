// EXPECT: proved
// Iteration %i fills bytes [16*%i, +16) of a 16*%n-byte cache: the loop bound keeps it in bounds.
util.func public @kv(%n: index) -> !stream.timepoint {
  %t0 = stream.timepoint.immediate => !stream.timepoint
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c7 = arith.constant 7 : i32
  %size = arith.muli %n, %c16 : index
  %cache, %ta = stream.resource.alloca uninitialized await(%t0) => !stream.resource<transient>{%size} => !stream.timepoint
  "cf.br"(%c0, %ta)[^bb1] : (index, !stream.timepoint) -> ()
^bb1(%i: index, %t: !stream.timepoint):
  %more = arith.cmpi slt, %i, %n : index
  "cf.cond_br"(%more)[^bb2, ^bb3] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb2:
  %off = arith.muli %i, %c16 : index
  %done = stream.cmd.execute await(%t) => with(%cache as %x: !stream.resource<transient>{%size}) {
    stream.cmd.fill %c7, %x[%off for %c16] : i32 -> !stream.resource<transient>{%size}
  } => !stream.timepoint
  %next = arith.addi %i, %c1 : index
  "cf.br"(%next, %done)[^bb1] : (index, !stream.timepoint) -> ()
^bb3:
  %free = stream.resource.dealloca await(%t) => %cache : !stream.resource<transient>{%size} => !stream.timepoint
  util.return %free : !stream.timepoint
}

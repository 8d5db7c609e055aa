// EXPECT: proved
// Two buffers swap roles every iteration (ping-pong), each copy after the carried timepoint.
util.func public @pingpong(%n: index) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a, %ta = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %b, %tb = stream.resource.alloca uninitialized await(%ta) => !stream.resource<transient>{%c64} => !stream.timepoint
  "cf.br"(%c0, %a, %b, %tb)[^bb1] : (index, !stream.resource<transient>, !stream.resource<transient>, !stream.timepoint) -> ()
^bb1(%i: index, %x: !stream.resource<transient>, %y: !stream.resource<transient>, %t: !stream.timepoint):
  %more = arith.cmpi slt, %i, %n : index
  "cf.cond_br"(%more)[^bb2, ^bb3] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb2:
  %done = stream.cmd.execute await(%t) => with(%x as %src: !stream.resource<transient>{%c64}, %y as %dst: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %src[%c0], %dst[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %next = arith.addi %i, %c1 : index
  "cf.br"(%next, %y, %x, %done)[^bb1] : (index, !stream.resource<transient>, !stream.resource<transient>, !stream.timepoint) -> ()
^bb3:
  %fa = stream.resource.dealloca await(%t) => %a : !stream.resource<transient>{%c64} => !stream.timepoint
  %fb = stream.resource.dealloca await(%fa) => %b : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return %fb : !stream.timepoint
}

// EXPECT: proved
// The copy of an iteration waits for this iteration's fill of %a.
util.func public @stage(%n: index) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %a, %ta = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %b, %tb = stream.resource.alloca uninitialized await(%ta) => !stream.resource<transient>{%c64} => !stream.timepoint
  "cf.br"(%c0, %tb)[^bb1] : (index, !stream.timepoint) -> ()
^bb1(%i: index, %t: !stream.timepoint):
  %more = arith.cmpi slt, %i, %n : index
  "cf.cond_br"(%more)[^bb2, ^bb3] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb2:
  %w = stream.cmd.execute await(%t) => with(%a as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %r = stream.cmd.execute await(%w) => with(%a as %x: !stream.resource<transient>{%c64}, %b as %y: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %x[%c0], %y[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %next = arith.addi %i, %c1 : index
  %j = stream.timepoint.join max(%w, %r) => !stream.timepoint
  "cf.br"(%next, %j)[^bb1] : (index, !stream.timepoint) -> ()
^bb3:
  %fa = stream.resource.dealloca await(%t) => %a : !stream.resource<transient>{%c64} => !stream.timepoint
  %fb = stream.resource.dealloca await(%fa) => %b : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return %fb : !stream.timepoint
}

util.func public @branch(%c: i1) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7 : i32
  %a, %ta = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %t1 = stream.cmd.execute await(%ta) => with(%a as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  "cf.cond_br"(%c, %t1)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, !stream.timepoint) -> ()
^bb1(%w: !stream.timepoint):
  "cf.br"(%w)[^bb3] : (!stream.timepoint) -> ()
^bb2:
  "cf.br"(%ta)[^bb3] : (!stream.timepoint) -> ()
^bb3(%t: !stream.timepoint):
  %t2 = stream.cmd.execute await(%t) => with(%a as %y: !stream.resource<transient>{%c64}) {
    stream.cmd.fill %c7, %y[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %t3 = stream.resource.dealloca await(%t2) => %a : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return %t3 : !stream.timepoint
}

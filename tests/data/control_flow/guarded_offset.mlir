util.func public @guarded(%i: index, %n: index) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : i32
  %size = arith.muli %n, %c4 : index
  %off = arith.muli %i, %c4 : index
  %a, %ta = stream.resource.alloca uninitialized : !stream.resource<transient>{%size} => !stream.timepoint
  %ok = arith.cmpi ult, %i, %n : index
  "cf.cond_br"(%ok)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb1:
  %t1 = stream.cmd.execute await(%ta) => with(%a as %x: !stream.resource<transient>{%size}) {
    stream.cmd.fill %c7, %x[%off for %c4] : i32 -> !stream.resource<transient>{%size}
  } => !stream.timepoint
  "cf.br"(%t1)[^bb3] : (!stream.timepoint) -> ()
^bb2:
  "cf.br"(%ta)[^bb3] : (!stream.timepoint) -> ()
^bb3(%t: !stream.timepoint):
  %t3 = stream.resource.dealloca await(%t) => %a : !stream.resource<transient>{%size} => !stream.timepoint
  util.return %t3 : !stream.timepoint
}

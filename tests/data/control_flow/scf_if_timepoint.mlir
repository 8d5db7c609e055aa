util.func public @pick(%c: i1, %in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7 : i32
  %a, %ta = stream.resource.alloca uninitialized : !stream.resource<external>{%c64} => !stream.timepoint
  %t1 = stream.cmd.execute await(%ta) => with(%a as %x: !stream.resource<external>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %t = "scf.if"(%c) ({
    "scf.yield"(%t1) : (!stream.timepoint) -> ()
  }, {
    %i = stream.timepoint.immediate => !stream.timepoint
    "scf.yield"(%i) : (!stream.timepoint) -> ()
  }) : (i1) -> !stream.timepoint
  %r = stream.timepoint.await %t => %a : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

util.func public @nest(%n: index, %m: index) -> !stream.timepoint {
  %t0 = stream.timepoint.immediate => !stream.timepoint
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7 : i32
  %buf, %ta = stream.resource.alloca uninitialized await(%t0) => !stream.resource<transient>{%c64} => !stream.timepoint
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %ta) -> (!stream.timepoint) {
    %s = scf.for %j = %c0 to %m step %c1 iter_args(%u = %t) -> (!stream.timepoint) {
      %done = stream.cmd.execute await(%u) => with(%buf as %x: !stream.resource<transient>{%c64}) {
        stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
      } => !stream.timepoint
      scf.yield %done : !stream.timepoint
    }
    scf.yield %s : !stream.timepoint
  }
  %free = stream.resource.dealloca await(%r) => %buf : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return %free : !stream.timepoint
}

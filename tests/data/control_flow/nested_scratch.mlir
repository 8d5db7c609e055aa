util.func public @tiles(%n: index, %m: index) -> !stream.timepoint {
  %t0 = stream.timepoint.immediate => !stream.timepoint
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7 : i32
  %acc, %ta = stream.resource.alloca uninitialized await(%t0) => !stream.resource<transient>{%c64} => !stream.timepoint
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %ta) -> (!stream.timepoint) {
    %scratch, %ts = stream.resource.alloca uninitialized await(%t) => !stream.resource<transient>{%c64} => !stream.timepoint
    %filled = scf.for %j = %c0 to %c4 step %c1 iter_args(%u = %ts) -> (!stream.timepoint) {
      %off = arith.muli %j, %c16 : index
      %done = stream.cmd.execute await(%u) => with(%scratch as %x: !stream.resource<transient>{%c64}) {
        stream.cmd.fill %c7, %x[%off for %c16] : i32 -> !stream.resource<transient>{%c64}
      } => !stream.timepoint
      scf.yield %done : !stream.timepoint
    }
    %copied = stream.cmd.execute await(%filled) => with(%scratch as %x: !stream.resource<transient>{%c64}, %acc as %y: !stream.resource<transient>{%c64}) {
      stream.cmd.copy %x[%c0], %y[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c64}
    } => !stream.timepoint
    %freed = stream.resource.dealloca await(%copied) => %scratch : !stream.resource<transient>{%c64} => !stream.timepoint
    scf.yield %freed : !stream.timepoint
  }
  %free = stream.resource.dealloca await(%r) => %acc : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return %free : !stream.timepoint
}

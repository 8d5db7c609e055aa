util.func public @seq(%n: index) -> !stream.timepoint {
  %t0 = stream.timepoint.immediate => !stream.timepoint
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7 : i32
  %a, %ta = stream.resource.alloca uninitialized await(%t0) => !stream.resource<transient>{%c64} => !stream.timepoint
  %b, %tb = stream.resource.alloca uninitialized await(%ta) => !stream.resource<transient>{%c64} => !stream.timepoint
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %tb) -> (!stream.timepoint) {
    %done = stream.cmd.execute await(%t) => with(%a as %x: !stream.resource<transient>{%c64}) {
      stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
    } => !stream.timepoint
    scf.yield %done : !stream.timepoint
  }
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%t = %r) -> (!stream.timepoint) {
    %done = stream.cmd.execute await(%t) => with(%a as %x: !stream.resource<transient>{%c64}, %b as %y: !stream.resource<transient>{%c64}) {
      stream.cmd.copy %x[%c0], %y[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c64}
    } => !stream.timepoint
    scf.yield %done : !stream.timepoint
  }
  %fa = stream.resource.dealloca await(%s) => %a : !stream.resource<transient>{%c64} => !stream.timepoint
  %fb = stream.resource.dealloca await(%fa) => %b : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return %fb : !stream.timepoint
}

// EXPECT: RACE_READ_AFTER_WRITE
// Each iteration fills %a and copies it to %b in one concurrent wave: the copy may read %a before the fill wrote it.
util.func public @wave(%n: index) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %a, %ta = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %b, %tb = stream.resource.alloca uninitialized await(%ta) => !stream.resource<transient>{%c64} => !stream.timepoint
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%t = %tb) -> (!stream.timepoint) {
    %e = stream.cmd.execute await(%t) => with(%a as %x: !stream.resource<transient>{%c64}, %b as %y: !stream.resource<transient>{%c64}) {
      stream.cmd.concurrent {
      stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
      stream.cmd.copy %x[%c0], %y[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c64}
      }
    } => !stream.timepoint
    scf.yield %e : !stream.timepoint
  }
  %fa = stream.resource.dealloca await(%last) => %a : !stream.resource<transient>{%c64} => !stream.timepoint
  %fb = stream.resource.dealloca await(%fa) => %b : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return %fb : !stream.timepoint
}

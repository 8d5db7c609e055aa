// EXPECT: LEAK
// Each iteration allocates a scratch buffer that nothing frees (a warning: the program is otherwise correct).
util.func public @scratch_leak(%n: index) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %t0 = stream.timepoint.immediate => !stream.timepoint
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%t = %t0) -> (!stream.timepoint) {
    %s, %ts = stream.resource.alloca uninitialized await(%t) => !stream.resource<transient>{%c64} => !stream.timepoint
    %e = stream.cmd.execute await(%ts) => with(%s as %x: !stream.resource<transient>{%c64}) {
      stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
    } => !stream.timepoint
    scf.yield %e : !stream.timepoint
  }
  util.return %last : !stream.timepoint
}

// EXPECT: proved
// Each iteration allocates a scratch buffer, fills it once the allocation is ready and frees it after the fill.
util.func public @scratch(%n: index) -> !stream.timepoint {
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
    %done = stream.timepoint.join max(%e, %ts) => !stream.timepoint
    %f = stream.resource.dealloca await(%done) => %s : !stream.resource<transient>{%c64} => !stream.timepoint
    scf.yield %f : !stream.timepoint
  }
  util.return %last : !stream.timepoint
}

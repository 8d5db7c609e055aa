// Safe: each step's read-back awaits the step; the function signals %signal after the loop.
// The mutant in tests/verify/test_loop_soundness.py awaits the join with %signal instead: a deadlock.
util.func public @poll(%n: index, %signal: !hal.fence) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %flag, %ta = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<staging>{%c4} => !stream.timepoint
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%t = %ta) -> (!stream.timepoint) {
    %iv = arith.index_cast %i : index to i32
    %e = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t) => with(%flag as %f: !stream.resource<staging>{%c4}) {
      stream.cmd.fill %iv, %f[%c0 for %c4] : i32 -> !stream.resource<staging>{%c4}
    } => !stream.timepoint
    %w = stream.timepoint.import on(#hal.device.affinity<@dev0>) %signal : (!hal.fence) => !stream.timepoint
    %both = stream.timepoint.join max(%e, %w) => !stream.timepoint
    %ready = stream.timepoint.await %e => %flag : !stream.resource<staging>{%c4}
    %v = stream.resource.load %ready[%c0] : !stream.resource<staging>{%c4} -> i32
    scf.yield %e : !stream.timepoint
  }
  %free = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%last) => %flag : !stream.resource<staging>{%c4} => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %free => (%signal : !hal.fence)
  util.return
}

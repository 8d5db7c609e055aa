// EXPECT: proved
// A do-while loop (scf.while) polls: each step writes its index to a staging word, the host reads it back after the step's timepoint to decide whether to go on, and the signal fence is chained after the loop.
util.func public @poll(%n: index, %signal: !hal.fence) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %flag, %ta = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<staging>{%c4} => !stream.timepoint
  %r:2 = "scf.while"(%c0, %ta) ({
  ^bb0(%i: index, %t: !stream.timepoint):
    %iv = arith.index_cast %i : index to i32
    %e = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t) => with(%flag as %f: !stream.resource<staging>{%c4}) {
      stream.cmd.fill %iv, %f[%c0 for %c4] : i32 -> !stream.resource<staging>{%c4}
    } => !stream.timepoint
    %ready = stream.timepoint.await %e => %flag : !stream.resource<staging>{%c4}
    %v = stream.resource.load %ready[%c0] : !stream.resource<staging>{%c4} -> i32
    %step = arith.index_cast %v : i32 to index
    %next = arith.addi %step, %c1 : index
    %go = arith.cmpi slt, %next, %n : index
    "scf.condition"(%go, %next, %e) : (i1, index, !stream.timepoint) -> ()
  }, {
  ^bb0(%j: index, %u: !stream.timepoint):
    "scf.yield"(%j, %u) : (index, !stream.timepoint) -> ()
  }) : (index, !stream.timepoint) -> (index, !stream.timepoint)
  %free = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%r#1) => %flag : !stream.resource<staging>{%c4} => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %free => (%signal : !hal.fence)
  util.return
}

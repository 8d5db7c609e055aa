// Safe: each step imports the caller's wait fence and reads %in after it.
util.func public @poll(%in: !stream.resource<external>, %n: index, %wait: !hal.fence, %signal: !hal.fence) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %flag, %ta = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<staging>{%c4} => !stream.timepoint
  %r:2 = "scf.while"(%c0, %ta) ({
  ^bb0(%i: index, %t: !stream.timepoint):
    %w = stream.timepoint.import on(#hal.device.affinity<@dev0>) %wait : (!hal.fence) => !stream.timepoint
    %go_t = stream.timepoint.join max(%t, %w) => !stream.timepoint
    %e = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%go_t) => with(%in as %a: !stream.resource<external>{%c64}, %flag as %f: !stream.resource<staging>{%c4}) {
      stream.cmd.copy %a[%c0], %f[%c0], %c4 : !stream.resource<external>{%c64} -> !stream.resource<staging>{%c4}
    } => !stream.timepoint
    %ready = stream.timepoint.await %e => %flag : !stream.resource<staging>{%c4}
    %v = stream.resource.load %ready[%c0] : !stream.resource<staging>{%c4} -> i32
    %next = arith.addi %i, %c1 : index
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

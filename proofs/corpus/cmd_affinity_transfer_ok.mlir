// EXPECT: proved
// @dev1 computes into its own memory and copies the result into @dev0's buffer (a lowered transfer).
util.func public @affinity_ok(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %a0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %a1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev1>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev1>) await(%j) => with(%in as %a: !stream.resource<external>{%c64}, %a1 as %w: !stream.resource<transient>{%c64}, %a0 as %o: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@work {
      ro %a[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %w[%c0 for %c64] : !stream.resource<transient>{%c64}
    }
    stream.cmd.copy %w[%c0], %o[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
    stream.cmd.flush to(#hal.device.affinity<@dev0>) %o[%c0 for %c64] : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev1>) await(%t2) => %a1 : !stream.resource<transient>{%c64} => !stream.timepoint
  %r = stream.timepoint.await %d => %a0 : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

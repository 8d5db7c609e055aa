// EXPECT: proved
// The #15007 fix: the state update runs after the dispatch that reads the state (block order in the execute region).
util.func public @rng_state_ok(%state: !stream.resource<variable>, %out: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%state as %s: !stream.resource<variable>{%c8}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@rng_uniform {
      ro %s[%c0 for %c8] : !stream.resource<variable>{%c8},
      wo %o[%c0 for %c64] : !stream.resource<external>{%c64}
    }
    stream.cmd.dispatch @ex::@advance_state {
      rw %s[%c0 for %c8] : !stream.resource<variable>{%c8}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

// EXPECT: AFFINITY_MISMATCH
// A dispatch on @dev1 binds a resource allocated on @dev0, with no transfer.
util.func public @affinity(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %a0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev1>) await(%t0) => with(%in as %a: !stream.resource<external>{%c64}, %a0 as %o: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@work {
      ro %a[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %o[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %a0 : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

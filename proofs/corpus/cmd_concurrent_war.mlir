// EXPECT: RACE_WRITE_AFTER_READ
// A reader and a later in-place writer of the same bytes share one cmd.concurrent.
util.func public @concurrent_war(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%in as %a: !stream.resource<external>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %o[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
    stream.cmd.concurrent {
      stream.cmd.dispatch @ex::@read {
        ro %o[%c0 for %c64] : !stream.resource<external>{%c64},
        wo %a[%c0 for %c64] : !stream.resource<external>{%c64}
      }
      stream.cmd.fill %c0, %o[%c0 for %c64] : index -> !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t2 => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

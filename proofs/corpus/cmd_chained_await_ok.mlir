// EXPECT: proved
// The second execute awaits the first one (joined with its allocation), so it reads what the first wrote.
util.func public @chained_await(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %tmp, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %out, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%in as %a: !stream.resource<external>{%c64}, %tmp as %b: !stream.resource<transient>{%c64}) {
    stream.cmd.dispatch @ex::@first {
      ro %a[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %b[%c0 for %c64] : !stream.resource<transient>{%c64}
    }
  } => !stream.timepoint
  %j = stream.timepoint.join max(%e1, %t1) => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%tmp as %b: !stream.resource<transient>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@second {
      ro %b[%c0 for %c64] : !stream.resource<transient>{%c64},
      wo %o[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %done = stream.timepoint.join max(%e1, %e2) => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%done) => %tmp : !stream.resource<transient>{%c64} => !stream.timepoint
  %r = stream.timepoint.await %d => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

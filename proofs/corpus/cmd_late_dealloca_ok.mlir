// EXPECT: proved
// The slab's dealloca awaits the execute that uses the slab.
util.func public @late_dealloca(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %slab, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%in as %a: !stream.resource<external>{%c64}, %slab as %s: !stream.resource<transient>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %s[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %s[%c0], %o[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %t3 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t2) => %slab : !stream.resource<transient>{%c64} => !stream.timepoint
  %done = stream.timepoint.join max(%t2, %t3) => !stream.timepoint
  %r = stream.timepoint.await %done => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

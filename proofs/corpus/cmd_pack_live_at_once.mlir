// EXPECT: PACK_OVERLAP
// The pack is told the two slices never live at once, but a concurrent wave uses both: they may share bytes.
util.func public @pack_overlap(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %p:3 = stream.resource.pack on(#hal.device.affinity<@dev0>) slices({
    [0, 0] = %c64,
    [1, 1] = %c64
  }) : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %slab, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%p#0} => !stream.timepoint
  %j = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%in as %a: !stream.resource<external>{%c64}, %slab as %s: !stream.resource<transient>{%p#0}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.concurrent {
      stream.cmd.copy %a[%c0], %s[%p#1], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%p#0}
      stream.cmd.copy %a[%c0], %s[%p#2], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%p#0}
    }
    stream.cmd.dispatch @ex::@add {
      ro %s[%p#1 for %c64] : !stream.resource<transient>{%p#0},
      ro %s[%p#2 for %c64] : !stream.resource<transient>{%p#0},
      wo %o[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t2) => %slab : !stream.resource<transient>{%p#0} => !stream.timepoint
  %r = stream.timepoint.await %d => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

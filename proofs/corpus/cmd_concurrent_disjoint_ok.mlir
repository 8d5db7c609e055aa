// EXPECT: proved
// Two producers in one cmd.concurrent write disjoint halves of a slab; a serial consumer reads both.
util.func public @disjoint_ok(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %slab, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c128} => !stream.timepoint
  %j = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%in as %a: !stream.resource<external>{%c64}, %slab as %s: !stream.resource<transient>{%c128}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.concurrent {
      stream.cmd.dispatch @ex::@left {
        ro %a[%c0 for %c64] : !stream.resource<external>{%c64},
        wo %s[%c0 for %c64] : !stream.resource<transient>{%c128}
      }
      stream.cmd.dispatch @ex::@right {
        ro %a[%c0 for %c64] : !stream.resource<external>{%c64},
        wo %s[%c64 for %c64] : !stream.resource<transient>{%c128}
      }
    }
    stream.cmd.dispatch @ex::@join {
      ro %s[%c0 for %c128] : !stream.resource<transient>{%c128},
      wo %o[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %t3 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t2) => %slab : !stream.resource<transient>{%c128} => !stream.timepoint
  %r = stream.timepoint.await %t3 => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

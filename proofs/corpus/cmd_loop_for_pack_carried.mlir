// EXPECT: PACK_OVERLAP
// cmd_loop_pack_carried as an scf.for: within an iteration the slices are used in order; slice #0 in one iteration, #1, then #0 in the next interleave, seen through the summary of earlier iterations.
util.func public @steps(%in: !stream.resource<external>, %n: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c0_i32 = arith.constant 0 : i32
  %p:3 = stream.resource.pack on(#hal.device.affinity<@dev0>) slices({
    [0, 0] = %c64,
    [1, 2] = %c64
  }) : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c128} => !stream.timepoint
  %slab, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%p#0} => !stream.timepoint
  %j = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %init = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%slab as %s: !stream.resource<transient>{%p#0}) {
    stream.cmd.fill %c0_i32, %s[%p#1 for %c64] : i32 -> !stream.resource<transient>{%p#0}
  } => !stream.timepoint
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%t = %init) -> (!stream.timepoint) {
    %e = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t) => with(%in as %a: !stream.resource<external>{%c64}, %slab as %s: !stream.resource<transient>{%p#0}, %out as %o: !stream.resource<external>{%c128}) {
      stream.cmd.dispatch @ex::@advance {
        rw %s[%p#1 for %c64] : !stream.resource<transient>{%p#0}
      }
      stream.cmd.copy %a[%c0], %s[%p#2], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%p#0}
      stream.cmd.dispatch @ex::@emit {
        ro %s[%p#2 for %c64] : !stream.resource<transient>{%p#0},
        wo %o[%c64 for %c64] : !stream.resource<external>{%c128}
      }
    } => !stream.timepoint
    scf.yield %e : !stream.timepoint
  }
  %fin = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%last) => with(%slab as %s: !stream.resource<transient>{%p#0}, %out as %o: !stream.resource<external>{%c128}) {
    stream.cmd.copy %s[%p#1], %o[%c0], %c64 : !stream.resource<transient>{%p#0} -> !stream.resource<external>{%c128}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%fin) => %slab : !stream.resource<transient>{%p#0} => !stream.timepoint
  %res = stream.timepoint.await %d => %out : !stream.resource<external>{%c128}
  util.return %res : !stream.resource<external>
}

// EXPECT: PACK_OVERLAP
// Slices #0 ([0, 1]) and #1 ([2, 3]) may share bytes; every use is in order, but slice #0 is read again after slice #1 is filled (outside its declared interval): the fill may clobber it.
util.func public @pack_interleaved(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %p:3 = stream.resource.pack on(#hal.device.affinity<@dev0>) slices({
    [0, 1] = %c64,
    [2, 3] = %c64
  }) : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %slab, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%p#0} => !stream.timepoint
  %j = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%in as %a: !stream.resource<external>{%c64}, %slab as %s: !stream.resource<transient>{%p#0}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %s[%p#1], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%p#0}
    stream.cmd.fill %c1_i32, %s[%p#2 for %c64] : i32 -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %s[%p#1], %o[%c0], %c64 : !stream.resource<transient>{%p#0} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t2) => %slab : !stream.resource<transient>{%p#0} => !stream.timepoint
  %r = stream.timepoint.await %d => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

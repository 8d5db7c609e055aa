// EXPECT: proved
// Slice #0 holds a copy of the input until the copy-out at the join; on one branch slice #1 stages a fill before that. The pack gives #0 the interval [0, 3], across the branch, so the two slices never share bytes.
util.func public @maybe_stage(%in: !stream.resource<external>, %c: i1) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c1_i32 = arith.constant 1 : i32
  %p:3 = stream.resource.pack on(#hal.device.affinity<@dev0>) slices({
    [0, 3] = %c64,
    [1, 2] = %c64
  }) : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c128} => !stream.timepoint
  %slab, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%p#0} => !stream.timepoint
  %j = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%in as %a: !stream.resource<external>{%c64}, %slab as %s: !stream.resource<transient>{%p#0}) {
    stream.cmd.copy %a[%c0], %s[%p#1], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%p#0}
  } => !stream.timepoint
  "cf.cond_br"(%c, %t2)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (i1, !stream.timepoint) -> ()
^bb1:
  %t3 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t2) => with(%slab as %s: !stream.resource<transient>{%p#0}, %out as %o: !stream.resource<external>{%c128}) {
    stream.cmd.fill %c1_i32, %s[%p#2 for %c64] : i32 -> !stream.resource<transient>{%p#0}
    stream.cmd.copy %s[%p#2], %o[%c64], %c64 : !stream.resource<transient>{%p#0} -> !stream.resource<external>{%c128}
  } => !stream.timepoint
  "cf.br"(%t3)[^bb2] : (!stream.timepoint) -> ()
^bb2(%t: !stream.timepoint):
  %t4 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t) => with(%slab as %s: !stream.resource<transient>{%p#0}, %out as %o: !stream.resource<external>{%c128}) {
    stream.cmd.copy %s[%p#1], %o[%c0], %c64 : !stream.resource<transient>{%p#0} -> !stream.resource<external>{%c128}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t4) => %slab : !stream.resource<transient>{%p#0} => !stream.timepoint
  %r = stream.timepoint.await %d => %out : !stream.resource<external>{%c128}
  util.return %r : !stream.resource<external>
}

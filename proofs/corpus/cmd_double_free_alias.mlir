// EXPECT: DOUBLE_FREE
// The slab is freed twice: once by name and once through a subview alias of it.
util.func public @double_free(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %slab, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %half = stream.resource.subview %slab[%c32] : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c32}
  %j = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%in as %a: !stream.resource<external>{%c64}, %half as %h: !stream.resource<transient>{%c32}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %h[%c0], %c32 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c32}
    stream.cmd.copy %h[%c0], %o[%c0], %c32 : !stream.resource<transient>{%c32} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t2) => %slab : !stream.resource<transient>{%c64} => !stream.timepoint
  %d2 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t2) => %half : !stream.resource<transient>{%c32} => !stream.timepoint
  %done = stream.timepoint.join max(%d1, %d2) => !stream.timepoint
  %r = stream.timepoint.await %done => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

// EXPECT: proved
// ARC and control-flow aliases fixed: the loop yields one alloca as two results; it is freed once, after its last use through either.
util.func public @arc_alias(%n: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7 : i32
  %buf, %ta = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %out, %to = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %r:3 = "scf.for"(%c0, %n, %c1, %buf, %buf, %ta) ({
  ^bb0(%i: index, %p: !stream.resource<transient>, %q: !stream.resource<transient>, %t: !stream.timepoint):
    %d = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t) => with(%p as %x: !stream.resource<transient>{%c64}) {
      stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
    } => !stream.timepoint
    "scf.yield"(%p, %p, %d) : (!stream.resource<transient>, !stream.resource<transient>, !stream.timepoint) -> ()
  }) : (index, index, index, !stream.resource<transient>, !stream.resource<transient>, !stream.timepoint) -> (!stream.resource<transient>, !stream.resource<transient>, !stream.timepoint)
  %j = stream.timepoint.join max(%r#2, %to) => !stream.timepoint
  %c = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%r#0 as %x: !stream.resource<transient>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %x[%c0], %o[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %f = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%c) => %r#1 : !stream.resource<transient>{%c64} => !stream.timepoint
  %done = stream.timepoint.join max(%f, %c) => !stream.timepoint
  %res = stream.timepoint.await %done => %out : !stream.resource<external>{%c64}
  util.return %res : !stream.resource<external>
}

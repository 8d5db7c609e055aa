// EXPECT: PACK_OVERLAP
// A do-while loop (scf.while) keeps its state in slice #0 of a packed slab and stages each step's input in slice #1; the pack gives the state the interval of its use in one step ([0, 0]), so the slices may share bytes and the staging clobbers the state the next step and the copy after the loop read.
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
  %r:2 = "scf.while"(%c0, %init) ({
  ^bb0(%i: index, %t: !stream.timepoint):
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
    %next = arith.addi %i, %c1 : index
    %go = arith.cmpi slt, %next, %n : index
    "scf.condition"(%go, %next, %e) : (i1, index, !stream.timepoint) -> ()
  }, {
  ^bb0(%k: index, %u: !stream.timepoint):
    "scf.yield"(%k, %u) : (index, !stream.timepoint) -> ()
  }) : (index, !stream.timepoint) -> (index, !stream.timepoint)
  %fin = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%r#1) => with(%slab as %s: !stream.resource<transient>{%p#0}, %out as %o: !stream.resource<external>{%c128}) {
    stream.cmd.copy %s[%p#1], %o[%c0], %c64 : !stream.resource<transient>{%p#0} -> !stream.resource<external>{%c128}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%fin) => %slab : !stream.resource<transient>{%p#0} => !stream.timepoint
  %res = stream.timepoint.await %d => %out : !stream.resource<external>{%c128}
  util.return %res : !stream.resource<external>
}

// RUN: streamproof compile %s --pass-pipeline=elide-timepoints --split-input-file | filecheck %s

// A join keeps only its roots: a free covers the execution it waited for.
// CHECK-LABEL: @joinKeepsRoots
// CHECK: %[[E0:.+]] = stream.cmd.execute
// CHECK: %[[D:.+]] = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[E0]])
// CHECK-NOT: stream.timepoint.join
// CHECK: stream.timepoint.await %[[D]] => %arg0
util.func public @joinKeepsRoots(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%rt) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r : !stream.resource<transient>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%d, %e0) => !stream.timepoint
  %o = stream.timepoint.await %j => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// An execution waits only for what no other awaited timepoint covers, through nested joins.
// CHECK-LABEL: @chainedAwaits
// CHECK: %[[E0:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) with
// CHECK: %[[E1:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev1>) await(%[[E0]])
// CHECK-NOT: stream.timepoint.immediate
// CHECK-NOT: stream.timepoint.join
// CHECK: stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[E1]]) => with(%arg1
util.func public @chainedAwaits(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@f {
      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev1>) await(%e0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %arg1 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %b[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %i = stream.timepoint.immediate => !stream.timepoint
  %j0 = stream.timepoint.join max(%e0, %i) => !stream.timepoint
  %j1 = stream.timepoint.join max(%j0, %e1) => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j1) => with(%arg1 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@g {
      rw %b[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %o = stream.timepoint.await %e2 => %arg1 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// A timepoint the host already awaited needs no device wait afterwards (IREE #9747), nor a second host wait.
// CHECK-LABEL: @hostAwaitCovers
// CHECK: %[[E0:[^ ]+]] = stream.cmd.execute
// CHECK: %[[H:.+]] = stream.timepoint.await %[[E0]] => %arg0
// CHECK-NEXT: %[[E1:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%[[H]] as
// CHECK: %[[O:.+]] = stream.timepoint.await %[[E1]] => %arg1
// CHECK-NEXT: %[[S:.+]] = stream.timepoint.await sync %[[E1]] => %[[O]]
// CHECK-NEXT: util.return %[[H]], %[[S]]
util.func public @hostAwaitCovers(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@f {
      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %h = stream.timepoint.await %e0 => %arg0 : !stream.resource<external>{%c64}
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%e0) => with(%h as %a: !stream.resource<external>{%c64}, %arg1 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %b[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %again = stream.timepoint.await %e0 => %h : !stream.resource<external>{%c64}
  %o = stream.timepoint.await %e1 => %arg1 : !stream.resource<external>{%c64}
  %s = stream.timepoint.await sync %e1 => %o : !stream.resource<external>{%c64}
  util.return %again, %s : !stream.resource<external>, !stream.resource<external>
}

// -----

// Allocations and frees drop covered awaits too; an await of only immediates disappears.
// CHECK-LABEL: @allocaAwaits
// CHECK-NOT: stream.timepoint.immediate
// CHECK: %[[R0:.+]], %[[T0:.+]] = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>
// CHECK: %[[E0:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[T0]])
// CHECK: %[[D0:.+]] = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[E0]])
// CHECK-NEXT: %[[R1:.+]], %[[T1:.+]] = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%[[D0]])
// CHECK-NEXT: stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[T1]])
// CHECK-NOT: stream.timepoint.join
util.func public @allocaAwaits(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %i = stream.timepoint.immediate => !stream.timepoint
  %r0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%i) => !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r0 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%d0, %e0) => !stream.timepoint
  %r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%j) => !stream.resource<transient>{%c64} => !stream.timepoint
  %j2 = stream.timepoint.join max(%j, %t1) => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j2) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r1 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r1 : !stream.resource<transient>{%c64} => !stream.timepoint
  %o = stream.timepoint.await %d1 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// A timepoint from outside covers only itself; a region that awaited it covers it.
// CHECK-LABEL: @opaqueArgument
// CHECK: %[[E0:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%tp)
// CHECK-NOT: stream.timepoint.join max(%tp
// CHECK: %[[E1:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[E0]])
// CHECK: %[[J1:.+]] = stream.timepoint.join max(%other, %[[E1]])
// CHECK: stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[J1]])
util.func public @opaqueArgument(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>, %tp: !stream.timepoint, %other: !stream.timepoint) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%tp) => with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@f {
      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %j0 = stream.timepoint.join max(%tp, %e0) => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j0) => with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@g {
      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %j1 = stream.timepoint.join max(%other, %e1) => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j1) => with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@h {
      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %o = stream.timepoint.await %e2 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// Duplicates and immediates go, also inside nested joins; a join of immediates only is no wait at all.
// CHECK-LABEL: @duplicatesAndImmediates
// CHECK-NOT: stream.timepoint.immediate
// CHECK-NOT: stream.timepoint.join
// CHECK: %[[E0:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(
// CHECK: stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[E0]]) => with(
util.func public @duplicatesAndImmediates(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %i = stream.timepoint.immediate => !stream.timepoint
  %ii = stream.timepoint.join max(%i, %i) => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%ii) => with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@f {
      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %j = stream.timepoint.join max(%e0, %i, %e0, %ii) => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@g {
      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %o = stream.timepoint.await %e1 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// A host await of a join covers each of its inputs for everything issued afterwards.
// CHECK-LABEL: @hostAwaitOfJoin
// CHECK: %[[J:.+]] = stream.timepoint.join max(
// CHECK: %[[H:.+]]:2 = stream.timepoint.await %[[J]]
// CHECK-NEXT: stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%[[H]]#0
util.func public @hostAwaitOfJoin(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@f {
      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev1>) with(%arg1 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@g {
      rw %b[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %j = stream.timepoint.join max(%e0, %e1) => !stream.timepoint
  %h:2 = stream.timepoint.await %j => %arg0, %arg1 : !stream.resource<external>{%c64}, !stream.resource<external>{%c64}
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%e1) => with(%h#0 as %a: !stream.resource<external>{%c64}, %h#1 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.copy %b[%c0], %a[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %o = stream.timepoint.await %e2 => %h#0 : !stream.resource<external>{%c64}
  util.return %o, %h#1 : !stream.resource<external>, !stream.resource<external>
}

// -----

// Waits that do not cover each other all stay: two independent devices' regions joined for a third.
// CHECK-LABEL: @incomparableWaitsStay
// CHECK: %[[E0:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>)
// CHECK: %[[E1:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev1>)
// CHECK: %[[J:.+]] = stream.timepoint.join max(%[[E0]], %[[E1]])
// CHECK: stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[J]])
util.func public @incomparableWaitsStay(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@f {
      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev1>) with(%arg1 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@g {
      rw %b[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %j = stream.timepoint.join max(%e0, %e1) => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%arg0 as %a: !stream.resource<external>{%c64}, %arg1 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.copy %b[%c0], %a[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %o = stream.timepoint.await %e2 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// RUN: streamproof compile %s --pass-pipeline=automatic-reference-counting --split-input-file | filecheck %s

// One allocation, one last use: the free awaits it and later waiters wait for the free.
// CHECK-LABEL: @singleLastUse
// CHECK: %[[R:.+]], %[[RT:.+]] = stream.resource.alloca
// CHECK: %[[E0:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[RT]])
// CHECK: } => !stream.timepoint
// CHECK-NEXT: %[[FREE:.+]] = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[E0]]) => %[[R]] : !stream.resource<transient>{%c64} => !stream.timepoint
// CHECK-NEXT: stream.timepoint.await %[[FREE]] => %arg0
util.func public @singleLastUse(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%rt) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.dispatch @ex::@produce {
      ro %a[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %x[%c0 for %c64] : !stream.resource<transient>{%c64}
    }
    stream.cmd.dispatch @ex::@consume {
      ro %x[%c0 for %c64] : !stream.resource<transient>{%c64},
      wo %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %o = stream.timepoint.await %e0 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// Two unordered readers: the free waits for the join of both last uses.
// CHECK-LABEL: @forkedLastUses
// CHECK: %[[E0:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%{{[^)]+}}) => with(%{{[^ ]+}} as %{{[^:]+}}: !stream.resource<transient>{%c64}) {
// CHECK: %[[E1:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[E0]]) =>
// CHECK: %[[E2:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev1>) await(%[[E0]]) =>
// CHECK: } => !stream.timepoint
// CHECK-NEXT: %[[LAST:.+]] = stream.timepoint.join max(%[[E1]], %[[E2]])
// CHECK-NEXT: %[[FREE:.+]] = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[LAST]]) => %{{.+}} : !stream.resource<transient>{%c64}
// CHECK-NEXT: stream.timepoint.await %[[FREE]] => %arg0, %arg1
util.func public @forkedLastUses(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%rt) => with(%r as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.dispatch @ex::@produce {
      wo %x[%c0 for %c64] : !stream.resource<transient>{%c64}
    }
  } => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%e0) => with(%r as %x: !stream.resource<transient>{%c64}, %arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev1>) await(%e0) => with(%r as %x: !stream.resource<transient>{%c64}, %arg1 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.copy %x[%c0], %b[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %j = stream.timepoint.join max(%e1, %e2) => !stream.timepoint
  %o:2 = stream.timepoint.await %j => %arg0, %arg1 : !stream.resource<external>{%c64}, !stream.resource<external>{%c64}
  util.return %o#0, %o#1 : !stream.resource<external>, !stream.resource<external>
}

// -----

// A later use that waits for the earlier ones is the only last use the free needs.
// CHECK-LABEL: @coveredLastUses
// CHECK: %[[E1:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%{{[^)]+}}) => with(%[[R:[^ ]+]] as %{{[^:]+}}: !stream.resource<transient>{%c64}, %arg0
// CHECK: } => !stream.timepoint
// CHECK-NEXT: %[[FREE:.+]] = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[E1]]) => %[[R]]
// CHECK-NEXT: stream.timepoint.await %[[FREE]] => %arg0
// CHECK-NOT: stream.resource.dealloca
util.func public @coveredLastUses(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%rt) => with(%r as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.dispatch @ex::@produce {
      wo %x[%c0 for %c64] : !stream.resource<transient>{%c64}
    }
  } => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%e0) => with(%r as %x: !stream.resource<transient>{%c64}, %arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %o = stream.timepoint.await %e1 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// Storage the function hands out or does not own is never freed: exported, imported, indeterminate.
// CHECK-LABEL: @neverFreed
// CHECK-NOT: stream.resource.dealloca
// CHECK: util.return
util.func public @neverFreed(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r, %rt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %k, %kt = stream.resource.alloca uninitialized indeterminate on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%rt, %kt) => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%in as %a: !stream.resource<external>{%c64}, %r as %x: !stream.resource<external>{%c64}, %k as %y: !stream.resource<transient>{%c64}) {
    stream.cmd.dispatch @ex::@f {
      ro %a[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %x[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %y[%c0 for %c64] : !stream.resource<transient>{%c64}
    }
  } => !stream.timepoint
  %o = stream.timepoint.await %e0 => %r : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %o : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

// -----

// A host read after the device work: the free is issued after the read.
// CHECK-LABEL: @hostReadThenFree
// CHECK: %[[R:.+]], %{{.+}} = stream.resource.alloca
// CHECK: %[[E0:.+]] = stream.cmd.execute
// CHECK: %[[S:.+]] = stream.timepoint.await %[[E0]] => %[[R]]
// CHECK-NEXT: %[[V:.+]] = stream.resource.load %[[S]][%c0]
// CHECK-NEXT: stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[E0]]) => %[[R]] : !stream.resource<staging>{%c64}
// CHECK-NEXT: util.return %[[V]]
util.func public @hostReadThenFree(%arg0: !stream.resource<external>) -> i32 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<staging>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%rt) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r as %x: !stream.resource<staging>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<staging>{%c64}
  } => !stream.timepoint
  %s = stream.timepoint.await %e0 => %r : !stream.resource<staging>{%c64}
  %v = stream.resource.load %s[%c0] : !stream.resource<staging>{%c64} -> i32
  util.return %v : i32
}

// -----

// Allocations whose ownership is already explicit are left alone, and a subview is a use of its source.
// CHECK-LABEL: @explicitAndAliases
// CHECK: %[[R:.+]], %{{.+}} = stream.resource.alloca
// CHECK: %[[S:.+]], %{{.+}} = stream.resource.alloca
// CHECK: %[[E0:.+]] = stream.cmd.execute
// CHECK: } => !stream.timepoint
// CHECK-NEXT: %[[FREE:.+]] = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[E0]]) => %[[R]]
// CHECK-NOT: stream.resource.dealloca {{.+}} => %[[S]]
// CHECK: stream.timepoint.await %[[FREE]] => %arg0
util.func public @explicitAndAliases(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c1_i32 = arith.constant 1 : i32
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %s, %st = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  stream.resource.retain %s : !stream.resource<transient>{%c64}
  %v = stream.resource.subview %r[%c32] : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c32}
  %j = stream.timepoint.join max(%rt, %st) => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%v as %x: !stream.resource<transient>{%c32}, %s as %y: !stream.resource<transient>{%c64}, %arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.fill %c1_i32, %x[%c0 for %c32] : i32 -> !stream.resource<transient>{%c32}
    stream.cmd.copy %x[%c0], %y[%c0], %c32 : !stream.resource<transient>{%c32} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %y[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %o = stream.timepoint.await %e0 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// Several allocations ending at one timepoint: later waiters wait for all their frees.
// CHECK-LABEL: @sharedLastUse
// CHECK: %[[R:.+]], %{{.+}} = stream.resource.alloca
// CHECK: %[[S:.+]], %{{.+}} = stream.resource.alloca
// CHECK: %[[E0:.+]] = stream.cmd.execute
// CHECK: } => !stream.timepoint
// CHECK-NEXT: %[[FR:.+]] = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[E0]]) => %[[R]]
// CHECK-NEXT: %[[FS:.+]] = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[E0]]) => %[[S]]
// CHECK-NEXT: %[[BOTH:.+]] = stream.timepoint.join max(%[[FR]], %[[FS]])
// CHECK-NEXT: stream.timepoint.await %[[BOTH]] => %arg0
util.func public @sharedLastUse(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %s, %st = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%rt, %st) => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%r as %x: !stream.resource<transient>{%c64}, %s as %y: !stream.resource<transient>{%c64}, %arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %y[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %y[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %o = stream.timepoint.await %e0 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

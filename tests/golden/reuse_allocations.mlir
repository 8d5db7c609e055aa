// RUN: streamproof compile %s --pass-pipeline=reuse-allocations --split-input-file | filecheck %s

// An allocation awaiting a free of the same size, type and device takes the freed memory.
// CHECK-LABEL: @exactReuse
// CHECK: %[[R0:.+]], %[[T0:.+]] = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64}
// CHECK: %[[E0:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[T0]])
// CHECK-NOT: stream.resource.alloca
// CHECK: %[[E1:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[E0]]) => with(%arg0 as %{{[^:]+}}: !stream.resource<external>{%c64}, %[[R0]] as
// CHECK: stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[E1]]) => %[[R0]] : !stream.resource<transient>{%c64}
// CHECK-NOT: stream.resource.dealloca
util.func public @exactReuse(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r0 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%c64} => !stream.timepoint
  %j0 = stream.timepoint.join max(%d0, %e0) => !stream.timepoint
  %r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%j0) => !stream.resource<transient>{%c64} => !stream.timepoint
  %j1 = stream.timepoint.join max(%j0, %t1) => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j1) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r1 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r1 : !stream.resource<transient>{%c64} => !stream.timepoint
  %o = stream.timepoint.await %d1 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// A larger freed buffer is reused through a subview, and the later free releases the whole buffer.
// CHECK-LABEL: @largerReuse
// CHECK: %[[R0:.+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c128}
// CHECK: %[[E0:.+]] = stream.cmd.execute
// CHECK-NOT: stream.resource.alloca
// CHECK: %[[VIEW:.+]] = stream.resource.subview %[[R0]][%{{.+}}] : !stream.resource<transient>{%c128} -> !stream.resource<transient>{%c64}
// CHECK: %[[E1:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[E0]]) => with(%arg0 as %{{[^:]+}}: !stream.resource<external>{%c64}, %[[VIEW]] as
// CHECK: stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[E1]]) => %[[R0]] : !stream.resource<transient>{%c128}
util.func public @largerReuse(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %r0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c128} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r0 as %x: !stream.resource<transient>{%c128}) {
    stream.cmd.copy %a[%c0], %x[%c64], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c128}
    stream.cmd.copy %x[%c64], %a[%c0], %c64 : !stream.resource<transient>{%c128} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%c128} => !stream.timepoint
  %r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%d0) => !stream.resource<transient>{%c64} => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t1) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r1 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r1 : !stream.resource<transient>{%c64} => !stream.timepoint
  %o = stream.timepoint.await %d1 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// No reuse when the allocation does not wait for the free, or lives on another device or lifetime.
// CHECK-LABEL: @noReuse
// CHECK: %[[R0:[^,]+]], %{{.+}} = stream.resource.alloca
// CHECK: stream.resource.dealloca {{.+}} => %[[R0]]
// CHECK: %[[R1:[^,]+]], %{{.+}} = stream.resource.alloca {{.+}} await(%[[E0:[^)]+]])
// CHECK: %[[R2:[^,]+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev1>)
// CHECK: %[[R3:[^,]+]], %{{.+}} = stream.resource.alloca {{.+}} !stream.resource<staging>
// CHECK: stream.resource.dealloca {{.+}} => %[[R1]]
// CHECK: stream.resource.dealloca {{.+}} => %[[R2]]
// CHECK: stream.resource.dealloca {{.+}} => %[[R3]]
util.func public @noReuse(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r0 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%c64} => !stream.timepoint
  %r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%e0) => !stream.resource<transient>{%c64} => !stream.timepoint
  %r2, %t2 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev1>) await(%d0) => !stream.resource<transient>{%c64} => !stream.timepoint
  %r3, %t3 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%d0) => !stream.resource<staging>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%t1, %t2, %t3) => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r1 as %x: !stream.resource<transient>{%c64}, %r2 as %y: !stream.resource<transient>{%c64}, %r3 as %z: !stream.resource<staging>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %y[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %y[%c0], %z[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<staging>{%c64}
    stream.cmd.copy %z[%c0], %a[%c0], %c64 : !stream.resource<staging>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r1 : !stream.resource<transient>{%c64} => !stream.timepoint
  %d2 = stream.resource.dealloca on(#hal.device.affinity<@dev1>) await(%e1) => %r2 : !stream.resource<transient>{%c64} => !stream.timepoint
  %d3 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r3 : !stream.resource<staging>{%c64} => !stream.timepoint
  %jd = stream.timepoint.join max(%d1, %d2, %d3) => !stream.timepoint
  %o = stream.timepoint.await %jd => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// A free the host has already waited for (a `sync` await) counts as awaited: the next allocation reuses it.
// CHECK-LABEL: @hostAwaitedFree
// CHECK: %[[R0:.+]], %{{.+}} = stream.resource.alloca
// CHECK: %[[E0:.+]] = stream.cmd.execute
// CHECK: %[[H:.+]] = stream.timepoint.await sync %[[E0]] => %arg0
// CHECK-NOT: stream.resource.alloca
// CHECK: stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%{{.+}}) => with(%[[H]] as %{{[^:]+}}: !stream.resource<external>{%c64}, %[[R0]] as
util.func public @hostAwaitedFree(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r0 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%c64} => !stream.timepoint
  %h = stream.timepoint.await sync %d0 => %arg0 : !stream.resource<external>{%c64}
  %r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t1) => with(%h as %a: !stream.resource<external>{%c64}, %r1 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r1 : !stream.resource<transient>{%c64} => !stream.timepoint
  %o = stream.timepoint.await %d1 => %h : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// Reuse chains: the third allocation reuses what the second reused from the first.
// CHECK-LABEL: @chain
// CHECK: %[[R0:.+]], %{{.+}} = stream.resource.alloca
// CHECK-NOT: stream.resource.alloca
// CHECK: %[[E0:.+]] = stream.cmd.execute
// CHECK: %[[E1:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[E0]]) => with({{.+}}, %[[R0]] as
// CHECK: %[[E2:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[E1]]) => with({{.+}}, %[[R0]] as
// CHECK: stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[E2]]) => %[[R0]]
util.func public @chain(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r0 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%c64} => !stream.timepoint
  %r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%d0) => !stream.resource<transient>{%c64} => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t1) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r1 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r1 : !stream.resource<transient>{%c64} => !stream.timepoint
  %r2, %t2 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%d1) => !stream.resource<transient>{%c64} => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t2) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r2 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d2 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e2) => %r2 : !stream.resource<transient>{%c64} => !stream.timepoint
  %o = stream.timepoint.await %d2 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// A chain through a subview: the second allocation reuses the first exactly, the third (smaller) takes a subview of that same storage.
// CHECK-LABEL: @chainThroughSubview
// CHECK: %[[R0:.+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c128}
// CHECK-NOT: stream.resource.alloca
// CHECK: %[[E0:.+]] = stream.cmd.execute
// CHECK: %[[E1:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[E0]]) => with(%arg0 as %{{[^:]+}}: !stream.resource<external>{%c64}, %[[R0]] as
// CHECK: %[[VIEW:.+]] = stream.resource.subview %[[R0]][%{{.+}}] : !stream.resource<transient>{%c128} -> !stream.resource<transient>{%c64}
// CHECK: %[[E2:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[E1]]) => with(%arg0 as %{{[^:]+}}: !stream.resource<external>{%c64}, %[[VIEW]] as
// CHECK: stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[E2]]) => %[[R0]] : !stream.resource<transient>{%c128}
// CHECK-NOT: stream.resource.dealloca
util.func public @chainThroughSubview(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %r0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c128} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r0 as %x: !stream.resource<transient>{%c128}) {
    stream.cmd.copy %a[%c0], %x[%c64], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c128}
    stream.cmd.copy %x[%c64], %a[%c0], %c64 : !stream.resource<transient>{%c128} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%c128} => !stream.timepoint
  %r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%d0) => !stream.resource<transient>{%c128} => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t1) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r1 as %x: !stream.resource<transient>{%c128}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c128}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c128} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r1 : !stream.resource<transient>{%c128} => !stream.timepoint
  %r2, %t2 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%d1) => !stream.resource<transient>{%c64} => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t2) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r2 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d2 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e2) => %r2 : !stream.resource<transient>{%c64} => !stream.timepoint
  %o = stream.timepoint.await %d2 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// Dynamic sizes match only as the same SSA value: a free of %n bytes is reused for %n bytes, a free of %m bytes is not reused for %k.
// CHECK-LABEL: @sameSizeValue
// CHECK: %[[RN:[^,]+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%n}
// CHECK: %[[RM:[^,]+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%m}
// CHECK-NOT: stream.resource.dealloca {{.+}} => %[[RN]]
// CHECK: stream.resource.dealloca {{.+}} => %[[RM]] : !stream.resource<transient>{%m}
// CHECK: %[[RK:[^,]+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%{{.+}}) => !stream.resource<transient>{%k}
// CHECK-NOT: stream.resource.alloca
// CHECK: stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%{{.+}}) => with(%[[RN]] as %{{[^:]+}}: !stream.resource<transient>{%n}, %[[RK]] as
// CHECK: stream.resource.dealloca {{.+}} => %[[RN]] : !stream.resource<transient>{%n}
// CHECK: stream.resource.dealloca {{.+}} => %[[RK]] : !stream.resource<transient>{%k}
util.func public @sameSizeValue(%n: index, %m: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c1_i32 = arith.constant 1 : i32
  %r0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%n} => !stream.timepoint
  %r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%m} => !stream.timepoint
  %j0 = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j0) => with(%r0 as %x: !stream.resource<transient>{%n}, %r1 as %y: !stream.resource<transient>{%m}) {
    stream.cmd.fill %c1_i32, %x[%c0 for %n] : i32 -> !stream.resource<transient>{%n}
    stream.cmd.fill %c1_i32, %y[%c0 for %m] : i32 -> !stream.resource<transient>{%m}
  } => !stream.timepoint
  %d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%n} => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r1 : !stream.resource<transient>{%m} => !stream.timepoint
  %j1 = stream.timepoint.join max(%d0, %d1) => !stream.timepoint
  %r2, %t2 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%j1) => !stream.resource<transient>{%n} => !stream.timepoint
  %r3, %t3 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%j1) => !stream.resource<transient>{%k} => !stream.timepoint
  %j2 = stream.timepoint.join max(%t2, %t3) => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j2) => with(%r2 as %x: !stream.resource<transient>{%n}, %r3 as %y: !stream.resource<transient>{%k}) {
    stream.cmd.fill %c1_i32, %x[%c0 for %n] : i32 -> !stream.resource<transient>{%n}
    stream.cmd.fill %c1_i32, %y[%c0 for %k] : i32 -> !stream.resource<transient>{%k}
  } => !stream.timepoint
  %d2 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r2 : !stream.resource<transient>{%n} => !stream.timepoint
  %d3 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r3 : !stream.resource<transient>{%k} => !stream.timepoint
  %j3 = stream.timepoint.join max(%d2, %d3) => !stream.timepoint
  util.return
}

// -----

// Of two larger freed buffers the allocation awaits, it takes the smaller one (through a subview); the other is freed.
// CHECK-LABEL: @smallestLargerFit
// CHECK: %[[BIG:[^,]+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c256}
// CHECK: %[[MID:[^,]+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c128}
// CHECK: stream.resource.dealloca {{.+}} => %[[BIG]] : !stream.resource<transient>{%c256}
// CHECK-NOT: stream.resource.alloca
// CHECK: %[[VIEW:.+]] = stream.resource.subview %[[MID]][%{{.+}}] : !stream.resource<transient>{%c128} -> !stream.resource<transient>{%c64}
// CHECK: stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%{{.+}}) => with(%[[VIEW]] as
// CHECK: stream.resource.dealloca {{.+}} => %[[MID]] : !stream.resource<transient>{%c128}
util.func public @smallestLargerFit() {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c1_i32 = arith.constant 1 : i32
  %r0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c256} => !stream.timepoint
  %r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c128} => !stream.timepoint
  %j0 = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j0) => with(%r0 as %x: !stream.resource<transient>{%c256}, %r1 as %y: !stream.resource<transient>{%c128}) {
    stream.cmd.fill %c1_i32, %x[%c0 for %c256] : i32 -> !stream.resource<transient>{%c256}
    stream.cmd.fill %c1_i32, %y[%c0 for %c128] : i32 -> !stream.resource<transient>{%c128}
  } => !stream.timepoint
  %d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%c256} => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r1 : !stream.resource<transient>{%c128} => !stream.timepoint
  %j1 = stream.timepoint.join max(%d0, %d1) => !stream.timepoint
  %r2, %t2 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%j1) => !stream.resource<transient>{%c64} => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t2) => with(%r2 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.fill %c1_i32, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %d2 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r2 : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return
}

// -----

// A plain await whose only user is an execute does not make the host wait (it is pure): the free is not
// known to be reached when the next allocation is made, so that allocation stays.
// CHECK-LABEL: @capturedAwaitedFree
// CHECK: %[[H:.+]] = stream.timepoint.await %{{.+}} => %arg0
// CHECK: %[[R1:.+]], %{{.+}} = stream.resource.alloca
// CHECK: stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%{{.+}}) => with(%[[H]] as %{{[^:]+}}: !stream.resource<external>{%c64}, %[[R1]] as
util.func public @capturedAwaitedFree(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r0 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%c64} => !stream.timepoint
  %h = stream.timepoint.await %d0 => %arg0 : !stream.resource<external>{%c64}
  %r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t1) => with(%h as %a: !stream.resource<external>{%c64}, %r1 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r1 : !stream.resource<transient>{%c64} => !stream.timepoint
  %o = stream.timepoint.await %d1 => %h : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// No reuse across a gap holding another allocation: %r2 awaits the free of %r0, but handing %r0 over would keep it
// allocated while %r1 lives, 128 bytes at once where the input never has more than 64 (the peak would rise).
// CHECK-LABEL: @gapHoldsAnotherAllocation
// CHECK: %[[R0:[^,]+]], %{{.+}} = stream.resource.alloca {{.+}} !stream.resource<transient>{%c64}
// CHECK: stream.resource.dealloca {{.+}} => %[[R0]] : !stream.resource<transient>{%c64}
// CHECK: stream.resource.alloca {{.+}} !stream.resource<staging>{%c64}
// CHECK: %[[R2:[^,]+]], %{{.+}} = stream.resource.alloca {{.+}} await(%{{.+}}) => !stream.resource<transient>{%c64}
// CHECK: stream.cmd.execute {{.+}} %[[R2]] as
// CHECK: stream.resource.dealloca {{.+}} => %[[R2]] : !stream.resource<transient>{%c64}
util.func public @gapHoldsAnotherAllocation(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r0 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%c64} => !stream.timepoint
  %r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%d0) => !stream.resource<staging>{%c64} => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t1) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r1 as %y: !stream.resource<staging>{%c64}) {
    stream.cmd.copy %a[%c0], %y[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<staging>{%c64}
    stream.cmd.copy %y[%c0], %a[%c0], %c64 : !stream.resource<staging>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r1 : !stream.resource<staging>{%c64} => !stream.timepoint
  %r2, %t2 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%d1) => !stream.resource<transient>{%c64} => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t2) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r2 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d2 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e2) => %r2 : !stream.resource<transient>{%c64} => !stream.timepoint
  %o = stream.timepoint.await %d2 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

// -----

// The same gap with room to spare: the 256-byte buffer used with %r0 sets the peak, so holding %r0 while %r1 lives
// (128 bytes) does not raise it, and %r2 takes %r0's memory.
// CHECK-LABEL: @gapWithRoom
// CHECK: %[[R0:[^,]+]], %{{.+}} = stream.resource.alloca {{.+}} !stream.resource<transient>{%c64}
// CHECK-NOT: stream.resource.dealloca {{.+}} => %[[R0]]
// CHECK: stream.resource.alloca {{.+}} !stream.resource<staging>{%c64}
// CHECK-NOT: stream.resource.alloca
// CHECK: stream.cmd.execute {{.+}} %[[R0]] as
// CHECK: stream.resource.dealloca {{.+}} => %[[R0]] : !stream.resource<transient>{%c64}
util.func public @gapWithRoom(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %b, %tb = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c256} => !stream.timepoint
  %r0, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %j0 = stream.timepoint.join max(%tb, %t0) => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j0) => with(%arg0 as %a: !stream.resource<external>{%c64}, %b as %z: !stream.resource<transient>{%c256}, %r0 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %z[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c256}
    stream.cmd.copy %z[%c0], %x[%c0], %c64 : !stream.resource<transient>{%c256} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %db = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %b : !stream.resource<transient>{%c256} => !stream.timepoint
  %d0 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e0) => %r0 : !stream.resource<transient>{%c64} => !stream.timepoint
  %r1, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%d0) => !stream.resource<staging>{%c64} => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t1) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r1 as %y: !stream.resource<staging>{%c64}) {
    stream.cmd.copy %a[%c0], %y[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<staging>{%c64}
    stream.cmd.copy %y[%c0], %a[%c0], %c64 : !stream.resource<staging>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %r1 : !stream.resource<staging>{%c64} => !stream.timepoint
  %r2, %t2 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%d1) => !stream.resource<transient>{%c64} => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t2) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r2 as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %x[%c0], %a[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d2 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e2) => %r2 : !stream.resource<transient>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%db, %d2) => !stream.timepoint
  %o = stream.timepoint.await %j => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

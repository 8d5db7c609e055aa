// RUN: streamproof compile %s --pass-pipeline=schedule-allocation --split-input-file | filecheck %s

// Region-local values share one slab: values whose liveness intervals do not intersect share bytes.
// CHECK-LABEL: @localsShareSlab
util.func public @localsShareSlab(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  // CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
  // CHECK-DAG: %[[C1024:.+]] = arith.constant 1024 : index
  // CHECK-DAG: %[[C2048:.+]] = arith.constant 2048 : index
  // CHECK: %[[RESULT:.+]], %[[RESULT_TP:.+]] = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%[[C1024]]} => !stream.timepoint
  // CHECK: %[[SLAB:.+]], %[[SLAB_TP:.+]] = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%[[C2048]]} => !stream.timepoint
  // CHECK: %[[READY:.+]] = stream.timepoint.join max(%[[RESULT_TP]], %[[SLAB_TP]])
  // CHECK: %[[EXEC:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[READY]]) => with(%arg0 as %[[A:.+]]: !stream.resource<external>{%[[C1024]]}, %[[RESULT]] as %[[R:.+]]: !stream.resource<external>{%[[C1024]]}, %[[SLAB]] as %[[S:.+]]: !stream.resource<transient>{%[[C2048]]})
  // CHECK: stream.cmd.dispatch @ex::@f0
  // CHECK-NEXT: ro %[[A]][%[[C0]] for %[[C1024]]]
  // CHECK-NEXT: wo %[[S]][%[[C0]] for %[[C1024]]]
  // CHECK: stream.cmd.dispatch @ex::@f1
  // CHECK-NEXT: ro %[[S]][%[[C0]] for %[[C1024]]]
  // CHECK-NEXT: wo %[[S]][%[[C1024]] for %[[C1024]]]
  // CHECK: stream.cmd.dispatch @ex::@f2
  // CHECK-NEXT: ro %[[S]][%[[C1024]] for %[[C1024]]]
  // CHECK-NEXT: wo %[[S]][%[[C0]] for %[[C1024]]]
  // CHECK: stream.cmd.dispatch @ex::@f3
  // CHECK-NEXT: ro %[[S]][%[[C0]] for %[[C1024]]]
  // CHECK-NEXT: wo %[[R]][%[[C0]] for %[[C1024]]]
  // CHECK: %[[FREE:.+]] = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[EXEC]]) => %[[SLAB]]
  // CHECK: %[[DONE:.+]] = stream.timepoint.join max(%[[FREE]], %[[EXEC]])
  // CHECK: stream.timepoint.await %[[DONE]] => %[[RESULT]]
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c1024}) -> !stream.resource<external>{%c1024} {
    %0 = stream.async.dispatch @ex::@f0(%a[%c0 to %c1024 for %c1024]) : (!stream.resource<external>{%c1024}) -> !stream.resource<transient>{%c1024}
    %1 = stream.async.dispatch @ex::@f1(%0[%c0 to %c1024 for %c1024]) : (!stream.resource<transient>{%c1024}) -> !stream.resource<transient>{%c1024}
    %2 = stream.async.dispatch @ex::@f2(%1[%c0 to %c1024 for %c1024]) : (!stream.resource<transient>{%c1024}) -> !stream.resource<transient>{%c1024}
    %3 = stream.async.dispatch @ex::@f3(%2[%c0 to %c1024 for %c1024]) : (!stream.resource<transient>{%c1024}) -> !stream.resource<external>{%c1024}
    stream.yield %3 : !stream.resource<external>{%c1024}
  } => !stream.timepoint
  %out = stream.timepoint.await %t => %r : !stream.resource<external>{%c1024}
  util.return %out : !stream.resource<external>
}

// -----

// A result tied to a capture is that capture: no allocation, and the in-place dispatch binds it rw.
// CHECK-LABEL: @tiedResultIsCapture
util.func public @tiedResultIsCapture(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  // CHECK-NOT: stream.resource.alloca
  // CHECK: %[[EXEC:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %[[A:.+]]: !stream.resource<external>{%{{.+}}}, %arg1 as %[[B:.+]]: !stream.resource<external>{%{{.+}}})
  // CHECK-NEXT: stream.cmd.dispatch @ex::@acc
  // CHECK-NEXT: ro %[[A]]
  // CHECK-NEXT: rw %[[B]]
  // CHECK: stream.timepoint.await %[[EXEC]] => %arg1
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c256}, %arg1 as %b: !stream.resource<external>{%c256}) -> %arg1{%c256} {
    %0 = stream.async.dispatch @ex::@acc(%a[%c0 to %c256 for %c256], %b[%c0 to %c256 for %c256]) : (!stream.resource<external>{%c256}, !stream.resource<external>{%c256}) -> %b{%c256}
    stream.yield %0 : !stream.resource<external>{%c256}
  } => !stream.timepoint
  %out = stream.timepoint.await %t => %r : !stream.resource<external>{%c256}
  util.return %out : !stream.resource<external>
}

// -----

// Tied updates inside a wave write the captured storage itself (IREE #19355 gave them dummy buffers).
// CHECK-LABEL: @tiedUpdatesInWave
util.func public @tiedUpdatesInWave(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>, %u: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  // CHECK-NOT: stream.resource.alloca
  // CHECK: %[[EXEC:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %[[X:.+]]: !stream.resource<external>{%{{.+}}}, %arg1 as %[[Y:.+]]: !stream.resource<external>{%{{.+}}}, %u as %[[V:.+]]: !stream.resource<external>{%{{.+}}})
  // CHECK-NEXT: stream.cmd.concurrent
  // CHECK-NEXT: stream.cmd.copy %[[V]][%c0], %[[X]][%c0], %c64
  // CHECK-NEXT: stream.cmd.copy %[[V]][%c0], %[[Y]][%c64], %c64
  // CHECK: stream.timepoint.await %[[EXEC]] => %arg0, %arg1
  %r:2, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %x: !stream.resource<external>{%c256}, %arg1 as %y: !stream.resource<external>{%c256}, %u as %v: !stream.resource<external>{%c64}) -> (%arg0{%c256}, %arg1{%c256}) {
    %w:2 = stream.async.concurrent with(%x as %x2: !stream.resource<external>{%c256}, %y as %y2: !stream.resource<external>{%c256}, %v as %v2: !stream.resource<external>{%c64}) -> (%x{%c256}, %y{%c256}) {
      %0 = stream.async.update %v2, %x2[%c0 to %c64] : !stream.resource<external>{%c64} -> %x2 as !stream.resource<external>{%c256}
      %1 = stream.async.update %v2, %y2[%c64 to %c128] : !stream.resource<external>{%c64} -> %y2 as !stream.resource<external>{%c256}
      stream.yield %0, %1 : !stream.resource<external>{%c256}, !stream.resource<external>{%c256}
    }
    stream.yield %w#0, %w#1 : !stream.resource<external>{%c256}, !stream.resource<external>{%c256}
  } => !stream.timepoint
  %o:2 = stream.timepoint.await %t => %r#0, %r#1 : !stream.resource<external>{%c256}, !stream.resource<external>{%c256}
  util.return %o#0, %o#1 : !stream.resource<external>, !stream.resource<external>
}

// -----

// A result tied to a captured subview is that subview: its consumers read at the subview's offset (IREE #14685).
// CHECK-LABEL: @tiedCapturedSubview
util.func public @tiedCapturedSubview(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  // CHECK: %[[SUB:.+]] = stream.resource.subview %arg0[%c64] : !stream.resource<external>{%c256} -> !stream.resource<external>{%c128}
  // CHECK: %[[E0:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%[[SUB]] as %[[S:[^:]+]]: !stream.resource<external>{%c128})
  // CHECK-NEXT: stream.cmd.dispatch @ex::@scale
  // CHECK-NEXT: rw %[[S]][%c0 for %c128]
  // CHECK: stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%{{.+}}) => with(%[[SUB]] as %[[Y:[^:]+]]: !stream.resource<external>{%c128}, %{{.+}} as %[[O:[^:]+]]: !stream.resource<external>{%c128})
  // CHECK-NEXT: stream.cmd.dispatch @ex::@use
  // CHECK-NEXT: ro %[[Y]][%c0 for %c128]
  // CHECK-NEXT: wo %[[O]][%c0 for %c128]
  %sub = stream.resource.subview %arg0[%c64] : !stream.resource<external>{%c256} -> !stream.resource<external>{%c128}
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%sub as %s: !stream.resource<external>{%c128}) -> %sub{%c128} {
    %0 = stream.async.dispatch @ex::@scale(%s[%c0 to %c128 for %c128]) : (!stream.resource<external>{%c128}) -> %s{%c128}
    stream.yield %0 : !stream.resource<external>{%c128}
  } => !stream.timepoint
  %r2, %t2 = stream.async.execute on(#hal.device.affinity<@dev0>) await(%t) => with(%r as %y: !stream.resource<external>{%c128}) -> !stream.resource<external>{%c128} {
    %1 = stream.async.dispatch @ex::@use(%y[%c0 to %c128 for %c128]) : (!stream.resource<external>{%c128}) -> !stream.resource<external>{%c128}
    stream.yield %1 : !stream.resource<external>{%c128}
  } => !stream.timepoint
  %out = stream.timepoint.await %t2 => %r2 : !stream.resource<external>{%c128}
  util.return %out : !stream.resource<external>
}

// -----

// Bindings follow the operands in order (tied ones rw), then the untied results in result order (IREE #20819).
// CHECK-LABEL: @bindingOrder
util.func public @bindingOrder(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  // CHECK: %[[R1:.+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c32}
  // CHECK: %[[R2:.+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c16}
  // CHECK: stream.cmd.execute {{.+}} with(%arg0 as %[[A:[^:]+]]: {{.+}}, %arg1 as %[[B:[^:]+]]: {{.+}}, %[[R1]] as %[[O1:[^:]+]]: {{.+}}, %[[R2]] as %[[O2:[^:]+]]: {{.+}})
  // CHECK-NEXT: stream.cmd.dispatch @ex::@split[%c4](%c4 : index)
  // CHECK-NEXT: ro %[[A]][%c0 for %c16]
  // CHECK-NEXT: rw %[[B]][%c0 for %c16]
  // CHECK-NEXT: wo %[[O1]][%c0 for %c32]
  // CHECK-NEXT: wo %[[O2]][%c0 for %c16]
  // CHECK: stream.timepoint.await %{{.+}} => %arg1, %[[R1]], %[[R2]]
  %r:3, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c16}, %arg1 as %b: !stream.resource<external>{%c16}) -> (%arg1{%c16}, !stream.resource<external>{%c32}, !stream.resource<external>{%c16}) {
    %0:3 = stream.async.dispatch @ex::@split[%c4](%a[%c0 to %c16 for %c16], %c4, %b[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}, index, !stream.resource<external>{%c16}) -> (!stream.resource<external>{%c32}, %b{%c16}, !stream.resource<external>{%c16})
    stream.yield %0#1, %0#0, %0#2 : !stream.resource<external>{%c16}, !stream.resource<external>{%c32}, !stream.resource<external>{%c16}
  } => !stream.timepoint
  %o:3 = stream.timepoint.await %t => %r#0, %r#1, %r#2 : !stream.resource<external>{%c16}, !stream.resource<external>{%c32}, !stream.resource<external>{%c16}
  util.return %o#0, %o#1, %o#2 : !stream.resource<external>, !stream.resource<external>, !stream.resource<external>
}

// -----

// Transfers: invalidate before the copy of incoming data, flush after outgoing data, kept in order inside a wave.
// CHECK-LABEL: @transfers
util.func public @transfers(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // CHECK: %[[OUT:.+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.optimal<[#hal.device.affinity<@dev0>, #hal.device.affinity<@dev1>]>) : !stream.resource<transient>{%c64}
  // CHECK: stream.cmd.execute on(#hal.device.affinity<@dev1>) {{.+}} with(%arg0 as %[[A:[^:]+]]: {{.+}}, %arg1 as %[[B:[^:]+]]: {{.+}}, %[[OUT]] as %[[O:[^:]+]]: {{.+}}, %{{.+}} as %[[S:[^:]+]]: {{.+}})
  // CHECK-NEXT: stream.cmd.concurrent
  // CHECK-NEXT: stream.cmd.serial
  // CHECK-NEXT: stream.cmd.invalidate from(#hal.device.affinity<@dev0>) %[[A]][%c0 for %c64]
  // CHECK-NEXT: stream.cmd.copy %[[A]][%c0], %[[S]][%c0], %c64
  // CHECK: stream.cmd.serial
  // CHECK-NEXT: stream.cmd.invalidate from(#hal.device.affinity<@dev0>) %[[B]][%c0 for %c64]
  // CHECK-NEXT: stream.cmd.copy %[[B]][%c0], %[[S]][%c64], %c64
  // CHECK: stream.cmd.dispatch @ex::@add
  // CHECK: stream.cmd.copy %[[S]][%c128], %[[O]][%c0], %c64
  // CHECK-NEXT: stream.cmd.flush to(#hal.device.affinity<@dev0>) %[[O]][%c0 for %c64]
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev1>) with(%arg0 as %a: !stream.resource<external>{%c64}, %arg1 as %b: !stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64} {
    %w:2 = stream.async.concurrent with(%a as %a2: !stream.resource<external>{%c64}, %b as %b2: !stream.resource<external>{%c64}) -> (!stream.resource<transient>{%c64}, !stream.resource<transient>{%c64}) {
      %0 = stream.async.transfer %a2 : !stream.resource<external>{%c64} from(#hal.device.affinity<@dev0>) -> !stream.resource<transient>{%c64}
      %1 = stream.async.transfer %b2 : !stream.resource<external>{%c64} from(#hal.device.affinity<@dev0>) -> !stream.resource<transient>{%c64}
      stream.yield %0, %1 : !stream.resource<transient>{%c64}, !stream.resource<transient>{%c64}
    }
    %2 = stream.async.dispatch @ex::@add(%w#0[%c0 to %c64 for %c64], %w#1[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}, !stream.resource<transient>{%c64}) -> !stream.resource<transient>{%c64}
    %3 = stream.async.transfer %2 : !stream.resource<transient>{%c64} -> to(#hal.device.affinity<@dev0>) !stream.resource<transient>{%c64}
    stream.yield %3 : !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %out = stream.timepoint.await %t => %r : !stream.resource<transient>{%c64}
  util.return %out : !stream.resource<transient>
}

// -----

// Constants: one upload per region, read in place, copied out when written, and an escaping constant result is the upload.
// CHECK-LABEL: @constants
util.func public @constants(%arg0: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<constant>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // CHECK: %[[K:.+]]:3, %[[K_TP:.+]] = stream.resource.constants on(#hal.device.affinity<@dev0>) :
  // CHECK-NEXT: !stream.resource<constant>{%c64} = dense<1> : tensor<16xi32>,
  // CHECK-NEXT: !stream.resource<constant>{%c64} = dense<2> : tensor<16xi32>,
  // CHECK-NEXT: !stream.resource<constant>{%c64} = dense<3> : tensor<16xi32>
  // CHECK: %[[READY:.+]] = stream.timepoint.join max(%{{.+}}, %{{.+}}, %[[K_TP]])
  // CHECK: stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[READY]]) => with({{.+}}, %{{.+}} as %[[S:[^:]+]]: !stream.resource<transient>{%c64}, %[[K]]#0 as %[[K0:[^:]+]]: !stream.resource<constant>{%c64}, %[[K]]#1 as %[[K1:[^:]+]]: !stream.resource<constant>{%c64})
  // CHECK-NEXT: stream.cmd.copy %[[K1]][%c0], %[[S]][%c0], %c64
  // CHECK-NEXT: stream.cmd.dispatch @ex::@acc
  // CHECK-NEXT: ro %[[K0]][%c0 for %c64]
  // CHECK-NEXT: rw %[[S]][%c0 for %c64]
  // CHECK: stream.timepoint.await %{{.+}} => %{{.+}}, %[[K]]#2
  %r:2, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c64}) -> (!stream.resource<external>{%c64}, !stream.resource<constant>{%c64}) {
    %k = stream.async.constant : !stream.resource<constant>{%c64} = dense<1> : tensor<16xi32>
    %w = stream.async.constant : !stream.resource<transient>{%c64} = dense<2> : tensor<16xi32>
    %e = stream.async.constant : !stream.resource<constant>{%c64} = dense<3> : tensor<16xi32>
    %0 = stream.async.dispatch @ex::@acc(%k[%c0 to %c64 for %c64], %w[%c0 to %c64 for %c64]) : (!stream.resource<constant>{%c64}, !stream.resource<transient>{%c64}) -> %w{%c64}
    %1 = stream.async.dispatch @ex::@out(%0[%c0 to %c64 for %c64], %a[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}, !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %1, %e : !stream.resource<external>{%c64}, !stream.resource<constant>{%c64}
  } => !stream.timepoint
  %o:2 = stream.timepoint.await %t => %r#0, %r#1 : !stream.resource<external>{%c64}, !stream.resource<constant>{%c64}
  util.return %o#0, %o#1 : !stream.resource<external>, !stream.resource<constant>
}

// -----

// Dynamic slice sizes keep a stream.resource.pack with the lifetime intervals; its offsets are symbolic.
// CHECK-LABEL: @dynamicSlab
util.func public @dynamicSlab(%arg0: !stream.resource<external>, %n: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c0_i8 = arith.constant 0 : i8
  // CHECK: %[[PACK:.+]]:3 = stream.resource.pack on(#hal.device.affinity<@dev0>) slices({
  // CHECK-NEXT: [0, 1] = %n,
  // CHECK-NEXT: [1, 2] = %n
  // CHECK-NEXT: }) : index
  // CHECK: %[[SLAB:.+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%[[PACK]]#0}
  // CHECK: stream.cmd.fill %c0_i8, %[[S:.+]][%[[PACK]]#1 for %n]
  // CHECK: ro %[[S]][%[[PACK]]#1 for %n]
  // CHECK-NEXT: wo %[[S]][%[[PACK]]#2 for %n]
  // CHECK: stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%{{.+}}) => %[[SLAB]] : !stream.resource<transient>{%[[PACK]]#0}
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%n}) -> !stream.resource<external>{%n} {
    %s = stream.async.splat %c0_i8 : i8 -> !stream.resource<transient>{%n}
    %0 = stream.async.dispatch @ex::@k(%a[%c0 to %n for %n], %s[%c0 to %n for %n]) : (!stream.resource<external>{%n}, !stream.resource<transient>{%n}) -> !stream.resource<transient>{%n}
    %1 = stream.async.dispatch @ex::@k2(%0[%c0 to %n for %n]) : (!stream.resource<transient>{%n}) -> !stream.resource<external>{%n}
    stream.yield %1 : !stream.resource<external>{%n}
  } => !stream.timepoint
  %out = stream.timepoint.await %t => %r : !stream.resource<external>{%n}
  util.return %out : !stream.resource<external>
}

// -----

// Host reads and writes of staging memory become resource.load and resource.store.
// CHECK-LABEL: @hostAccess
util.func public @hostAccess(%arg0: !stream.resource<staging>) -> i32 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c7_i32 = arith.constant 7 : i32
  // CHECK: stream.resource.store %c7_i32, %arg0[%c4] : i32 -> !stream.resource<staging>{%c16}
  // CHECK-NEXT: %[[V:.+]] = stream.resource.load %arg0[%c0] : !stream.resource<staging>{%c16} -> i32
  // CHECK-NEXT: util.return %[[V]]
  %0 = stream.async.store %c7_i32, %arg0[%c4] : i32 -> %arg0 as !stream.resource<staging>{%c16}
  %1 = stream.async.load %0[%c0] : !stream.resource<staging>{%c16} -> i32
  util.return %1 : i32
}

// -----

// A wave result nobody reads still gets bytes for its writer, live for the wave only.
// CHECK-LABEL: @unusedWaveResult
util.func public @unusedWaveResult(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // CHECK: %[[SLAB:.+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64}
  // CHECK: stream.cmd.concurrent
  // CHECK: stream.cmd.dispatch @ex::@f
  // CHECK: stream.cmd.dispatch @ex::@g
  // CHECK-NEXT: ro
  // CHECK-NEXT: wo %{{.+}}[%c0 for %c64] : !stream.resource<transient>{%c64}
  // CHECK: stream.resource.dealloca {{.+}} => %[[SLAB]]
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %w:2 = stream.async.concurrent with(%a as %a2: !stream.resource<external>{%c64}) -> (!stream.resource<external>{%c64}, !stream.resource<transient>{%c64}) {
      %0 = stream.async.dispatch @ex::@f(%a2[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
      %1 = stream.async.dispatch @ex::@g(%a2[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
      stream.yield %0, %1 : !stream.resource<external>{%c64}, !stream.resource<transient>{%c64}
    }
    stream.yield %w#0 : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %out = stream.timepoint.await %t => %r : !stream.resource<external>{%c64}
  util.return %out : !stream.resource<external>
}

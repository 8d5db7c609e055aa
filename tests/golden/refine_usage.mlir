// RUN: streamproof compile %s --pass-pipeline=refine-usage --split-input-file | filecheck %s

// Imports are external, so their casts fold; a value only dispatches touch is transient; a value that is exported is external, and the cast before the export folds (external beats transient: IREE's conflictResolution).
util.func public @lifetimes(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %1 = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
  %2 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%1[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
  %3 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%2[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
  %4 = stream.async.cast on(#hal.device.affinity<@dev0>) %3 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %5 = stream.tensor.export on(#hal.device.affinity<@dev0>) %4 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %5 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @lifetimes
// CHECK-NOT: stream.async.cast
// CHECK: %[[X:.+]] = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
// CHECK: %[[A:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%[[X]][%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
// CHECK: %[[B:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%[[A]][%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
// CHECK: stream.tensor.export on(#hal.device.affinity<@dev0>) %[[B]] : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view

// -----

// Values that share storage through ties get one lifetime: a chain of in-place writes ending in an export is external from its start (IREE's transitionTypesAcrossTies); a constant is constant and its written copy transient.
util.func public @ties(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1_i32 = arith.constant 1 : i32
  %0 = stream.async.constant on(#hal.device.affinity<@dev0>) : !stream.resource<*>{%c8} = dense<[1, 2]> : tensor<2xi32>
  %1 = stream.async.clone on(#hal.device.affinity<@dev0>) %0 : !stream.resource<*>{%c8} -> !stream.resource<*>{%c8}
  %2 = stream.async.fill on(#hal.device.affinity<@dev0>) %c1_i32, %1[%c0 to %c8 for %c8] : i32 -> %1 as !stream.resource<*>{%c8}
  %3 = stream.async.splat on(#hal.device.affinity<@dev0>) %c1_i32 : i32 -> !stream.resource<*>{%c8}
  %4 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%3[%c0 to %c8 for %c8], %2[%c0 to %c8 for %c8], %0[%c0 to %c8 for %c8]) : (!stream.resource<*>{%c8}, !stream.resource<*>{%c8}, !stream.resource<*>{%c8}) -> %3{%c8}
  %5 = stream.async.cast on(#hal.device.affinity<@dev0>) %4 : !stream.resource<*>{%c8} -> !stream.resource<external>{%c8}
  %6 = stream.tensor.export on(#hal.device.affinity<@dev0>) %5 : tensor<2xi32> in !stream.resource<external>{%c8} -> !hal.buffer_view
  util.return %6 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @ties
// CHECK: %[[K:.+]] = stream.async.constant on(#hal.device.affinity<@dev0>) : !stream.resource<constant>{%c8}
// CHECK: %[[KC:.+]] = stream.async.clone on(#hal.device.affinity<@dev0>) %[[K]] : !stream.resource<constant>{%c8} -> !stream.resource<transient>{%c8}
// CHECK: %[[F:.+]] = stream.async.fill on(#hal.device.affinity<@dev0>) %c1_i32, %[[KC]][%c0 to %c8 for %c8] : i32 -> %[[KC]] as !stream.resource<transient>{%c8}
// CHECK: %[[S:.+]] = stream.async.splat on(#hal.device.affinity<@dev0>) %c1_i32 : i32 -> !stream.resource<external>{%c8}
// CHECK: %[[D:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%[[S]][{{.+}}], %[[F]][{{.+}}], %[[K]][{{.+}}]) : (!stream.resource<external>{%c8}, !stream.resource<transient>{%c8}, !stream.resource<constant>{%c8}) -> %[[S]]{%c8}
// CHECK: stream.tensor.export on(#hal.device.affinity<@dev0>) %[[D]] : tensor<2xi32> in !stream.resource<external>{%c8}

// -----

// Host loads read staging resources; a load of a device value gets a transfer to staging on the value's device (a lifetime conflict resolved by a transfer).
util.func public @staging(%arg0: !hal.buffer_view) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev1>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %1 = stream.async.cast on(#hal.device.affinity<@dev1>) %0 : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
  %2 = stream.async.dispatch on(#hal.device.affinity<@dev1>) @relu(%1[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
  %3 = stream.async.transfer on(#hal.device.affinity<@dev1>) %2 : !stream.resource<*>{%c16} from(#hal.device.affinity<@dev1>) -> to(#hal.device.affinity<@dev1>) !stream.resource<staging>{%c16}
  %4 = stream.async.load %3[%c0] : !stream.resource<staging>{%c16} -> f32
  %5 = stream.async.load %2[%c0] : !stream.resource<*>{%c16} -> f32
  util.return %4, %5 : f32, f32
}
// CHECK-LABEL: util.func public @staging
// CHECK: %[[R:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev1>) @relu({{.+}}) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
// CHECK: %[[ST:.+]] = stream.async.transfer on(#hal.device.affinity<@dev1>) %[[R]] : !stream.resource<transient>{%c16} from(#hal.device.affinity<@dev1>) -> to(#hal.device.affinity<@dev1>) !stream.resource<staging>{%c16}
// CHECK: stream.async.load %[[ST]][%c0] : !stream.resource<staging>{%c16} -> f32
// CHECK: %[[ST2:.+]] = stream.async.transfer on(#hal.device.affinity<@dev1>) %[[R]] : !stream.resource<transient>{%c16} from(#hal.device.affinity<@dev1>) -> to(#hal.device.affinity<@dev1>) !stream.resource<staging>{%c16}
// CHECK: stream.async.load %[[ST2]][%c0] : !stream.resource<staging>{%c16} -> f32

// -----

// Other conflicts: a constant written in place is first transferred to a writable copy (IREE's transferResolution); a dispatch never reads staging memory directly.
util.func public @conflicts(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c5_i32 = arith.constant 5 : i32
  %0 = stream.async.constant on(#hal.device.affinity<@dev0>) : !stream.resource<constant>{%c8} = dense<[1, 2]> : tensor<2xi32>
  %1 = stream.async.fill on(#hal.device.affinity<@dev0>) %c5_i32, %0[%c0 to %c8 for %c8] : i32 -> %0 as !stream.resource<constant>{%c8}
  %2 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<2xi32> in !stream.resource<staging>{%c8}
  %3 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%1[%c0 to %c8 for %c8], %2[%c0 to %c8 for %c8]) : (!stream.resource<constant>{%c8}, !stream.resource<staging>{%c8}) -> !stream.resource<*>{%c8}
  %4 = stream.async.cast on(#hal.device.affinity<@dev0>) %3 : !stream.resource<*>{%c8} -> !stream.resource<external>{%c8}
  %5 = stream.tensor.export on(#hal.device.affinity<@dev0>) %4 : tensor<2xi32> in !stream.resource<external>{%c8} -> !hal.buffer_view
  util.return %5 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @conflicts
// CHECK: %[[K:.+]] = stream.async.constant on(#hal.device.affinity<@dev0>) : !stream.resource<constant>{%c8}
// CHECK: %[[W:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[K]] : !stream.resource<constant>{%c8} {{.+}} -> to(#hal.device.affinity<@dev0>) !stream.resource<transient>{%c8}
// CHECK: %[[F:.+]] = stream.async.fill on(#hal.device.affinity<@dev0>) %c5_i32, %[[W]][%c0 to %c8 for %c8] : i32 -> %[[W]] as !stream.resource<transient>{%c8}
// CHECK: %[[IN:.+]] = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<2xi32> in !stream.resource<staging>{%c8}
// CHECK: %[[DEV:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[IN]] : !stream.resource<staging>{%c8} {{.+}} -> to(#hal.device.affinity<@dev0>) !stream.resource<transient>{%c8}
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%[[F]][%c0 to %c8 for %c8], %[[DEV]][%c0 to %c8 for %c8]) : (!stream.resource<transient>{%c8}, !stream.resource<transient>{%c8}) -> !stream.resource<external>{%c8}

// -----

// A transfer between devices keeps its copy and its result is transient; one within a device whose two sides both end up external is a no-op and goes; a cast between two fixed lifetimes becomes a transfer.
util.func public @transfers(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %1 = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
  %2 = stream.async.transfer on(#hal.device.affinity<@dev0>) %1 : !stream.resource<*>{%c16} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev1>) !stream.resource<*>{%c16}
  %3 = stream.async.dispatch on(#hal.device.affinity<@dev1>) @relu(%2[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
  %4 = stream.async.transfer on(#hal.device.affinity<@dev1>) %3 : !stream.resource<*>{%c16} from(#hal.device.affinity<@dev1>) -> to(#hal.device.affinity<@dev1>) !stream.resource<*>{%c16}
  %5 = stream.async.cast on(#hal.device.affinity<@dev1>) %4 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %6 = stream.tensor.export on(#hal.device.affinity<@dev1>) %5 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  %7 = stream.async.cast on(#hal.device.affinity<@dev1>) %3 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %8 = stream.tensor.export on(#hal.device.affinity<@dev1>) %7 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  %9 = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<external>{%c16} -> !stream.resource<staging>{%c16}
  %10 = stream.tensor.export on(#hal.device.affinity<@dev0>) %9 : tensor<4xf32> in !stream.resource<staging>{%c16} -> !hal.buffer_view
  util.return %6, %8, %10 : !hal.buffer_view, !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @transfers
// CHECK: %[[X:.+]] = stream.tensor.import
// CHECK: %[[T:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[X]] : !stream.resource<external>{%c16} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev1>) !stream.resource<transient>{%c16}
// CHECK: %[[R:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev1>) @relu(%[[T]]{{.+}} -> !stream.resource<external>{%c16}
// CHECK-NOT: stream.async.transfer {{.+}} %[[R]]
// CHECK: stream.tensor.export on(#hal.device.affinity<@dev1>) %[[R]]
// CHECK: stream.tensor.export on(#hal.device.affinity<@dev1>) %[[R]]
// CHECK: %[[ST:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[X]] : !stream.resource<external>{%c16} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<staging>{%c16}
// CHECK: stream.tensor.export on(#hal.device.affinity<@dev0>) %[[ST]] : tensor<4xf32> in !stream.resource<staging>{%c16}

// -----

// Resource-typed arguments and results cross the function boundary, so they are external.
util.func public @arguments(%arg0: !stream.resource<*>) -> !stream.resource<*> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %0 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%arg0[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
  util.return %0 : !stream.resource<*>
}
// CHECK-LABEL: util.func public @arguments(%arg0: !stream.resource<external>) -> !stream.resource<external>
// CHECK: %[[R:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%arg0[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
// CHECK: util.return %[[R]] : !stream.resource<external>

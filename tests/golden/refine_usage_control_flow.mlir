// RUN: streamproof compile %s --pass-pipeline=refine-usage --split-input-file | filecheck %s

// What a loop carries gets one lifetime with its initial values, yields and results (external here: the results are exported).
util.func public @decode(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view, %steps: index) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %c4096 = arith.constant 4096 : index
  %c512 = arith.constant 512 : index
  %c8192 = arith.constant 8192 : index
  %c1024 = arith.constant 1024 : index
  %c256 = arith.constant 256 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %arg0 : !hal.buffer_view -> tensor<16x64xf32> in !stream.resource<external>{%c4096}
  %cache = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<external>{%c4096} -> !stream.resource<*>{%c4096}
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg1 : !hal.buffer_view -> tensor<4x32xf32> in !stream.resource<external>{%c512}
  %x = stream.async.cast on(#hal.device.affinity<@dev0>) %1 : !stream.resource<external>{%c512} -> !stream.resource<*>{%c512}
  %2 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg2 : !hal.buffer_view -> tensor<32x64xf32> in !stream.resource<external>{%c8192}
  %w = stream.async.cast on(#hal.device.affinity<@dev0>) %2 : !stream.resource<external>{%c8192} -> !stream.resource<*>{%c8192}
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%kv = %cache, %h = %x) -> (!stream.resource<*>, !stream.resource<*>) {
    %k = stream.async.dispatch on(#hal.device.affinity<@dev0>) @matmul(%h[%c0 to %c512 for %c512], %w[%c0 to %c8192 for %c8192]) {streamproof.binding_types = [tensor<4x32xf32>, tensor<32x64xf32>, tensor<4x64xf32>]} : (!stream.resource<*>{%c512}, !stream.resource<*>{%c8192}) -> !stream.resource<*>{%c1024}
    %p = arith.muli %i, %c4 : index
    %row = arith.minui %p, %c12 : index
    %7 = stream.async.clone on(#hal.device.affinity<@dev0>) %kv : !stream.resource<*>{%c4096} -> !stream.resource<*>{%c4096}
    %8 = arith.muli %row, %c256 : index
    %9 = arith.addi %8, %c1024 : index
    %kv2 = stream.async.update on(#hal.device.affinity<@dev0>) %k, %7[%8 to %9] : !stream.resource<*>{%c1024} -> %7 as !stream.resource<*>{%c4096}
    %h2 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%h[%c0 to %c512 for %c512]) {streamproof.binding_types = [tensor<4x32xf32>, tensor<4x32xf32>]} : (!stream.resource<*>{%c512}) -> !stream.resource<*>{%c512}
    scf.yield %kv2, %h2 : !stream.resource<*>, !stream.resource<*>
  }
  %3 = stream.async.cast on(#hal.device.affinity<@dev0>) %r#0 : !stream.resource<*>{%c4096} -> !stream.resource<external>{%c4096}
  %4 = stream.tensor.export on(#hal.device.affinity<@dev0>) %3 : tensor<16x64xf32> in !stream.resource<external>{%c4096} -> !hal.buffer_view
  %5 = stream.async.cast on(#hal.device.affinity<@dev0>) %r#1 : !stream.resource<*>{%c512} -> !stream.resource<external>{%c512}
  %6 = stream.tensor.export on(#hal.device.affinity<@dev0>) %5 : tensor<4x32xf32> in !stream.resource<external>{%c512} -> !hal.buffer_view
  util.return %4, %6 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @decode
// CHECK: scf.for %i = %c0 to %steps step %c1 iter_args(%kv = %0, %h = %1) -> (!stream.resource<external>, !stream.resource<external>) {
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @matmul({{.+}}) -> !stream.resource<transient>{%c1024}
// CHECK: scf.yield %kv2, %h2 : !stream.resource<external>, !stream.resource<external>
// CHECK-NOT: !stream.resource<*>

// RUN: streamproof compile %s --pass-pipeline=schedule-execution --split-input-file | filecheck %s

// A loop body is partitioned on its own; what it yields is awaited before scf.yield (propagate-timepoints carries the timepoint instead).
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
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg1 : !hal.buffer_view -> tensor<4x32xf32> in !stream.resource<external>{%c512}
  %2 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg2 : !hal.buffer_view -> tensor<32x64xf32> in !stream.resource<external>{%c8192}
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%kv = %0, %h = %1) -> (!stream.resource<external>, !stream.resource<external>) {
    %k = stream.async.dispatch on(#hal.device.affinity<@dev0>) @matmul(%h[%c0 to %c512 for %c512], %2[%c0 to %c8192 for %c8192]) {streamproof.binding_types = [tensor<4x32xf32>, tensor<32x64xf32>, tensor<4x64xf32>]} : (!stream.resource<external>{%c512}, !stream.resource<external>{%c8192}) -> !stream.resource<transient>{%c1024}
    %p = arith.muli %i, %c4 : index
    %row = arith.minui %p, %c12 : index
    %5 = stream.async.clone on(#hal.device.affinity<@dev0>) %kv : !stream.resource<external>{%c4096} -> !stream.resource<external>{%c4096}
    %6 = arith.muli %row, %c256 : index
    %7 = arith.addi %6, %c1024 : index
    %kv2 = stream.async.update on(#hal.device.affinity<@dev0>) %k, %5[%6 to %7] : !stream.resource<transient>{%c1024} -> %5 as !stream.resource<external>{%c4096}
    %h2 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%h[%c0 to %c512 for %c512]) {streamproof.binding_types = [tensor<4x32xf32>, tensor<4x32xf32>]} : (!stream.resource<external>{%c512}) -> !stream.resource<external>{%c512}
    scf.yield %kv2, %h2 : !stream.resource<external>, !stream.resource<external>
  }
  %3 = stream.tensor.export on(#hal.device.affinity<@dev0>) %r#0 : tensor<16x64xf32> in !stream.resource<external>{%c4096} -> !hal.buffer_view
  %4 = stream.tensor.export on(#hal.device.affinity<@dev0>) %r#1 : tensor<4x32xf32> in !stream.resource<external>{%c512} -> !hal.buffer_view
  util.return %3, %4 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @decode
// CHECK: scf.for %i = %c0 to %steps step %c1 iter_args(%kv = %0, %h = %1)
// CHECK: %results:2, %result_timepoint = stream.async.execute on(#hal.device.affinity<@dev0>) with(%h as %{{.+}}, %2 as %{{.+}}, %kv as
// CHECK: %[[A:.+]]:2 = stream.timepoint.await %result_timepoint => %results#0, %results#1
// CHECK: scf.yield %[[A]]#0, %[[A]]#1

// -----

// Each branch is partitioned on its own; the region before the branch is awaited for the host load of the condition.
util.func public @pick(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %c16 = arith.constant 16 : index
  %c4 = arith.constant 4 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg1 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %s = stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%0[%c0 to %c16 for %c16], %1[%c0 to %c16 for %c16]) {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>, tensor<4xf32>]} : (!stream.resource<external>{%c16}, !stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
  %2 = stream.async.slice on(#hal.device.affinity<@dev0>) %s[%c0 to %c4] : !stream.resource<transient>{%c16} -> !stream.resource<transient>{%c4}
  %3 = stream.async.transfer on(#hal.device.affinity<@dev0>) %2 : !stream.resource<transient>{%c4} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<staging>{%c4}
  %v = stream.async.load %3[%c0] : !stream.resource<staging>{%c4} -> f32
  %p = arith.cmpf ogt, %v, %zero : f32
  %r = scf.if %p -> (!stream.resource<external>) {
    %a = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%s[%c0 to %c16 for %c16]) {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]} : (!stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
    scf.yield %a : !stream.resource<external>
  } else {
    scf.yield %0 : !stream.resource<external>
  }
  %4 = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %4 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @pick
// CHECK: stream.async.execute on(#hal.device.affinity<@dev0>)
// CHECK: stream.timepoint.await
// CHECK: stream.async.load
// CHECK: scf.if %p -> (!stream.resource<external>) {
// CHECK: stream.async.execute on(#hal.device.affinity<@dev0>)
// CHECK: stream.timepoint.await
// CHECK: scf.yield
// CHECK: } else {

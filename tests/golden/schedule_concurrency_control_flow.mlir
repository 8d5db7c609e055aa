// RUN: streamproof compile %s --pass-pipeline=schedule-concurrency --split-input-file | filecheck %s

// The independent matmul and tanh of a loop body's region run as one wave.
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
    %p = arith.muli %i, %c4 : index
    %row = arith.minui %p, %c12 : index
    %5 = arith.muli %row, %c256 : index
    %6 = arith.addi %5, %c1024 : index
    %results:2, %result_timepoint = stream.async.execute on(#hal.device.affinity<@dev0>) with(%h as %arg3: !stream.resource<external>{%c512}, %2 as %arg4: !stream.resource<external>{%c8192}, %kv as %arg5: !stream.resource<external>{%c4096}) -> (!stream.resource<external>{%c4096}, !stream.resource<external>{%c512}) {
      %8 = stream.async.dispatch @matmul(%arg3[%c0 to %c512 for %c512], %arg4[%c0 to %c8192 for %c8192]) {streamproof.binding_types = [tensor<4x32xf32>, tensor<32x64xf32>, tensor<4x64xf32>]} : (!stream.resource<external>{%c512}, !stream.resource<external>{%c8192}) -> !stream.resource<transient>{%c1024}
      %9 = stream.async.clone %arg5 : !stream.resource<external>{%c4096} -> !stream.resource<external>{%c4096}
      %10 = stream.async.update %8, %9[%5 to %6] : !stream.resource<transient>{%c1024} -> %9 as !stream.resource<external>{%c4096}
      %11 = stream.async.dispatch @tanh(%arg3[%c0 to %c512 for %c512]) {streamproof.binding_types = [tensor<4x32xf32>, tensor<4x32xf32>]} : (!stream.resource<external>{%c512}) -> !stream.resource<external>{%c512}
      stream.yield %10, %11 : !stream.resource<external>{%c4096}, !stream.resource<external>{%c512}
    } => !stream.timepoint
    %7:2 = stream.timepoint.await %result_timepoint => %results#0, %results#1 : !stream.resource<external>{%c4096}, !stream.resource<external>{%c512}
    scf.yield %7#0, %7#1 : !stream.resource<external>, !stream.resource<external>
  }
  %3 = stream.tensor.export on(#hal.device.affinity<@dev0>) %r#0 : tensor<16x64xf32> in !stream.resource<external>{%c4096} -> !hal.buffer_view
  %4 = stream.tensor.export on(#hal.device.affinity<@dev0>) %r#1 : tensor<4x32xf32> in !stream.resource<external>{%c512} -> !hal.buffer_view
  util.return %3, %4 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @decode
// CHECK: scf.for
// CHECK: stream.async.execute
// CHECK: stream.async.concurrent
// CHECK: scf.yield

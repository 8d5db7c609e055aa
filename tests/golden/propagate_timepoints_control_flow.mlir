// RUN: streamproof compile %s --pass-pipeline=propagate-timepoints --split-input-file | filecheck %s

// Each carried resource is carried with a timepoint; the body's region waits for it on the device; the host waits only after the loop.
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
      %8:2 = stream.async.concurrent with(%arg3 as %arg6: !stream.resource<external>{%c512}, %arg4 as %arg7: !stream.resource<external>{%c8192}, %arg5 as %arg8: !stream.resource<external>{%c4096}) -> (!stream.resource<transient>{%c1024}, !stream.resource<external>{%c4096}) {
        %10 = stream.async.dispatch @matmul(%arg6[%c0 to %c512 for %c512], %arg7[%c0 to %c8192 for %c8192]) {streamproof.binding_types = [tensor<4x32xf32>, tensor<32x64xf32>, tensor<4x64xf32>]} : (!stream.resource<external>{%c512}, !stream.resource<external>{%c8192}) -> !stream.resource<transient>{%c1024}
        %11 = stream.async.clone %arg8 : !stream.resource<external>{%c4096} -> !stream.resource<external>{%c4096}
        stream.yield %10, %11 : !stream.resource<transient>{%c1024}, !stream.resource<external>{%c4096}
      }
      %9:2 = stream.async.concurrent with(%8#1 as %arg6: !stream.resource<external>{%c4096}, %8#0 as %arg7: !stream.resource<transient>{%c1024}, %arg3 as %arg8: !stream.resource<external>{%c512}) -> (%8#1{%c4096}, !stream.resource<external>{%c512}) {
        %10 = stream.async.update %arg7, %arg6[%5 to %6] : !stream.resource<transient>{%c1024} -> %arg6 as !stream.resource<external>{%c4096}
        %11 = stream.async.dispatch @tanh(%arg8[%c0 to %c512 for %c512]) {streamproof.binding_types = [tensor<4x32xf32>, tensor<4x32xf32>]} : (!stream.resource<external>{%c512}) -> !stream.resource<external>{%c512}
        stream.yield %10, %11 : !stream.resource<external>{%c4096}, !stream.resource<external>{%c512}
      }
      stream.yield %9#0, %9#1 : !stream.resource<external>{%c4096}, !stream.resource<external>{%c512}
    } => !stream.timepoint
    %7:2 = stream.timepoint.await %result_timepoint => %results#0, %results#1 : !stream.resource<external>{%c4096}, !stream.resource<external>{%c512}
    scf.yield %7#0, %7#1 : !stream.resource<external>, !stream.resource<external>
  }
  %3 = stream.tensor.export on(#hal.device.affinity<@dev0>) %r#0 : tensor<16x64xf32> in !stream.resource<external>{%c4096} -> !hal.buffer_view
  %4 = stream.tensor.export on(#hal.device.affinity<@dev0>) %r#1 : tensor<4x32xf32> in !stream.resource<external>{%c512} -> !hal.buffer_view
  util.return %3, %4 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @decode
// CHECK: %r:4 = scf.for %i = %c0 to %steps step %c1 iter_args(%kv = %0, %h = %1, %[[T0:.+]] = %{{.+}}, %[[T1:.+]] = %{{.+}}) -> (!stream.resource<external>, !stream.resource<external>, !stream.timepoint, !stream.timepoint) {
// CHECK: stream.async.execute on(#hal.device.affinity<@dev0>) await(
// CHECK-NOT: stream.timepoint.await
// CHECK: scf.yield %results#0, %results#1, %{{.+}}, %{{.+}} : !stream.resource<external>, !stream.resource<external>, !stream.timepoint, !stream.timepoint
// CHECK: stream.timepoint.await %r#2 => %r#0
// CHECK: stream.timepoint.await %r#3 => %r#1

// -----

// A branch yields its resource with a timepoint (an immediate for the branch that computes nothing).
util.func public @pick(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %c16 = arith.constant 16 : index
  %c4 = arith.constant 4 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg1 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %results:2, %result_timepoint = stream.async.execute on(#hal.device.affinity<@dev0>) with(%0 as %arg2: !stream.resource<external>{%c16}, %1 as %arg3: !stream.resource<external>{%c16}) -> (!stream.resource<transient>{%c16}, !stream.resource<staging>{%c4}) {
    %4 = stream.async.dispatch @add(%arg2[%c0 to %c16 for %c16], %arg3[%c0 to %c16 for %c16]) {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>, tensor<4xf32>]} : (!stream.resource<external>{%c16}, !stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
    %5 = stream.async.slice %4[%c0 to %c4] : !stream.resource<transient>{%c16} -> !stream.resource<transient>{%c4}
    %6 = stream.async.transfer %5 : !stream.resource<transient>{%c4} -> !stream.resource<staging>{%c4}
    stream.yield %4, %6 : !stream.resource<transient>{%c16}, !stream.resource<staging>{%c4}
  } => !stream.timepoint
  %2:2 = stream.timepoint.await %result_timepoint => %results#1, %results#0 : !stream.resource<staging>{%c4}, !stream.resource<transient>{%c16}
  %v = stream.async.load %2#0[%c0] : !stream.resource<staging>{%c4} -> f32
  %p = arith.cmpf ogt, %v, %zero : f32
  %r = scf.if %p -> (!stream.resource<external>) {
    %results_0, %result_timepoint_1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%2#1 as %arg2: !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16} {
      %5 = stream.async.dispatch @tanh(%arg2[%c0 to %c16 for %c16]) {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]} : (!stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
      stream.yield %5 : !stream.resource<external>{%c16}
    } => !stream.timepoint
    %4 = stream.timepoint.await %result_timepoint_1 => %results_0 : !stream.resource<external>{%c16}
    scf.yield %4 : !stream.resource<external>
  } else {
    scf.yield %0 : !stream.resource<external>
  }
  %3 = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %3 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @pick
// CHECK: %r:2 = scf.if %p -> (!stream.resource<external>, !stream.timepoint) {
// CHECK: %[[R:.+]], %[[T:.+]] = stream.async.execute
// CHECK: scf.yield %[[R]], %[[T]] : !stream.resource<external>, !stream.timepoint
// CHECK: } else {
// CHECK: %[[I:.+]] = stream.timepoint.immediate
// CHECK: scf.yield %{{.+}}, %[[I]]
// CHECK: stream.timepoint.await %r#1 => %r#0

// RUN: streamproof compile %s --pass-pipeline=schedule-allocation --split-input-file | filecheck %s

// A region in a loop body allocates its results in every iteration, after the carried timepoint; the copy of the carried cache becomes a cmd.copy.
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
  %3 = stream.timepoint.immediate => !stream.timepoint
  %r:4 = scf.for %i = %c0 to %steps step %c1 iter_args(%kv = %0, %h = %1, %arg3 = %3, %arg4 = %3) -> (!stream.resource<external>, !stream.resource<external>, !stream.timepoint, !stream.timepoint) {
    %p = arith.muli %i, %c4 : index
    %row = arith.minui %p, %c12 : index
    %8 = arith.muli %row, %c256 : index
    %9 = arith.addi %8, %c1024 : index
    %10 = stream.timepoint.join max(%arg3, %arg4) => !stream.timepoint
    %results:2, %result_timepoint = stream.async.execute on(#hal.device.affinity<@dev0>) await(%10) => with(%h as %arg5: !stream.resource<external>{%c512}, %2 as %arg6: !stream.resource<external>{%c8192}, %kv as %arg7: !stream.resource<external>{%c4096}) -> (!stream.resource<external>{%c4096}, !stream.resource<external>{%c512}) {
      %11:2 = stream.async.concurrent with(%arg5 as %arg8: !stream.resource<external>{%c512}, %arg6 as %arg9: !stream.resource<external>{%c8192}, %arg7 as %arg10: !stream.resource<external>{%c4096}) -> (!stream.resource<transient>{%c1024}, !stream.resource<external>{%c4096}) {
        %13 = stream.async.dispatch @matmul(%arg8[%c0 to %c512 for %c512], %arg9[%c0 to %c8192 for %c8192]) {streamproof.binding_types = [tensor<4x32xf32>, tensor<32x64xf32>, tensor<4x64xf32>]} : (!stream.resource<external>{%c512}, !stream.resource<external>{%c8192}) -> !stream.resource<transient>{%c1024}
        %14 = stream.async.clone %arg10 : !stream.resource<external>{%c4096} -> !stream.resource<external>{%c4096}
        stream.yield %13, %14 : !stream.resource<transient>{%c1024}, !stream.resource<external>{%c4096}
      }
      %12:2 = stream.async.concurrent with(%11#1 as %arg8: !stream.resource<external>{%c4096}, %11#0 as %arg9: !stream.resource<transient>{%c1024}, %arg5 as %arg10: !stream.resource<external>{%c512}) -> (%11#1{%c4096}, !stream.resource<external>{%c512}) {
        %13 = stream.async.update %arg9, %arg8[%8 to %9] : !stream.resource<transient>{%c1024} -> %arg8 as !stream.resource<external>{%c4096}
        %14 = stream.async.dispatch @tanh(%arg10[%c0 to %c512 for %c512]) {streamproof.binding_types = [tensor<4x32xf32>, tensor<4x32xf32>]} : (!stream.resource<external>{%c512}) -> !stream.resource<external>{%c512}
        stream.yield %13, %14 : !stream.resource<external>{%c4096}, !stream.resource<external>{%c512}
      }
      stream.yield %12#0, %12#1 : !stream.resource<external>{%c4096}, !stream.resource<external>{%c512}
    } => !stream.timepoint
    scf.yield %results#0, %results#1, %result_timepoint, %result_timepoint : !stream.resource<external>, !stream.resource<external>, !stream.timepoint, !stream.timepoint
  }
  %4 = stream.timepoint.await %r#2 => %r#0 : !stream.resource<external>{%c4096}
  %5 = stream.tensor.export on(#hal.device.affinity<@dev0>) %4 : tensor<16x64xf32> in !stream.resource<external>{%c4096} -> !hal.buffer_view
  %6 = stream.timepoint.await %r#3 => %r#1 : !stream.resource<external>{%c512}
  %7 = stream.tensor.export on(#hal.device.affinity<@dev0>) %6 : tensor<4x32xf32> in !stream.resource<external>{%c512} -> !hal.buffer_view
  util.return %5, %7 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @decode
// CHECK: scf.for %i = %c0 to %steps step %c1 iter_args(%kv = %0, %h = %1, %[[T0:[a-z0-9]+]] = %{{.+}}, %{{[a-z0-9]+}} = %{{.+}})
// CHECK: %[[J:.+]] = stream.timepoint.join max(%[[T0]], %{{.+}})
// CHECK: stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%[[J]])
// CHECK: stream.cmd.execute on(#hal.device.affinity<@dev0>) await(
// CHECK: stream.cmd.copy
// CHECK: scf.yield

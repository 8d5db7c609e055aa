// RUN: streamproof compile %s --pass-pipeline=automatic-reference-counting --split-input-file | filecheck %s

// A transient a loop iteration allocates and uses is freed in that iteration.
util.func public @recur(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4x8xf32> in !stream.resource<external>{%c128}
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg1 : !hal.buffer_view -> tensor<8x8xf32> in !stream.resource<external>{%c256}
  %2 = stream.timepoint.immediate => !stream.timepoint
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %0, %arg2 = %2) -> (!stream.resource<external>, !stream.timepoint) {
    %result, %result_timepoint = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%arg2) => !stream.resource<external>{%c128} => !stream.timepoint
    %result_0, %result_timepoint_1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%arg2) => !stream.resource<transient>{%c128} => !stream.timepoint
    %5 = stream.timepoint.join max(%arg2, %result_timepoint, %result_timepoint_1) => !stream.timepoint
    %6 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%5) => with(%acc as %arg3: !stream.resource<external>{%c128}, %1 as %arg4: !stream.resource<external>{%c256}, %result as %arg5: !stream.resource<external>{%c128}, %result_0 as %arg6: !stream.resource<transient>{%c128}) {
      stream.cmd.dispatch @matmul {
        ro %arg3[%c0 for %c128] : !stream.resource<external>{%c128},
        ro %arg4[%c0 for %c256] : !stream.resource<external>{%c256},
        wo %arg6[%c0 for %c128] : !stream.resource<transient>{%c128}
      } attributes {streamproof.binding_types = [tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>]}
      stream.cmd.dispatch @tanh {
        ro %arg6[%c0 for %c128] : !stream.resource<transient>{%c128},
        wo %arg5[%c0 for %c128] : !stream.resource<external>{%c128}
      } attributes {streamproof.binding_types = [tensor<4x8xf32>, tensor<4x8xf32>]}
    } => !stream.timepoint
    %7 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%6) => %result_0 : !stream.resource<transient>{%c128} => !stream.timepoint
    %8 = stream.timepoint.join max(%7, %6) => !stream.timepoint
    scf.yield %result, %8 : !stream.resource<external>, !stream.timepoint
  }
  %3 = stream.timepoint.await %r#1 => %r#0 : !stream.resource<external>{%c128}
  %4 = stream.tensor.export on(#hal.device.affinity<@dev0>) %3 : tensor<4x8xf32> in !stream.resource<external>{%c128} -> !hal.buffer_view
  util.return %4 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @recur
// CHECK: scf.for
// CHECK: %[[T:.+]], %{{.+}} = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) {{.+}} !stream.resource<transient>
// CHECK: %[[E:.+]] = stream.cmd.execute
// CHECK: stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[E]]) => %[[T]]
// CHECK: scf.yield

// -----

// Storage a branch only reads is freed after the branch, once the branch's timepoint covers the reads.
util.func public @pick(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %c16 = arith.constant 16 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg1 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %result, %result_timepoint = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c16} => !stream.timepoint
  %result_0, %result_timepoint_1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<staging>{%c4} => !stream.timepoint
  %result_2, %result_timepoint_3 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %2 = stream.timepoint.join max(%result_timepoint, %result_timepoint_1, %result_timepoint_3) => !stream.timepoint
  %3 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%2) => with(%0 as %arg2: !stream.resource<external>{%c16}, %1 as %arg3: !stream.resource<external>{%c16}, %result as %arg4: !stream.resource<transient>{%c16}, %result_0 as %arg5: !stream.resource<staging>{%c4}, %result_2 as %arg6: !stream.resource<transient>{%c64}) {
    stream.cmd.dispatch @add {
      ro %arg2[%c0 for %c16] : !stream.resource<external>{%c16},
      ro %arg3[%c0 for %c16] : !stream.resource<external>{%c16},
      wo %arg4[%c0 for %c16] : !stream.resource<transient>{%c16}
    } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>, tensor<4xf32>]}
    stream.cmd.copy %arg4[%c0], %arg6[%c0], %c4 : !stream.resource<transient>{%c16} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %arg6[%c0], %arg5[%c0], %c4 : !stream.resource<transient>{%c64} -> !stream.resource<staging>{%c4}
    stream.cmd.flush %arg5[%c0 for %c4] : !stream.resource<staging>{%c4}
  } => !stream.timepoint
  %4 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%3) => %result_2 : !stream.resource<transient>{%c64} => !stream.timepoint
  %5 = stream.timepoint.join max(%4, %3) => !stream.timepoint
  %6:2 = stream.timepoint.await %5 => %result_0, %result : !stream.resource<staging>{%c4}, !stream.resource<transient>{%c16}
  %7 = stream.resource.load %6#0[%c0] : !stream.resource<staging>{%c4} -> f32
  %p = arith.cmpf ogt, %7, %zero : f32
  %r:2 = scf.if %p -> (!stream.resource<external>, !stream.timepoint) {
    %result_4, %result_timepoint_5 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c16} => !stream.timepoint
    %11 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%result_timepoint_5) => with(%result as %arg2: !stream.resource<transient>{%c16}, %result_4 as %arg3: !stream.resource<external>{%c16}) {
      stream.cmd.dispatch @tanh {
        ro %arg2[%c0 for %c16] : !stream.resource<transient>{%c16},
        wo %arg3[%c0 for %c16] : !stream.resource<external>{%c16}
      } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
    } => !stream.timepoint
    scf.yield %result_4, %11 : !stream.resource<external>, !stream.timepoint
  } else {
    %11 = stream.timepoint.immediate => !stream.timepoint
    scf.yield %0, %11 : !stream.resource<external>, !stream.timepoint
  }
  %8 = stream.timepoint.await %r#1 => %r#0 : !stream.resource<external>{%c16}
  %9 = stream.tensor.export on(#hal.device.affinity<@dev0>) %8 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  %10 = stream.timepoint.await sync %5 => %result : !stream.resource<transient>{%c16}
  util.return %9 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @pick
// CHECK: %r:2 = scf.if
// CHECK: } else {
// CHECK: }
// CHECK: %[[J:.+]] = stream.timepoint.join max(%{{.+}}, %r#1)
// CHECK: stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%[[J]]) => %

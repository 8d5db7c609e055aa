// RUN: streamproof compile %s --pass-pipeline=propagate-timepoints --split-input-file | filecheck %s

// A mutable resource global gets its companion timepoint global; the region reading the loaded global awaits the companion on the device; the store hands over the un-awaited value with the region's timepoint, and the host waits only for the export.
util.global private mutable @cache : !stream.resource<variable>
util.initializer {
  %c256 = arith.constant 256 : index
  %results, %result_timepoint = stream.async.execute on(#hal.device.affinity<@dev0>) with() -> !stream.resource<variable>{%c256} {
    %1 = stream.async.constant : !stream.resource<constant>{%c256} = dense<0.000000e+00> : tensor<4x16xf32>
    %2 = stream.async.transfer %1 : !stream.resource<constant>{%c256} -> !stream.resource<variable>{%c256}
    stream.yield %2 : !stream.resource<variable>{%c256}
  } => !stream.timepoint
  %0 = stream.timepoint.await %result_timepoint => %results : !stream.resource<variable>{%c256}
  util.global.store %0, @cache : !stream.resource<variable>
  util.return
}
util.func public @step(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %pos: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<1x16xf32> in !stream.resource<external>{%c64}
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg1 : !hal.buffer_view -> tensor<1x4xf32> in !stream.resource<external>{%c16}
  %row = arith.minui %pos, %c3 : index
  %cache = util.global.load @cache : !stream.resource<variable>
  %2 = arith.muli %row, %c64 : index
  %3 = arith.addi %2, %c64 : index
  %results:2, %result_timepoint = stream.async.execute on(#hal.device.affinity<@dev0>) with(%cache as %arg2: !stream.resource<variable>{%c256}, %0 as %arg3: !stream.resource<external>{%c64}, %1 as %arg4: !stream.resource<external>{%c16}) -> (!stream.resource<external>{%c64}, !stream.resource<variable>{%c256}) {
    %6 = stream.async.transfer %arg2 : !stream.resource<variable>{%c256} -> !stream.resource<transient>{%c256}
    %7 = stream.async.update %arg3, %6[%2 to %3] : !stream.resource<external>{%c64} -> %6 as !stream.resource<transient>{%c256}
    %8:2 = stream.async.concurrent with(%arg4 as %arg5: !stream.resource<external>{%c16}, %7 as %arg6: !stream.resource<transient>{%c256}) -> (!stream.resource<external>{%c64}, !stream.resource<variable>{%c256}) {
      %9 = stream.async.dispatch @matmul(%arg5[%c0 to %c16 for %c16], %arg6[%c0 to %c256 for %c256]) {streamproof.binding_types = [tensor<1x4xf32>, tensor<4x16xf32>, tensor<1x16xf32>]} : (!stream.resource<external>{%c16}, !stream.resource<transient>{%c256}) -> !stream.resource<external>{%c64}
      %10 = stream.async.transfer %arg6 : !stream.resource<transient>{%c256} -> !stream.resource<variable>{%c256}
      stream.yield %9, %10 : !stream.resource<external>{%c64}, !stream.resource<variable>{%c256}
    }
    stream.yield %8#0, %8#1 : !stream.resource<external>{%c64}, !stream.resource<variable>{%c256}
  } => !stream.timepoint
  %4:2 = stream.timepoint.await %result_timepoint => %results#1, %results#0 : !stream.resource<variable>{%c256}, !stream.resource<external>{%c64}
  util.global.store %4#0, @cache : !stream.resource<variable>
  %5 = stream.tensor.export on(#hal.device.affinity<@dev0>) %4#1 : tensor<1x16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %5 : !hal.buffer_view
}
// CHECK: util.global private mutable @cache__timepoint = #stream.timepoint<immediate> : !stream.timepoint
// CHECK-NEXT: util.global private mutable @cache : !stream.resource<variable>
// CHECK: util.initializer {
// CHECK: %[[INIT:.+]], %[[INIT_TP:.+]] = stream.async.execute
// CHECK: util.global.store %[[INIT]], @cache : !stream.resource<variable>
// CHECK-NEXT: util.global.store %[[INIT_TP]], @cache__timepoint : !stream.timepoint
// CHECK-LABEL: util.func public @step
// CHECK: %[[TP:.+]] = util.global.load @cache__timepoint : !stream.timepoint
// CHECK-NEXT: %[[CACHE:.+]] = util.global.load @cache : !stream.resource<variable>
// CHECK: %[[RES:.+]]:2, %[[RTP:.+]] = stream.async.execute on(#hal.device.affinity<@dev0>) await(%[[TP]]) => with(%[[CACHE]] as
// CHECK-NOT: stream.timepoint.await
// CHECK: util.global.store %[[RES]]#1, @cache : !stream.resource<variable>
// CHECK-NEXT: util.global.store %[[RTP]], @cache__timepoint : !stream.timepoint
// CHECK-NEXT: stream.timepoint.await %[[RTP]] => %[[RES]]#0
// CHECK: stream.tensor.export

// -----

// A loop body that loads and stores the global: each iteration loads the companion, its region waits on the device for it joined with the carried timepoint, and it stores its own timepoint; no host wait inside the loop.
util.global private mutable @cache : !stream.resource<variable>
util.initializer {
  %c256 = arith.constant 256 : index
  %results, %result_timepoint = stream.async.execute on(#hal.device.affinity<@dev0>) with() -> !stream.resource<variable>{%c256} {
    %1 = stream.async.constant : !stream.resource<constant>{%c256} = dense<0.000000e+00> : tensor<4x16xf32>
    %2 = stream.async.transfer %1 : !stream.resource<constant>{%c256} -> !stream.resource<variable>{%c256}
    stream.yield %2 : !stream.resource<variable>{%c256}
  } => !stream.timepoint
  %0 = stream.timepoint.await %result_timepoint => %results : !stream.resource<variable>{%c256}
  util.global.store %0, @cache : !stream.resource<variable>
  util.return
}
util.func public @decode(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %steps: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<1x16xf32> in !stream.resource<external>{%c64}
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg1 : !hal.buffer_view -> tensor<1x4xf32> in !stream.resource<external>{%c16}
  %r = scf.for %i = %c0 to %steps step %c1 iter_args(%h = %0) -> (!stream.resource<external>) {
    %row = arith.minui %i, %c3 : index
    %cache = util.global.load @cache : !stream.resource<variable>
    %3 = arith.muli %row, %c64 : index
    %4 = arith.addi %3, %c64 : index
    %results:2, %result_timepoint = stream.async.execute on(#hal.device.affinity<@dev0>) with(%cache as %arg2: !stream.resource<variable>{%c256}, %h as %arg3: !stream.resource<external>{%c64}, %1 as %arg4: !stream.resource<external>{%c16}) -> (!stream.resource<external>{%c64}, !stream.resource<variable>{%c256}) {
      %6 = stream.async.transfer %arg2 : !stream.resource<variable>{%c256} -> !stream.resource<transient>{%c256}
      %7 = stream.async.update %arg3, %6[%3 to %4] : !stream.resource<external>{%c64} -> %6 as !stream.resource<transient>{%c256}
      %8:2 = stream.async.concurrent with(%arg4 as %arg5: !stream.resource<external>{%c16}, %7 as %arg6: !stream.resource<transient>{%c256}) -> (!stream.resource<external>{%c64}, !stream.resource<variable>{%c256}) {
        %9 = stream.async.dispatch @matmul(%arg5[%c0 to %c16 for %c16], %arg6[%c0 to %c256 for %c256]) {streamproof.binding_types = [tensor<1x4xf32>, tensor<4x16xf32>, tensor<1x16xf32>]} : (!stream.resource<external>{%c16}, !stream.resource<transient>{%c256}) -> !stream.resource<external>{%c64}
        %10 = stream.async.transfer %arg6 : !stream.resource<transient>{%c256} -> !stream.resource<variable>{%c256}
        stream.yield %9, %10 : !stream.resource<external>{%c64}, !stream.resource<variable>{%c256}
      }
      stream.yield %8#0, %8#1 : !stream.resource<external>{%c64}, !stream.resource<variable>{%c256}
    } => !stream.timepoint
    %5:2 = stream.timepoint.await %result_timepoint => %results#1, %results#0 : !stream.resource<variable>{%c256}, !stream.resource<external>{%c64}
    util.global.store %5#0, @cache : !stream.resource<variable>
    scf.yield %5#1 : !stream.resource<external>
  }
  %2 = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<1x16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %2 : !hal.buffer_view
}
// CHECK: util.global private mutable @cache__timepoint = #stream.timepoint<immediate> : !stream.timepoint
// CHECK-LABEL: util.func public @decode
// CHECK: scf.for %i = %c0 to %steps step %c1 iter_args(%h = %0, %[[CARRIED:.+]] = %{{.+}}) -> (!stream.resource<external>, !stream.timepoint) {
// CHECK: %[[TP:.+]] = util.global.load @cache__timepoint : !stream.timepoint
// CHECK-NEXT: %[[CACHE:.+]] = util.global.load @cache : !stream.resource<variable>
// CHECK: %[[JOIN:.+]] = stream.timepoint.join max(%[[CARRIED]], %[[TP]])
// CHECK: %[[RES:.+]]:2, %[[RTP:.+]] = stream.async.execute on(#hal.device.affinity<@dev0>) await(%[[JOIN]]) => with(%[[CACHE]] as
// CHECK-NOT: stream.timepoint.await
// CHECK: util.global.store %[[RES]]#1, @cache : !stream.resource<variable>
// CHECK-NEXT: util.global.store %[[RTP]], @cache__timepoint : !stream.timepoint
// CHECK-NEXT: scf.yield %[[RES]]#0, %[[RTP]] : !stream.resource<external>, !stream.timepoint
// CHECK: stream.timepoint.await

// RUN: streamproof compile %s --pass-pipeline=reuse-allocations --split-input-file | filecheck %s

// Within a loop body, an allocation that awaits a free of the same size takes the freed memory.
util.func public @reuse_in_body(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7 : i32
  scf.for %i = %c0 to %n step %c1 {
    %a, %at = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
    %e0 = stream.cmd.execute await(%at) => with(%a as %x: !stream.resource<transient>{%c64}) {
      stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
    } => !stream.timepoint
    %d0 = stream.resource.dealloca await(%e0) => %a : !stream.resource<transient>{%c64} => !stream.timepoint
    %b, %bt = stream.resource.alloca uninitialized await(%d0) => !stream.resource<transient>{%c64} => !stream.timepoint
    %e1 = stream.cmd.execute await(%bt) => with(%b as %y: !stream.resource<transient>{%c64}) {
      stream.cmd.fill %c7, %y[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
    } => !stream.timepoint
    %d1 = stream.resource.dealloca await(%e1) => %b : !stream.resource<transient>{%c64} => !stream.timepoint
    %w = stream.timepoint.await sync %d1 => %b : !stream.resource<transient>{%c64}
  }
  util.return
}
// CHECK-LABEL: util.func public @reuse_in_body
// CHECK: scf.for %i = %c0 to %n step %c1 {
// CHECK: %[[A:.+]], %[[AT:.+]] = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64}
// CHECK: %[[E0:.+]] = stream.cmd.execute await(%[[AT]]) => with(%[[A]] as
// CHECK-NOT: stream.resource.alloca
// CHECK: stream.cmd.execute await(%[[E0]]) => with(%[[A]] as
// CHECK: stream.resource.dealloca await(%{{.+}}) => %[[A]]

// RUN: streamproof compile %s --pass-pipeline=elide-timepoints --split-input-file | filecheck %s

// A block dominated by the one that issued the copy: the join of the alloca and the copy is the copy.
// CHECK-LABEL: @dominatedBlock
// CHECK: %[[E0:.+]] = stream.cmd.execute await(%{{.+}}) => with(%arg0
// CHECK: ^bb1:
// CHECK-NOT: stream.timepoint.join
// CHECK: stream.cmd.execute await(%[[E0]]) => with(%{{.+}} as
// CHECK: ^bb2:
util.func public @dominatedBlock(%arg0: !stream.resource<external>, %c: i1) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute await(%rt) => with(%arg0 as %a: !stream.resource<external>{%c64}, %r as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.copy %a[%c0], %x[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  "cf.cond_br"(%c)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb1:
  %j = stream.timepoint.join max(%rt, %e0) => !stream.timepoint
  %e1 = stream.cmd.execute await(%j) => with(%r as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca await(%e1) => %r : !stream.resource<transient>{%c64} => !stream.timepoint
  %o1 = stream.timepoint.await %d1 => %arg0 : !stream.resource<external>{%c64}
  util.return %o1 : !stream.resource<external>
^bb2:
  %d2 = stream.resource.dealloca await(%e0) => %r : !stream.resource<transient>{%c64} => !stream.timepoint
  %o2 = stream.timepoint.await %d2 => %arg0 : !stream.resource<external>{%c64}
  util.return %o2 : !stream.resource<external>
}

// -----

// At a join point only what every path establishes counts: the host waited for the fill on one path only, so the free keeps its wait.
// CHECK-LABEL: @joinPointKeepsWait
// CHECK: %[[E0:.+]] = stream.cmd.execute await
// CHECK: ^bb3:
// CHECK: stream.resource.dealloca await(%[[E0]])
util.func public @joinPointKeepsWait(%c: i1) -> () {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute await(%rt) => with(%r as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  "cf.cond_br"(%c)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb1:
  %h = stream.timepoint.await sync %e0 => %r : !stream.resource<transient>{%c64}
  "cf.br"()[^bb3] : () -> ()
^bb2:
  "cf.br"()[^bb3] : () -> ()
^bb3:
  %d = stream.resource.dealloca await(%e0) => %r : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return
}

// -----

// The same host wait before the branch covers the free on every path: the free waits for nothing.
// CHECK-LABEL: @hostWaitInDominator
// CHECK: stream.timepoint.await sync
// CHECK: ^bb3:
// CHECK: stream.resource.dealloca %r :
util.func public @hostWaitInDominator(%c: i1) -> () {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute await(%rt) => with(%r as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %h = stream.timepoint.await sync %e0 => %r : !stream.resource<transient>{%c64}
  "cf.cond_br"(%c)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb1:
  "cf.br"()[^bb3] : () -> ()
^bb2:
  "cf.br"()[^bb3] : () -> ()
^bb3:
  %d = stream.resource.dealloca await(%e0) => %r : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return
}

// -----

// In a loop body the carried timepoint is an unknown: the copy keeps waiting for it and for the fill before the loop; a join of the fill and the copy in the body is the copy.
// CHECK-LABEL: @loopBody
// CHECK: scf.for
// CHECK: %[[J:.+]] = stream.timepoint.join max(%{{.+}}, %{{.+}})
// CHECK: %[[C:.+]] = stream.cmd.execute await(%[[J]])
// CHECK-NOT: stream.timepoint.join
// CHECK: scf.yield %[[C]] :
util.func public @loopBody(%n: index) -> () {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %a, %at = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %b, %bt = stream.resource.alloca uninitialized await(%at) => !stream.resource<transient>{%c64} => !stream.timepoint
  %f = stream.cmd.execute await(%bt) => with(%a as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %last = "scf.for"(%c0, %n, %c1, %bt) ({
  ^bb0(%i: index, %t: !stream.timepoint):
    %j = stream.timepoint.join max(%t, %f) => !stream.timepoint
    %copy = stream.cmd.execute await(%j) => with(%a as %x: !stream.resource<transient>{%c64}, %b as %y: !stream.resource<transient>{%c64}) {
      stream.cmd.copy %x[%c0], %y[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c64}
    } => !stream.timepoint
    %done = stream.timepoint.join max(%f, %copy) => !stream.timepoint
    "scf.yield"(%done) : (!stream.timepoint) -> ()
  }) : (index, index, index, !stream.timepoint) -> !stream.timepoint
  %all = stream.timepoint.join max(%last, %f) => !stream.timepoint
  %da = stream.resource.dealloca await(%all) => %a : !stream.resource<transient>{%c64} => !stream.timepoint
  %db = stream.resource.dealloca await(%da) => %b : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return
}

// -----

// Passing an awaited resource into a loop is no host wait: the loads in the body order the host only when the loop runs, so the free keeps its wait.
// CHECK-LABEL: @loopIsNoHostWait
// CHECK: %[[E0:.+]] = stream.cmd.execute await
// CHECK: scf.for
// CHECK: stream.resource.dealloca await(%[[E0]])
util.func public @loopIsNoHostWait(%n: index) -> () {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %r, %rt = stream.resource.alloca uninitialized : !stream.resource<staging>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute await(%rt) => with(%r as %x: !stream.resource<staging>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<staging>{%c64}
  } => !stream.timepoint
  %h = stream.timepoint.await %e0 => %r : !stream.resource<staging>{%c64}
  %same = "scf.for"(%c0, %n, %c1, %h) ({
  ^bb0(%i: index, %x: !stream.resource<staging>):
    %v = stream.resource.load %x[%c0] : !stream.resource<staging>{%c64} -> i32
    "scf.yield"(%x) : (!stream.resource<staging>) -> ()
  }) : (index, index, index, !stream.resource<staging>) -> !stream.resource<staging>
  %d = stream.resource.dealloca await(%e0) => %r : !stream.resource<staging>{%c64} => !stream.timepoint
  util.return
}

// -----

// What a carried timepoint covers in every iteration (by induction: its initial value covers the alloca's timepoint, and so does each copy it passes on): the copy waits for the carried timepoint alone.
// CHECK-LABEL: @loopCarriedCoverage
// CHECK: scf.for
// CHECK-NOT: stream.timepoint.join
// CHECK: stream.cmd.execute await(%{{[a-z0-9_]+}}) =>
// CHECK: scf.yield
util.func public @loopCarriedCoverage(%n: index) -> () {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i32
  %c64 = arith.constant 64 : index
  %a, %at = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %b, %bt = stream.resource.alloca uninitialized await(%at) => !stream.resource<transient>{%c64} => !stream.timepoint
  %f = stream.cmd.execute await(%bt) => with(%a as %x: !stream.resource<transient>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%t = %f) -> (!stream.timepoint) {
    %j = stream.timepoint.join max(%t, %bt) => !stream.timepoint
    %copy = stream.cmd.execute await(%j) => with(%a as %x: !stream.resource<transient>{%c64}, %b as %y: !stream.resource<transient>{%c64}) {
      stream.cmd.copy %x[%c0], %y[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c64}
    } => !stream.timepoint
    scf.yield %copy : !stream.timepoint
  }
  %da = stream.resource.dealloca await(%last) => %a : !stream.resource<transient>{%c64} => !stream.timepoint
  %db = stream.resource.dealloca await(%da) => %b : !stream.resource<transient>{%c64} => !stream.timepoint
  util.return
}

// RUN: streamproof compile %s --allow-input-violations --pass-pipeline=elide-timepoints | filecheck %s

// Alternatives cover only what both sides cover: the intersection, never the union.
// CHECK-LABEL: @selectIntersection
// CHECK: %[[E0:[^ ]+]] = stream.cmd.execute
// CHECK: %[[ONE:.+]] = arith.select %{{.+}}, %{{.+}}, %{{.+}} : !stream.timepoint
// CHECK: %[[BOTH:.+]] = arith.select %{{.+}}, %{{.+}}, %{{.+}} : !stream.timepoint
// CHECK: %[[J0:.+]] = stream.timepoint.join max(%[[E0]], %[[ONE]])
// CHECK: %[[E1:[^ ]+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[J0]])
// CHECK: %[[J1:.+]] = stream.timepoint.join max(%[[BOTH]], %[[E1]])
// CHECK-NEXT: stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%[[J1]])
util.func public @selectIntersection(%cond: i1, %arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@f {
      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %child = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%e0) => with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@g {
      ro %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %other = stream.cmd.execute on(#hal.device.affinity<@dev1>) with(%arg1 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@h {
      rw %b[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %sibling = stream.cmd.execute on(#hal.device.affinity<@dev1>) await(%e0) => with(%arg1 as %b: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@h {
      rw %b[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %one_side = arith.select %cond, %child, %other : !stream.timepoint
  %both_sides = arith.select %cond, %child, %sibling : !stream.timepoint
  %j0 = stream.timepoint.join max(%e0, %one_side) => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j0) => with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@k {
      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %j1 = stream.timepoint.join max(%e0, %both_sides, %e1) => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j1) => with(%arg0 as %a: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@k {
      rw %a[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %o = stream.timepoint.await %e2 => %arg0 : !stream.resource<external>{%c64}
  util.return %o : !stream.resource<external>
}

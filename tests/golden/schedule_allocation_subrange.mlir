// RUN: streamproof compile %s --pass-pipeline=schedule-allocation | filecheck %s

// A result tied to a capture but yielded as an offset range of it becomes a host subview (IREE #14685).
// CHECK-LABEL: @tiedSubrangeResult
util.func public @tiedSubrangeResult(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  // CHECK: %[[VIEW:.+]] = stream.resource.subview %arg0[%c64] : !stream.resource<external>{%c256} -> !stream.resource<external>{%c128}
  // CHECK: %[[EXEC:.+]] = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %[[A:.+]]: !stream.resource<external>{%c256})
  // CHECK-NEXT: stream.cmd.dispatch @ex::@scale
  // CHECK-NEXT: rw %[[A]][%c64 for %c128]
  // CHECK: stream.timepoint.await %[[EXEC]] => %[[VIEW]]
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c256}) -> %arg0{%c128} {
    %s = stream.resource.subview %a[%c64] : !stream.resource<external>{%c256} -> !stream.resource<external>{%c128}
    %0 = stream.async.dispatch @ex::@scale(%s[%c0 to %c128 for %c128]) : (!stream.resource<external>{%c128}) -> %s{%c128}
    stream.yield %0 : !stream.resource<external>{%c128}
  } => !stream.timepoint
  %out = stream.timepoint.await %t => %r : !stream.resource<external>{%c128}
  util.return %out : !stream.resource<external>
}

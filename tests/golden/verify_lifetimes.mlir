// RUN: not streamproof verify %s --split-input-file | filecheck %s

// The execute writes a queue-ordered allocation without awaiting the alloca's timepoint.
// CHECK-LABEL: error: USE_BEFORE_ALLOC in @use_before_alloc on %out (alloca at {{.+}}) bytes [0, 64)
// CHECK-NEXT: alloca: stream.resource.alloca {{.+}} (on @dev0)
// CHECK-NEXT: access: stream.cmd.copy target %[[O:[a-z0-9_]+]][0 for 64] {{.+}} (execute #1 on @dev0)
// CHECK-NEXT: witness:
// CHECK: @dev0 start copy writes [0, 64)
// CHECK-NOT: end alloca
util.func public @use_before_alloc(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %o[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %j = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %r = stream.timepoint.await %j => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

// -----

// The slab's dealloca awaits only the alloca, not the execute that still uses the slab.
// CHECK-LABEL: error: USE_AFTER_FREE in @early_dealloca on %slab
// CHECK-NEXT: access: stream.cmd.copy target %[[S:[a-z0-9_]+]][0 for 64]
// CHECK-NEXT: dealloca: stream.resource.dealloca
// CHECK: error: USE_AFTER_FREE in @early_dealloca on %slab
// CHECK-NEXT: access: stream.cmd.copy source %[[S]][0 for 64]
util.func public @early_dealloca(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %slab, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%in as %a: !stream.resource<external>{%c64}, %slab as %s: !stream.resource<transient>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %s[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %s[%c0], %o[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %t3 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t1) => %slab : !stream.resource<transient>{%c64} => !stream.timepoint
  %done = stream.timepoint.join max(%t2, %t3) => !stream.timepoint
  %r = stream.timepoint.await %done => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

// -----

// The slab is freed twice: once by name and once through a subview alias of it.
// CHECK-LABEL: error: DOUBLE_FREE in @double_free on %slab (alloca at {{.+}}): the allocation is freed twice
// CHECK-NEXT: free: stream.resource.dealloca
// CHECK-NEXT: free: stream.resource.dealloca
util.func public @double_free(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %slab, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %half = stream.resource.subview %slab[%c32] : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c32}
  %j = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%in as %a: !stream.resource<external>{%c64}, %half as %h: !stream.resource<transient>{%c32}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %h[%c0], %c32 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c32}
    stream.cmd.copy %h[%c0], %o[%c0], %c32 : !stream.resource<transient>{%c32} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %d1 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t2) => %slab : !stream.resource<transient>{%c64} => !stream.timepoint
  %d2 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t2) => %half : !stream.resource<transient>{%c32} => !stream.timepoint
  %done = stream.timepoint.join max(%d1, %d2) => !stream.timepoint
  %r = stream.timepoint.await %done => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

// -----

// A transient slab that nothing frees (a warning: the program is otherwise correct).
// CHECK-LABEL: warning: LEAK in @leak on %slab (alloca at {{.+}}): the transient allocation is never freed
// CHECK: proved: {{[0-9]+}} obligations {{.+}} 1 warning(s)
util.func public @leak(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %slab, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%in as %a: !stream.resource<external>{%c64}, %slab as %s: !stream.resource<transient>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %s[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c64}
    stream.cmd.copy %s[%c0], %o[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %t2 => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

// -----

// The execute uses a value awaited on a fence that only the execute itself signals (a pure await: the execute waits).
// CHECK-LABEL: error: DEADLOCK in @deadlock: a wait can never be satisfied: execute #1 -> external fence signalled -> imported timepoint -> (back to the first)
// CHECK-NEXT: waits on: stream.cmd.execute (execute #1)
util.func public @deadlock(%buf: !stream.resource<external>, %fence: !hal.fence) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %wait = stream.timepoint.import on(#hal.device.affinity<@dev0>) %fence : (!hal.fence) => !stream.timepoint
  %ready = stream.timepoint.await %wait => %buf : !stream.resource<external>{%c64}
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%ready as %b: !stream.resource<external>{%c64}) {
    stream.cmd.fill %c1_i32, %b[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t => (%fence : !hal.fence)
  util.return %ready : !stream.resource<external>
}

// -----

// A `sync` await blocks the host on a fence that only work issued after the wait signals.
// CHECK-LABEL: error: DEADLOCK in @deadlock_sync: a wait can never be satisfied: sync await -> execute #1 -> chain_external -> external fence signalled -> imported timepoint -> (back to the first)
// CHECK-NEXT: waits on: stream.timepoint.await
util.func public @deadlock_sync(%buf: !stream.resource<external>, %fence: !hal.fence) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %wait = stream.timepoint.import on(#hal.device.affinity<@dev0>) %fence : (!hal.fence) => !stream.timepoint
  %ready = stream.timepoint.await sync %wait => %buf : !stream.resource<external>{%c64}
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%ready as %b: !stream.resource<external>{%c64}) {
    stream.cmd.fill %c1_i32, %b[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t => (%fence : !hal.fence)
  util.return %ready : !stream.resource<external>
}

// -----

// The host drops the last claim on a staging buffer and then reads it.
// CHECK-LABEL: error: USE_AFTER_FREE in @release_then_load on %buf (alloc at {{.+}}) bytes [0, 4): the release drops the last claim on the resource
// CHECK-NEXT: access: stream.resource.load load %buf[0 for 4]
// CHECK-NEXT: release: stream.resource.release
util.func public @release_then_load() -> i32 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c5_i32 = arith.constant 5 : i32
  %buf = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<staging>{%c64}
  stream.resource.store %c5_i32, %buf[%c0] : i32 -> !stream.resource<staging>{%c64}
  %last = stream.resource.release %buf : !stream.resource<staging>{%c64}
  %v = stream.resource.load %buf[%c0] : !stream.resource<staging>{%c64} -> i32
  util.return %v : i32
}

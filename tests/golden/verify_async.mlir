// RUN: not streamproof verify %s --split-input-file | filecheck %s

// The second execute captures the first one's result but awaits only an immediate timepoint.
// CHECK-LABEL: error: MISSED_WAIT in @missed_wait: execute #2 uses %[[R:[a-z0-9_]+]] without a wait that covers execute #1, which produces it
// CHECK-NEXT: producer: stream.async.execute (execute #1)
// CHECK-NEXT: consumer: stream.async.execute (execute #2)
// CHECK-NEXT: witness:
// CHECK-NEXT: 1 host issue execute #1
// CHECK-NEXT: 2 host issue execute #2
// CHECK-NEXT: 3 @dev0 start execute #2
// CHECK-NEXT: 4 @dev0 start execute #1
util.func public @missed_wait(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %now = stream.timepoint.immediate => !stream.timepoint
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) await(%now) => with(%in as %a: !stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64} {
    %1 = stream.async.dispatch @ex::@first(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
    stream.yield %1 : !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %r2, %t2 = stream.async.execute on(#hal.device.affinity<@dev0>) await(%now) => with(%r1 as %b: !stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64} {
    %2 = stream.async.dispatch @ex::@second(%b[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %2 : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %j = stream.timepoint.join max(%t1, %t2) => !stream.timepoint
  %r = stream.timepoint.await %j => %r2 : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

// -----

// Tie linearity (A2): the in-place writer runs first in block order, so the later reader of %x sees the new bytes.
// CHECK-LABEL: error: RACE_WRITE_AFTER_READ in @tie_order on %x0 (import consume at {{.+}}) bytes [0, 64)
// CHECK-NEXT: read: stream.async.dispatch @a ro %[[X:[a-z0-9_]+]][0 for 64]
// CHECK-NEXT: write: stream.async.dispatch @b rw %[[X]][0 for 64]
// CHECK-NEXT: tie linearity: the in-place write always runs first, so the read sees the new bytes, not the value it names
util.func public @tie_order(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %x0 = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %results:2, %tp = stream.async.execute on(#hal.device.affinity<@dev0>) with(%x0 as %x: !stream.resource<external>{%c64}) -> (%x0{%c64}, !stream.resource<transient>{%c64}) {
    %2 = stream.async.dispatch @ex::@b(%x[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> %x{%c64}
    %1 = stream.async.dispatch @ex::@a(%x[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
    stream.yield %2, %1 : !stream.resource<external>{%c64}, !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %r:2 = stream.timepoint.await %tp => %results#0, %results#1 : !stream.resource<external>{%c64}, !stream.resource<transient>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r#0 : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

// -----

// IREE #14889: a reader of %y and an in-place writer of %y placed in one async.concurrent wave.
// CHECK-LABEL: error: RACE_WRITE_AFTER_READ in @wave_tie on %x0
// CHECK-NEXT: read: stream.async.dispatch @a ro %[[Y:[a-z0-9_]+]][0 for 64] {{.+}} (async.concurrent in execute #1 on @dev0)
// CHECK-NEXT: write: stream.async.dispatch @b rw %[[Y]][0 for 64] {{.+}} (async.concurrent in execute #1 on @dev0)
// CHECK-NEXT: tie linearity: nothing orders the read before the in-place write that replaces the value it names
util.func public @wave_tie(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %x0 = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %results:2, %tp = stream.async.execute on(#hal.device.affinity<@dev0>) with(%x0 as %x: !stream.resource<external>{%c64}) -> (!stream.resource<transient>{%c64}, %x0{%c64}) {
    %w:2 = stream.async.concurrent with(%x as %y: !stream.resource<external>{%c64}) -> (!stream.resource<transient>{%c64}, %x{%c64}) {
      %1 = stream.async.dispatch @ex::@a(%y[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
      %2 = stream.async.dispatch @ex::@b(%y[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> %y{%c64}
      stream.yield %1, %2 : !stream.resource<transient>{%c64}, !stream.resource<external>{%c64}
    }
    stream.yield %w#0, %w#1 : !stream.resource<transient>{%c64}, !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r:2 = stream.timepoint.await %tp => %results#0, %results#1 : !stream.resource<transient>{%c64}, !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r#1 : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

// -----

// IREE #16168 at the async level (as in examples d_inplace): an in-place update of a borrowed import.
// CHECK-LABEL: error: BORROWED_INPUT_MUTATED in @borrowed_update on %cache (import at {{.+}}) bytes [0, 64): writes an import without `consume` (borrowed caller storage)
// CHECK-NEXT: write: stream.async.update target %{{.+}}[0 for 64]
util.func public @borrowed_update(%cache_view: !hal.buffer_view, %row_view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %cache = stream.tensor.import on(#hal.device.affinity<@dev0>) %cache_view : !hal.buffer_view -> tensor<64xf32> in !stream.resource<external>{%c256}
  %row = stream.tensor.import on(#hal.device.affinity<@dev0>) %row_view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%cache as %c: !stream.resource<external>{%c256}, %row as %u: !stream.resource<external>{%c64}) -> %cache{%c256} {
    %1 = stream.async.update %u, %c[%c0 to %c64] : !stream.resource<external>{%c64} -> %c as !stream.resource<external>{%c256}
    stream.yield %1 : !stream.resource<external>{%c256}
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %r1 : !stream.resource<external>{%c256}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<64xf32> in !stream.resource<external>{%c256} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

// -----

// A region on @dev1 dispatches on a value produced on @dev0, with no transfer between the devices.
// CHECK-LABEL: error: AFFINITY_MISMATCH in @no_transfer on %x (value at {{.+}}) bytes [0, 64): runs on @dev1 but the resource lives on @dev0
// CHECK-NEXT: access: stream.async.dispatch @second ro %{{.+}}[0 for 64] {{.+}} (execute #2 on @dev1)
util.func public @no_transfer(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64} {
    %x = stream.async.dispatch @ex::@first(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
    stream.yield %x : !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %r2, %t2 = stream.async.execute on(#hal.device.affinity<@dev1>) await(%t1) => with(%r1 as %b: !stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64} {
    %y = stream.async.dispatch @ex::@second(%b[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %y : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %t2 => %r2 : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev1>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

// -----

// A slice [n, n + 64) of a 256-byte value: out of bounds for n > 192 (Z3 gives such an n).
// CHECK-LABEL: error: OUT_OF_BOUNDS in @slice_oob:
// CHECK-SAME: the source range {{\[}}[[LO:[0-9]+]], {{[0-9]+}}) exceeds the 256 bytes of %a
// CHECK-NEXT: access: stream.async.slice source %a[%n for 64]
// CHECK-NEXT: with: %n = [[LO]]
util.func public @slice_oob(%view: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %end = arith.addi %n, %c64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<64xf32> in !stream.resource<external>{%c256}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c256}) -> !stream.resource<external>{%c64} {
    %s = stream.async.slice %a[%n to %end] : !stream.resource<external>{%c256} -> !stream.resource<external>{%c64}
    stream.yield %s : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %r1 : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

// -----

// The pack is told the two slices never live at once, but a concurrent wave uses both: they may share bytes.
// CHECK-LABEL: error: PACK_OVERLAP in @pack_overlap on %slab (alloca at {{.+}}) bytes [{{[0-9]+}}, {{[0-9]+}}): slices #0 and #1 may share bytes (their lifetime intervals are disjoint) but their uses are not separated in time
// CHECK-NEXT: slice #0: stream.cmd.copy target %s[%p#1 for 64] {{.+}} (cmd.concurrent in execute #1 on @dev0)
// CHECK-NEXT: slice #1: stream.cmd.copy target %s[%p#2 for 64] {{.+}} (cmd.concurrent in execute #1 on @dev0)
// CHECK-NEXT: with: %p#0 = {{[0-9]+}}, %p#1 = [[O:[0-9]+]], %p#2 = [[O]]
util.func public @pack_overlap(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %p:3 = stream.resource.pack on(#hal.device.affinity<@dev0>) slices({
    [0, 0] = %c64,
    [1, 1] = %c64
  }) : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %slab, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%p#0} => !stream.timepoint
  %j = stream.timepoint.join max(%t0, %t1) => !stream.timepoint
  %t2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%j) => with(%in as %a: !stream.resource<external>{%c64}, %slab as %s: !stream.resource<transient>{%p#0}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.concurrent {
      stream.cmd.copy %a[%c0], %s[%p#1], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%p#0}
      stream.cmd.copy %a[%c0], %s[%p#2], %c64 : !stream.resource<external>{%c64} -> !stream.resource<transient>{%p#0}
    }
    stream.cmd.dispatch @ex::@add {
      ro %s[%p#1 for %c64] : !stream.resource<transient>{%p#0},
      ro %s[%p#2 for %c64] : !stream.resource<transient>{%p#0},
      wo %o[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t2) => %slab : !stream.resource<transient>{%p#0} => !stream.timepoint
  %r = stream.timepoint.await %d => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

// -----

// PR #22803: the fence is chained to a barrier on %r, but the returned value is a later transfer
// of %r that the fence does not cover, so the caller may read it before the copy runs.
// CHECK-LABEL: error: MISSED_WAIT in @fence_early: the signalled fence does not cover execute #2, which produces %r2 for the caller
// CHECK-NEXT: producer: stream.async.execute (execute #2)
// CHECK-NEXT: fence: stream.timepoint.chain_external {{.+}} (timeline)
util.func public @fence_early(%view: !hal.buffer_view, %fence: !hal.fence) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64} {
    %x = stream.async.dispatch @ex::@f(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
    stream.yield %x : !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %b, %tb = stream.timepoint.barrier on(#hal.device.affinity<@dev0>) %r1 : !stream.resource<transient>{%c64} => !stream.timepoint
  %r2, %t2 = stream.async.execute on(#hal.device.affinity<@dev0>) await(%t1) => with(%b as %c: !stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64} {
    %y = stream.async.transfer %c : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
    stream.yield %y : !stream.resource<external>{%c64}
  } => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %tb => (%fence : !hal.fence)
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r2 : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

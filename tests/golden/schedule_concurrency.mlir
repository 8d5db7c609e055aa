// RUN: streamproof compile %s --pass-pipeline=schedule-concurrency --split-input-file | filecheck %s --check-prefixes=CHECK,MIN
// RUN: streamproof compile %s --pass-pipeline='schedule-concurrency{favor=min-peak-memory}' --split-input-file | filecheck %s --check-prefixes=CHECK,MIN
// RUN: streamproof compile %s --pass-pipeline='schedule-concurrency{favor=max-concurrency}' --split-input-file | filecheck %s --check-prefixes=CHECK,MAX
// RUN: streamproof compile %s --pass-pipeline='schedule-concurrency{favor=debug}' --split-input-file | filecheck %s --check-prefix=DEBUG

// Two independent dispatches share a wave; their consumers follow in block order (the b_diamond shape).
// CHECK-LABEL: @diamond
// DEBUG-LABEL: @diamond
// DEBUG-NOT: stream.async.concurrent
util.func public @diamond(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>, %arg2: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // CHECK: stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %[[X:.+]]: !stream.resource<external>{%c64}, %arg1 as %[[W0:.+]]: !stream.resource<external>{%c64}, %arg2 as %[[W1:.+]]: !stream.resource<external>{%c64})
  // CHECK-NEXT: %[[WAVE:.+]]:2 = stream.async.concurrent with(%[[X]] as %[[IX:.+]]: !stream.resource<external>{%c64}, %[[W0]] as %[[IW0:.+]]: !stream.resource<external>{%c64}, %[[W1]] as %[[IW1:.+]]: !stream.resource<external>{%c64}) -> (!stream.resource<transient>{%c64}, !stream.resource<transient>{%c64}) {
  // CHECK-NEXT: %[[A:.+]] = stream.async.dispatch @ex::@mm(%[[IX]][{{.+}}], %[[IW0]][{{.+}}])
  // CHECK-NEXT: %[[B:.+]] = stream.async.dispatch @ex::@mm(%[[IX]][{{.+}}], %[[IW1]][{{.+}}])
  // CHECK-NEXT: stream.yield %[[A]], %[[B]]
  // CHECK-NEXT: }
  // CHECK-NEXT: stream.async.dispatch @ex::@add(%[[WAVE]]#0[{{.+}}], %[[WAVE]]#1[{{.+}}])
  // CHECK-NEXT: stream.yield
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %x: !stream.resource<external>{%c64}, %arg1 as %w0: !stream.resource<external>{%c64}, %arg2 as %w1: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %a = stream.async.dispatch @ex::@mm(%x[%c0 to %c64 for %c64], %w0[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}, !stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
    %b = stream.async.dispatch @ex::@mm(%x[%c0 to %c64 for %c64], %w1[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}, !stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
    %c = stream.async.dispatch @ex::@add(%a[%c0 to %c64 for %c64], %b[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}, !stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %c : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %ready = stream.timepoint.await %t => %r : !stream.resource<external>{%c64}
  util.return %ready : !stream.resource<external>
}

// -----

// favor decides where an independent op goes: min-peak-memory keeps @y next to where it was written, max-concurrency sinks it next to its consumer's other input.
// CHECK-LABEL: @favor
util.func public @favor(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // MIN: stream.async.concurrent
  // MIN-NEXT: stream.async.dispatch @ex::@y
  // MIN-NEXT: stream.async.dispatch @ex::@x0
  // MIN: stream.async.dispatch @ex::@x1
  // MIN-NEXT: stream.async.dispatch @ex::@x2
  // MIN-NEXT: stream.async.dispatch @ex::@z
  // MAX: stream.async.dispatch @ex::@x0
  // MAX-NEXT: stream.async.dispatch @ex::@x1
  // MAX-NEXT: stream.async.concurrent
  // MAX-NEXT: stream.async.dispatch @ex::@y
  // MAX-NEXT: stream.async.dispatch @ex::@x2
  // MAX: stream.async.dispatch @ex::@z
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %y = stream.async.dispatch @ex::@y(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
    %x0 = stream.async.dispatch @ex::@x0(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
    %x1 = stream.async.dispatch @ex::@x1(%x0[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> !stream.resource<transient>{%c64}
    %x2 = stream.async.dispatch @ex::@x2(%x1[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> !stream.resource<transient>{%c64}
    %z = stream.async.dispatch @ex::@z(%x2[%c0 to %c64 for %c64], %y[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}, !stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %z : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %ready = stream.timepoint.await %t => %r : !stream.resource<external>{%c64}
  util.return %ready : !stream.resource<external>
}

// -----

// IREE #14889: a reader of %x and an in-place writer of %x never share a wave, although neither uses the other's result.
// CHECK-LABEL: @keepTiedOpsSeparate
util.func public @keepTiedOpsSeparate(%arg0: !stream.resource<transient>) -> (!stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // CHECK: stream.async.execute
  // CHECK-NOT: stream.async.concurrent
  // CHECK: stream.async.dispatch @ex::@read
  // CHECK-NOT: stream.async.concurrent
  // CHECK: stream.async.dispatch @ex::@write_in_place
  // CHECK: stream.yield
  %r:2, %t = stream.async.execute with(%arg0 as %x: !stream.resource<transient>{%c4}) -> (!stream.resource<transient>{%c4}, %arg0{%c4}) {
    %1 = stream.async.dispatch @ex::@read(%x[%c0 to %c4 for %c4]) : (!stream.resource<transient>{%c4}) -> !stream.resource<transient>{%c4}
    %2 = stream.async.dispatch @ex::@write_in_place(%x[%c0 to %c4 for %c4]) : (!stream.resource<transient>{%c4}) -> %x{%c4}
    stream.yield %1, %2 : !stream.resource<transient>{%c4}, !stream.resource<transient>{%c4}
  } => !stream.timepoint
  %ready:2 = stream.timepoint.await %t => %r#0, %r#1 : !stream.resource<transient>{%c4}, !stream.resource<transient>{%c4}
  util.return %ready#0, %ready#1 : !stream.resource<transient>, !stream.resource<transient>
}

// -----

// Hazards are on bytes of storage, not SSA values: a read of bytes [0, 64) and an in-place update of bytes [64, 128) of the same capture share a wave; an update of [32, 96) does not.
// CHECK-LABEL: @byteRanges
util.func public @byteRanges(%arg0: !stream.resource<transient>, %arg1: !stream.resource<transient>, %u: !stream.resource<transient>) -> (!stream.resource<transient>, !stream.resource<transient>, !stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  %c128 = arith.constant 128 : index
  // CHECK: stream.async.execute
  // MIN-NEXT: stream.async.concurrent
  // MIN-NEXT: stream.async.dispatch @ex::@read_low(
  // MIN-NEXT: stream.async.update %{{.+}}, %{{.+}}[%c64 to %c96]
  // MIN-NEXT: stream.async.dispatch @ex::@read_low_again(
  // MIN-NEXT: stream.yield
  // MIN-NEXT: }
  // MIN-NEXT: stream.async.update %{{.+}}, %{{.+}}[%c32 to %c64]
  // MAX-NEXT: stream.async.dispatch @ex::@read_low_again(
  // MAX-NEXT: stream.async.concurrent
  // MAX-NEXT: stream.async.dispatch @ex::@read_low(
  // MAX-NEXT: stream.async.update %{{.+}}, %{{.+}}[%c64 to %c96]
  // MAX-NEXT: stream.async.update %{{.+}}, %{{.+}}[%c32 to %c64]
  // MAX-NEXT: stream.yield
  %r:4, %t = stream.async.execute with(%arg0 as %x: !stream.resource<transient>{%c128}, %arg1 as %y: !stream.resource<transient>{%c128}, %u as %v: !stream.resource<transient>{%c32}) -> (!stream.resource<transient>{%c64}, %arg0{%c128}, !stream.resource<transient>{%c64}, %arg1{%c128}) {
    %0 = stream.async.dispatch @ex::@read_low(%x[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c128}) -> !stream.resource<transient>{%c64}
    %1 = stream.async.update %v, %x[%c64 to %c96] : !stream.resource<transient>{%c32} -> %x as !stream.resource<transient>{%c128}
    %2 = stream.async.dispatch @ex::@read_low_again(%y[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c128}) -> !stream.resource<transient>{%c64}
    %3 = stream.async.update %v, %y[%c32 to %c64] : !stream.resource<transient>{%c32} -> %y as !stream.resource<transient>{%c128}
    stream.yield %0, %1, %2, %3 : !stream.resource<transient>{%c64}, !stream.resource<transient>{%c128}, !stream.resource<transient>{%c64}, !stream.resource<transient>{%c128}
  } => !stream.timepoint
  %ready:4 = stream.timepoint.await %t => %r#0, %r#1, %r#2, %r#3 : !stream.resource<transient>{%c64}, !stream.resource<transient>{%c128}, !stream.resource<transient>{%c64}, !stream.resource<transient>{%c128}
  util.return %ready#0, %ready#1, %ready#2, %ready#3 : !stream.resource<transient>, !stream.resource<transient>, !stream.resource<transient>, !stream.resource<transient>
}

// -----

// In-place writes into two different captures share a wave; the wave's results are tied to its captures, and metadata (alloca) stays outside, before the wave.
// CHECK-LABEL: @tiedWave
util.func public @tiedWave(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // CHECK: stream.async.execute with(%arg0 as %[[A:.+]]: !stream.resource<external>{%c16}, %arg1 as %[[B:.+]]: !stream.resource<external>{%c16})
  // CHECK-NEXT: %[[ALLOCA:.+]] = stream.async.alloca : !stream.resource<transient>{%c16}
  // CHECK-NEXT: %[[W:.+]]:3 = stream.async.concurrent with(%[[A]] as %[[IA:.+]]: !stream.resource<external>{%c16}, %[[B]] as %[[IB:.+]]: !stream.resource<external>{%c16}, %[[ALLOCA]] as %[[IC:.+]]: !stream.resource<transient>{%c16}) -> (%[[A]]{%c16}, %[[B]]{%c16}, %[[ALLOCA]]{%c16}) {
  // CHECK-NEXT: stream.async.dispatch @ex::@scale(%[[IA]][{{.+}}]) : ({{.+}}) -> %[[IA]]{%c16}
  // CHECK-NEXT: stream.async.dispatch @ex::@scale(%[[IB]][{{.+}}]) : ({{.+}}) -> %[[IB]]{%c16}
  // CHECK-NEXT: stream.async.dispatch @ex::@zero(%[[IC]][{{.+}}]) : ({{.+}}) -> %[[IC]]{%c16}
  // CHECK: stream.yield %[[W]]#0, %[[W]]#1, %[[W]]#2
  %r:3, %t = stream.async.execute with(%arg0 as %a: !stream.resource<external>{%c16}, %arg1 as %b: !stream.resource<external>{%c16}) -> (%arg0{%c16}, %arg1{%c16}, !stream.resource<transient>{%c16}) {
    %0 = stream.async.dispatch @ex::@scale(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> %a{%c16}
    %1 = stream.async.dispatch @ex::@scale(%b[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> %b{%c16}
    %2 = stream.async.alloca : !stream.resource<transient>{%c16}
    %3 = stream.async.dispatch @ex::@zero(%2[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> %2{%c16}
    stream.yield %0, %1, %3 : !stream.resource<external>{%c16}, !stream.resource<external>{%c16}, !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %ready:3 = stream.timepoint.await %t => %r#0, %r#1, %r#2 : !stream.resource<external>{%c16}, !stream.resource<external>{%c16}, !stream.resource<transient>{%c16}
  util.return %ready#0, %ready#1, %ready#2 : !stream.resource<external>, !stream.resource<external>, !stream.resource<transient>
}

// -----

// A chain of dependent ops gets no wave at all, and ops outside execute regions are left alone.
// CHECK-LABEL: @chain
// CHECK-NOT: stream.async.concurrent
// CHECK: util.return
util.func public @chain(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %r, %t = stream.async.execute with(%arg0 as %a: !stream.resource<external>{%c8}) -> !stream.resource<external>{%c8} {
    %0 = stream.async.dispatch @ex::@f(%a[%c0 to %c8 for %c8]) : (!stream.resource<external>{%c8}) -> !stream.resource<transient>{%c8}
    %1 = stream.async.dispatch @ex::@g(%0[%c0 to %c8 for %c8]) : (!stream.resource<transient>{%c8}) -> !stream.resource<external>{%c8}
    stream.yield %1 : !stream.resource<external>{%c8}
  } => !stream.timepoint
  %ready = stream.timepoint.await %t => %r : !stream.resource<external>{%c8}
  util.return %ready : !stream.resource<external>
}

// RUN: streamproof compile %s --allow-input-violations --pass-pipeline=propagate-timepoints --split-input-file | filecheck %s

// A region consuming another's result captures it un-awaited and waits on the device; the host await between them disappears.
// CHECK-LABEL: @chainRegions
util.func public @chainRegions(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // CHECK: %[[R0:.+]], %[[T0:.+]] = stream.async.execute on(#hal.device.affinity<@dev_b>) with(%arg0 as
  // CHECK-NOT: stream.timepoint.await
  // CHECK: %[[R1:.+]], %[[T1:.+]] = stream.async.execute on(#hal.device.affinity<@dev_a>) await(%[[T0]]) => with(%[[R0]] as
  // CHECK: %[[READY:.+]] = stream.timepoint.await %[[T1]] => %[[R1]]
  // CHECK-NEXT: util.return %[[READY]]
  %r0, %t0 = stream.async.execute on(#hal.device.affinity<@dev_b>) with(%arg0 as %a: !stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16} {
    %0 = stream.async.dispatch @ex::@b(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
    stream.yield %0 : !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %w0 = stream.timepoint.await %t0 => %r0 : !stream.resource<transient>{%c16}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev_a>) with(%w0 as %b: !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@a(%b[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %w1 = stream.timepoint.await %t1 => %r1 : !stream.resource<external>{%c16}
  util.return %w1 : !stream.resource<external>
}

// -----

// Captures from several regions give a join; the region's own await is kept in it.
// CHECK-LABEL: @joinProducers
// CHECK-SAME: (%{{.+}}: !stream.resource<external>, %[[EXTERNAL:.+]]: !stream.timepoint)
util.func public @joinProducers(%arg0: !stream.resource<external>, %ext: !stream.timepoint) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // CHECK: %[[RA:.+]], %[[TA:.+]] = stream.async.execute on(#hal.device.affinity<@dev_a>)
  // CHECK: %[[RB:.+]], %[[TB:.+]] = stream.async.execute on(#hal.device.affinity<@dev_b>)
  // CHECK: %[[JOIN:.+]] = stream.timepoint.join max(%[[TA]], %[[TB]], %[[EXTERNAL]]) => !stream.timepoint
  // CHECK: stream.async.execute on(#hal.device.affinity<@dev_c>) await(%[[JOIN]]) => with(%[[RA]] as %{{.+}}, %[[RB]] as
  %ra, %ta = stream.async.execute on(#hal.device.affinity<@dev_a>) with(%arg0 as %a: !stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16} {
    %0 = stream.async.dispatch @ex::@a(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
    stream.yield %0 : !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %rb, %tb = stream.async.execute on(#hal.device.affinity<@dev_b>) with(%arg0 as %a: !stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16} {
    %0 = stream.async.dispatch @ex::@b(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
    stream.yield %0 : !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %wa, %wb = stream.timepoint.await %ta => %ra, %rb : !stream.resource<transient>{%c16}, !stream.resource<transient>{%c16}
  %wb2 = stream.timepoint.await %tb => %wb : !stream.resource<transient>{%c16}
  %rc, %tc = stream.async.execute on(#hal.device.affinity<@dev_c>) await(%ext) => with(%wa as %x: !stream.resource<transient>{%c16}, %wb2 as %y: !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@c(%x[%c0 to %c16 for %c16], %y[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}, !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %wc = stream.timepoint.await %tc => %rc : !stream.resource<external>{%c16}
  util.return %wc : !stream.resource<external>
}

// -----

// Host waits move to the host use: the await written right after the first region now comes after the second region is issued, so both devices run at once.
// CHECK-LABEL: @sinkHostWaits
util.func public @sinkHostWaits(%arg0: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // CHECK: %[[RA:.+]], %[[TA:.+]] = stream.async.execute on(#hal.device.affinity<@dev_a>)
  // CHECK-NOT: stream.timepoint.await
  // CHECK: %[[RB:.+]], %[[TB:.+]] = stream.async.execute on(#hal.device.affinity<@dev_b>)
  // CHECK-NOT: await(
  // CHECK: %[[WA:.+]] = stream.timepoint.await %[[TA]] => %[[RA]]
  // CHECK: %[[WB:.+]] = stream.timepoint.await %[[TB]] => %[[RB]]
  // CHECK: util.return %[[WA]], %[[WB]]
  %ra, %ta = stream.async.execute on(#hal.device.affinity<@dev_a>) with(%arg0 as %a: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@a(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %wa = stream.timepoint.await %ta => %ra : !stream.resource<external>{%c16}
  %rb, %tb = stream.async.execute on(#hal.device.affinity<@dev_b>) with(%arg0 as %a: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@b(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %wb = stream.timepoint.await %tb => %rb : !stream.resource<external>{%c16}
  util.return %wa, %wb : !stream.resource<external>, !stream.resource<external>
}

// -----

// A value used by both a region and the host: the region is chained on the device, the host still awaits, and one await serves all host uses of a region.
// CHECK-LABEL: @deviceAndHostUse
util.func public @deviceAndHostUse(%arg0: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // CHECK: %[[R:.+]]:2, %[[T:.+]] = stream.async.execute
  // CHECK: %[[R2:.+]], %[[T2:.+]] = stream.async.execute await(%[[T]]) => with(%[[R]]#0 as
  // CHECK: %[[W:.+]]:2 = stream.timepoint.await %[[T]] => %[[R]]#0, %[[R]]#1
  // CHECK: %[[W2:.+]] = stream.timepoint.await %[[T2]] => %[[R2]]
  // CHECK: util.return %[[W]]#0, %[[W]]#1, %[[W2]]
  %r:2, %t = stream.async.execute with(%arg0 as %a: !stream.resource<external>{%c16}) -> (!stream.resource<external>{%c16}, !stream.resource<external>{%c16}) {
    %0 = stream.async.dispatch @ex::@f(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    %1 = stream.async.dispatch @ex::@g(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0, %1 : !stream.resource<external>{%c16}, !stream.resource<external>{%c16}
  } => !stream.timepoint
  %w:2 = stream.timepoint.await %t => %r#0, %r#1 : !stream.resource<external>{%c16}, !stream.resource<external>{%c16}
  %r2, %t2 = stream.async.execute with(%w#0 as %b: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@h(%b[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %w2 = stream.timepoint.await %t2 => %r2 : !stream.resource<external>{%c16}
  util.return %w#0, %w#1, %w2 : !stream.resource<external>, !stream.resource<external>, !stream.resource<external>
}

// -----

// Covered waits are dropped: C needs A and B, but B already waits for A on the device, so C waits for B only.
// CHECK-LABEL: @transitiveCoverage
util.func public @transitiveCoverage(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // CHECK: %[[RA:.+]], %[[TA:.+]] = stream.async.execute on(#hal.device.affinity<@dev_a>)
  // CHECK: %[[RB:.+]], %[[TB:.+]] = stream.async.execute on(#hal.device.affinity<@dev_b>) await(%[[TA]])
  // CHECK-NOT: stream.timepoint.join
  // CHECK: stream.async.execute on(#hal.device.affinity<@dev_a>) await(%[[TB]]) => with(%[[RA]] as %{{.+}}, %[[RB]] as
  %ra, %ta = stream.async.execute on(#hal.device.affinity<@dev_a>) with(%arg0 as %a: !stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16} {
    %0 = stream.async.dispatch @ex::@a(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
    stream.yield %0 : !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %wa = stream.timepoint.await %ta => %ra : !stream.resource<transient>{%c16}
  %rb, %tb = stream.async.execute on(#hal.device.affinity<@dev_b>) with(%wa as %x: !stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16} {
    %0 = stream.async.dispatch @ex::@b(%x[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16}
    stream.yield %0 : !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %wb = stream.timepoint.await %tb => %rb : !stream.resource<transient>{%c16}
  %rc, %tc = stream.async.execute on(#hal.device.affinity<@dev_a>) with(%wa as %x: !stream.resource<transient>{%c16}, %wb as %y: !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@c(%x[%c0 to %c16 for %c16], %y[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}, !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %wc = stream.timepoint.await %tc => %rc : !stream.resource<external>{%c16}
  util.return %wc : !stream.resource<external>
}

// -----

// Host awaits count as coverage: a region issued after the host waited for A does not wait for A again.
// CHECK-LABEL: @hostCoverage
util.func public @hostCoverage(%arg0: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // CHECK: %[[RA:.+]], %[[TA:.+]] = stream.async.execute
  // CHECK: %[[WA:.+]] = stream.timepoint.await %[[TA]] => %[[RA]]
  // CHECK: "test.use"(%[[WA]])
  // CHECK: stream.async.execute with(%[[RA]] as
  %ra, %ta = stream.async.execute with(%arg0 as %a: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@a(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %wa = stream.timepoint.await %ta => %ra : !stream.resource<external>{%c16}
  "test.use"(%wa) : (!stream.resource<external>) -> ()
  %rb, %tb = stream.async.execute with(%wa as %x: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@b(%x[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %wb = stream.timepoint.await %tb => %rb : !stream.resource<external>{%c16}
  util.return %wa, %wb : !stream.resource<external>, !stream.resource<external>
}

// -----

// A storage hazard without data flow: the second region writes %arg0 in place after the first read it, so it waits for the first on the device.
// CHECK-LABEL: @writeAfterRead
util.func public @writeAfterRead(%arg0: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // CHECK: %[[RA:.+]], %[[TA:.+]] = stream.async.execute on(#hal.device.affinity<@dev_a>)
  // CHECK: stream.async.execute on(#hal.device.affinity<@dev_b>) await(%[[TA]]) => with(%arg0 as
  %ra, %ta = stream.async.execute on(#hal.device.affinity<@dev_a>) with(%arg0 as %a: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@read(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %rb, %tb = stream.async.execute on(#hal.device.affinity<@dev_b>) with(%arg0 as %b: !stream.resource<external>{%c16}) -> %arg0{%c16} {
    %0 = stream.async.dispatch @ex::@write(%b[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> %b{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %w:2 = stream.timepoint.await %tb => %ra, %rb : !stream.resource<external>{%c16}, !stream.resource<external>{%c16}
  util.return %w#0, %w#1 : !stream.resource<external>, !stream.resource<external>
}

// -----

// A timepoint.barrier becomes the timepoint its resource is covered by; the external chain waits for the region directly.
// CHECK-LABEL: @barrierTimepoint
util.func public @barrierTimepoint(%arg0: !stream.resource<external>, %fence: !hal.fence) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // CHECK: %[[R:.+]], %[[T:.+]] = stream.async.execute
  // CHECK-NOT: stream.timepoint.barrier
  // CHECK: stream.timepoint.chain_external %[[T]] => (%{{.+}} : !hal.fence)
  // CHECK: stream.timepoint.await %[[T]] => %[[R]]
  %r, %t = stream.async.execute with(%arg0 as %a: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@f(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %b, %bt = stream.timepoint.barrier %r : !stream.resource<external>{%c16} => !stream.timepoint
  stream.timepoint.chain_external %bt => (%fence : !hal.fence)
  %w = stream.timepoint.await %bt => %b : !stream.resource<external>{%c16}
  util.return %w : !stream.resource<external>
}

// -----

// A sync await (an initializer's) is a real host wait: kept where it is, and regions issued after it need not wait again.
// CHECK-LABEL: @syncAwait
util.func public @syncAwait(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // CHECK: %[[R:.+]], %[[T:.+]] = stream.async.execute
  // CHECK: %[[W:.+]] = stream.timepoint.await sync %[[T]] => %[[R]]
  // CHECK: stream.async.execute with(%[[W]] as
  %r, %t = stream.async.execute with(%arg0 as %a: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@f(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %w = stream.timepoint.await sync %t => %r : !stream.resource<external>{%c16}
  %r2, %t2 = stream.async.execute with(%w as %b: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@g(%b[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %w2 = stream.timepoint.await %t2 => %r2 : !stream.resource<external>{%c16}
  util.return %w2 : !stream.resource<external>
}

// -----

// A host op using results of two regions awaits each; a region issued afterwards needs neither timepoint again.
// CHECK-LABEL: @hostUsesTwoRegions
util.func public @hostUsesTwoRegions(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // CHECK: %[[RA:.+]], %[[TA:.+]] = stream.async.execute on(#hal.device.affinity<@dev_a>)
  // CHECK: %[[RB:.+]], %[[TB:.+]] = stream.async.execute on(#hal.device.affinity<@dev_b>)
  // CHECK-DAG: %[[WA:.+]] = stream.timepoint.await %[[TA]] => %[[RA]]
  // CHECK-DAG: %[[WB:.+]] = stream.timepoint.await %[[TB]] => %[[RB]]
  // CHECK: "test.use"(%[[WA]], %[[WB]])
  // CHECK: stream.async.execute on(#hal.device.affinity<@dev_a>) with(%[[RA]] as %{{.+}}, %[[RB]] as
  %ra, %ta = stream.async.execute on(#hal.device.affinity<@dev_a>) with(%arg0 as %a: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@a(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %rb, %tb = stream.async.execute on(#hal.device.affinity<@dev_b>) with(%arg0 as %a: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@b(%a[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %wa = stream.timepoint.await %ta => %ra : !stream.resource<external>{%c16}
  %wb = stream.timepoint.await %tb => %rb : !stream.resource<external>{%c16}
  "test.use"(%wa, %wb) : (!stream.resource<external>, !stream.resource<external>) -> ()
  %rc, %tc = stream.async.execute on(#hal.device.affinity<@dev_a>) with(%wa as %x: !stream.resource<external>{%c16}, %wb as %y: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %0 = stream.async.dispatch @ex::@c(%x[%c0 to %c16 for %c16], %y[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}, !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %0 : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %wc = stream.timepoint.await %tc => %rc : !stream.resource<external>{%c16}
  util.return %wc : !stream.resource<external>
}

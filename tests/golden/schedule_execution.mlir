// RUN: streamproof compile %s --allow-input-violations --pass-pipeline=schedule-execution --split-input-file | filecheck %s

// One device: every streamable op lands in one region; in-place dispatches stay in it; the escaping result is awaited before its host use.
// CHECK-LABEL: @singleDevice
// CHECK-SAME: (%[[ARG0:.+]]: !stream.resource<external>, %[[ARG1:.+]]: !stream.resource<external>)
util.func public @singleDevice(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c20 = arith.constant 20 : index
  %c80 = arith.constant 80 : index
  %c1280 = arith.constant 1280 : index
  %c255_i32 = arith.constant 255 : i32
  // CHECK: %[[RESULT:.+]], %[[TP:.+]] = stream.async.execute
  // CHECK-SAME: with(%[[ARG1]] as %[[CAP1:.+]]: !stream.resource<external>{%c80}, %[[ARG0]] as %[[CAP0:.+]]: !stream.resource<external>{%c20})
  // CHECK-SAME: -> !stream.resource<external>{%c20} {
  // CHECK-NEXT: %[[SPLAT0:.+]] = stream.async.splat
  %0 = stream.async.splat %c255_i32 : i32 -> !stream.resource<transient>{%c1280}
  // CHECK-NEXT: %[[D0:.+]] = stream.async.dispatch @ex::@dispatch_0(%[[SPLAT0]][{{.+}}], %[[CAP1]][{{.+}}]) : ({{.+}}) -> %[[SPLAT0]]{%c1280}
  %1 = stream.async.dispatch @ex::@dispatch_0(%0[%c0 to %c1280 for %c1280], %arg1[%c0 to %c80 for %c80]) : (!stream.resource<transient>{%c1280}, !stream.resource<external>{%c80}) -> %0{%c1280}
  // CHECK-NEXT: %[[SPLAT1:.+]] = stream.async.splat
  %2 = stream.async.splat %c255_i32 : i32 -> !stream.resource<transient>{%c20}
  // CHECK-NEXT: %[[D1:.+]] = stream.async.dispatch @ex::@dispatch_1(%[[CAP0]][{{.+}}], %[[SPLAT1]][{{.+}}])
  %3 = stream.async.dispatch @ex::@dispatch_1(%arg0[%c0 to %c20 for %c20], %2[%c0 to %c20 for %c20]) : (!stream.resource<external>{%c20}, !stream.resource<transient>{%c20}) -> %2{%c20}
  // CHECK-NEXT: %[[D2:.+]] = stream.async.dispatch @ex::@dispatch_2(%[[D0]][{{.+}}], %[[D1]][{{.+}}])
  %4 = stream.async.dispatch @ex::@dispatch_2(%1[%c0 to %c1280 for %c1280], %3[%c0 to %c20 for %c20]) : (!stream.resource<transient>{%c1280}, !stream.resource<transient>{%c20}) -> !stream.resource<external>{%c20}
  // CHECK-NEXT: stream.yield %[[D2]] : !stream.resource<external>{%c20}
  // CHECK-NEXT: } => !stream.timepoint
  // CHECK-NEXT: %[[READY:.+]] = stream.timepoint.await %[[TP]] => %[[RESULT]] : !stream.resource<external>{%c20}
  // CHECK-NEXT: util.return %[[READY]]
  util.return %4 : !stream.resource<external>
}

// -----

// A region result written in place into a capture is tied to it (-> %capture), like IREE's canonical form.
// CHECK-LABEL: @tiedRegionResult
util.func public @tiedRegionResult(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // CHECK: %[[RESULT:.+]], %[[TP:.+]] = stream.async.execute on(#hal.device.affinity<@dev0>)
  // CHECK-SAME: with(%arg0 as %[[A:.+]]: !stream.resource<external>{%c64}, %arg1 as %[[B:.+]]: !stream.resource<external>{%c64}) -> %arg1{%c64}
  // CHECK-NEXT: stream.async.dispatch @ex::@acc(%[[A]][{{.+}}], %[[B]][{{.+}}]) : ({{.+}}) -> %[[B]]{%c64}
  %0 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @ex::@acc(%arg0[%c0 to %c64 for %c64], %arg1[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}, !stream.resource<external>{%c64}) -> %arg1{%c64}
  // CHECK: stream.timepoint.await %[[TP]] => %[[RESULT]]
  util.return %0 : !stream.resource<external>
}

// -----

// Independent work of two devices goes into two regions that share nothing; the consumer on a third queue gets both results.
// CHECK-LABEL: @concurrentDevices
util.func public @concurrentDevices(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c20 = arith.constant 20 : index
  // CHECK: %[[R0:.+]], %[[T0:.+]] = stream.async.execute on(#hal.device.affinity<@dev_a>) with(%arg0 as
  // CHECK-NOT: await
  // CHECK: stream.async.dispatch @ex::@a
  %0 = stream.async.dispatch on(#hal.device.affinity<@dev_a>) @ex::@a(%arg0[%c0 to %c20 for %c20]) : (!stream.resource<external>{%c20}) -> !stream.resource<transient>{%c20}
  // CHECK: %[[R1:.+]], %[[T1:.+]] = stream.async.execute on(#hal.device.affinity<@dev_b>) with(%arg0 as
  // CHECK: stream.async.dispatch @ex::@b
  %1 = stream.async.dispatch on(#hal.device.affinity<@dev_b>) @ex::@b(%arg0[%c0 to %c20 for %c20]) : (!stream.resource<external>{%c20}) -> !stream.resource<transient>{%c20}
  // CHECK: %[[A0:.+]] = stream.timepoint.await %[[T0]] => %[[R0]]
  // CHECK: %[[A1:.+]] = stream.timepoint.await %[[T1]] => %[[R1]]
  // CHECK: stream.async.execute on(#hal.device.affinity<@dev_c>) with(%[[A0]] as %{{.+}}, %[[A1]] as
  // CHECK: stream.async.dispatch @ex::@c
  %2 = stream.async.dispatch on(#hal.device.affinity<@dev_c>) @ex::@c(%0[%c0 to %c20 for %c20], %1[%c0 to %c20 for %c20]) : (!stream.resource<transient>{%c20}, !stream.resource<transient>{%c20}) -> !stream.resource<external>{%c20}
  util.return %2 : !stream.resource<external>
}

// -----

// Better than IREE (i_multidevice_overlap): @a0 does not depend on dev_b, so it is not put in the dev_a region that waits for dev_b; dev_b's work does not wait for @a0 either.
// CHECK-LABEL: @overlapDevices
util.func public @overlapDevices(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // CHECK: %[[B:.+]], %[[TB:.+]] = stream.async.execute on(#hal.device.affinity<@dev_b>)
  // CHECK-NEXT: stream.async.transfer
  // CHECK-NEXT: stream.async.dispatch @ex::@b0
  // CHECK-NEXT: stream.async.transfer
  // CHECK-NEXT: stream.yield
  // CHECK: %[[A:.+]], %[[TA:.+]] = stream.async.execute on(#hal.device.affinity<@dev_a>) with(%arg0 as
  // CHECK-NEXT: stream.async.dispatch @ex::@a0
  // CHECK-NEXT: stream.yield
  // CHECK: %[[AA:.+]] = stream.timepoint.await %[[TA]] => %[[A]]
  // CHECK: %[[BB:.+]] = stream.timepoint.await %[[TB]] => %[[B]]
  // CHECK: stream.async.execute on(#hal.device.affinity<@dev_a>) with(%[[AA]] as %{{.+}}, %[[BB]] as
  // CHECK-NEXT: stream.async.dispatch @ex::@a1
  %a0 = stream.async.dispatch on(#hal.device.affinity<@dev_a>) @ex::@a0(%arg0[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
  %t0 = stream.async.transfer %arg1 : !stream.resource<external>{%c64} from(#hal.device.affinity<@dev_a>) -> to(#hal.device.affinity<@dev_b>) !stream.resource<transient>{%c64}
  %b0 = stream.async.dispatch on(#hal.device.affinity<@dev_b>) @ex::@b0(%t0[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> !stream.resource<transient>{%c64}
  %t1 = stream.async.transfer %b0 : !stream.resource<transient>{%c64} from(#hal.device.affinity<@dev_b>) -> to(#hal.device.affinity<@dev_a>) !stream.resource<transient>{%c64}
  %a1 = stream.async.dispatch on(#hal.device.affinity<@dev_a>) @ex::@a1(%a0[%c0 to %c64 for %c64], %t1[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}, !stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64}
  util.return %a1 : !stream.resource<external>
}

// -----

// Interleaved dependencies between two devices: each level of the exchange is its own pair of regions (IREE merges e01 with e11 and e10 with e20, so e01 waits for e00).
// CHECK-LABEL: @interleavedDevices
util.func public @interleavedDevices(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>) -> (!stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: stream.async.execute on(#hal.device.affinity<@device_0>) with(%arg0
  // CHECK-NEXT: stream.async.dispatch @ex::@e00
  // CHECK: stream.async.execute on(#hal.device.affinity<@device_1>) with(%arg1
  // CHECK-NEXT: stream.async.dispatch @ex::@e01
  // CHECK: stream.async.execute on(#hal.device.affinity<@device_0>)
  // CHECK-NEXT: stream.async.dispatch @ex::@e10
  // CHECK-NEXT: stream.yield
  // CHECK: stream.async.execute on(#hal.device.affinity<@device_1>)
  // CHECK-NEXT: stream.async.dispatch @ex::@e11
  // CHECK-NEXT: stream.yield
  // CHECK: stream.async.execute on(#hal.device.affinity<@device_0>)
  // CHECK-NEXT: stream.async.dispatch @ex::@e20
  // CHECK-NEXT: stream.yield
  // CHECK: stream.async.execute on(#hal.device.affinity<@device_1>)
  // CHECK-NEXT: stream.async.dispatch @ex::@e21
  // CHECK-NEXT: stream.yield
  %0 = stream.async.dispatch on(#hal.device.affinity<@device_0>) @ex::@e00(%arg0[%c0 to %c1 for %c1]) : (!stream.resource<external>{%c1}) -> !stream.resource<transient>{%c1}
  %1 = stream.async.dispatch on(#hal.device.affinity<@device_1>) @ex::@e01(%arg1[%c0 to %c1 for %c1]) : (!stream.resource<external>{%c1}) -> !stream.resource<transient>{%c1}
  %2 = stream.async.dispatch on(#hal.device.affinity<@device_0>) @ex::@e10(%0[%c0 to %c1 for %c1], %1[%c0 to %c1 for %c1]) : (!stream.resource<transient>{%c1}, !stream.resource<transient>{%c1}) -> !stream.resource<transient>{%c1}
  %3 = stream.async.dispatch on(#hal.device.affinity<@device_1>) @ex::@e11(%0[%c0 to %c1 for %c1], %1[%c0 to %c1 for %c1]) : (!stream.resource<transient>{%c1}, !stream.resource<transient>{%c1}) -> !stream.resource<transient>{%c1}
  %4 = stream.async.dispatch on(#hal.device.affinity<@device_0>) @ex::@e20(%2[%c0 to %c1 for %c1], %3[%c0 to %c1 for %c1]) : (!stream.resource<transient>{%c1}, !stream.resource<transient>{%c1}) -> !stream.resource<external>{%c1}
  %5 = stream.async.dispatch on(#hal.device.affinity<@device_1>) @ex::@e21(%2[%c0 to %c1 for %c1], %3[%c0 to %c1 for %c1]) : (!stream.resource<transient>{%c1}, !stream.resource<transient>{%c1}) -> !stream.resource<external>{%c1}
  util.return %4, %5 : !stream.resource<external>, !stream.resource<external>
}

// -----

// Device -> host -> device in one block: the host load needs the first region's result, so the upload is a second region after an await.
// CHECK-LABEL: @deviceHostDevice
util.func public @deviceHostDevice() -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c123_i8 = arith.constant 123 : i8
  // CHECK: %[[D2H:.+]], %[[T0:.+]] = stream.async.execute with() -> !stream.resource<staging>{%c1}
  // CHECK-NEXT: stream.async.splat %c123_i8
  // CHECK-NEXT: %[[DOWN:.+]] = stream.async.transfer
  // CHECK-NEXT: stream.yield %[[DOWN]]
  // CHECK: %[[READY:.+]] = stream.timepoint.await %[[T0]] => %[[D2H]] : !stream.resource<staging>{%c1}
  // CHECK: %[[LOAD:.+]] = stream.async.load %[[READY]][%c0]
  // CHECK: %[[ADD:.+]] = arith.addi %[[LOAD]], %[[LOAD]]
  // CHECK: %[[STORE:.+]] = stream.async.store %[[ADD]], %[[READY]][%c0]
  // CHECK: %[[H2D:.+]], %[[T1:.+]] = stream.async.execute with(%[[STORE]] as %[[S:.+]]: !stream.resource<staging>{%c1}) -> !stream.resource<transient>{%c1}
  // CHECK-NEXT: stream.async.transfer %[[S]]
  // CHECK: stream.timepoint.await %[[T1]] => %[[H2D]]
  %0 = stream.async.splat %c123_i8 : i8 -> !stream.resource<transient>{%c1}
  %1 = stream.async.transfer %0 : !stream.resource<transient>{%c1} -> !stream.resource<staging>{%c1}
  %2 = stream.async.load %1[%c0] : !stream.resource<staging>{%c1} -> i8
  %3 = arith.addi %2, %2 : i8
  %4 = stream.async.store %3, %1[%c0] : i8 -> %1 as !stream.resource<staging>{%c1}
  %5 = stream.async.transfer %4 : !stream.resource<staging>{%c1} -> !stream.resource<transient>{%c1}
  util.return %5 : !stream.resource<transient>
}

// -----

// No device op is hoisted across a side-effecting host op (an unknown op, like cf.assert in IREE): the regions split in three.
// CHECK-LABEL: @dontHoistPastAsserts
util.func public @dontHoistPastAsserts(%arg0: !stream.resource<external>, %arg1: !stream.resource<external>, %cond: i1) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c20 = arith.constant 20 : index
  %c80 = arith.constant 80 : index
  %c255_i32 = arith.constant 255 : i32
  // CHECK: stream.async.execute
  // CHECK-NEXT: stream.async.splat
  // CHECK-NEXT: stream.async.dispatch @ex::@dispatch_0
  // CHECK: "test.side_effect"(%{{.+}}) <{msg = "A"}>
  // CHECK: stream.async.execute
  // CHECK-NEXT: stream.async.splat
  // CHECK-NEXT: stream.async.dispatch @ex::@dispatch_1
  // CHECK: "test.side_effect"(%{{.+}}) <{msg = "B"}>
  // CHECK: stream.async.execute
  // CHECK-NEXT: stream.async.dispatch @ex::@dispatch_2
  %2 = stream.async.splat %c255_i32 : i32 -> !stream.resource<transient>{%c80}
  %3 = stream.async.dispatch @ex::@dispatch_0(%2[%c0 to %c80 for %c80], %arg1[%c0 to %c80 for %c80]) : (!stream.resource<transient>{%c80}, !stream.resource<external>{%c80}) -> %2{%c80}
  "test.side_effect"(%cond) <{msg = "A"}> : (i1) -> ()
  %4 = stream.async.splat %c255_i32 : i32 -> !stream.resource<transient>{%c20}
  %5 = stream.async.dispatch @ex::@dispatch_1(%arg0[%c0 to %c20 for %c20], %4[%c0 to %c20 for %c20]) : (!stream.resource<external>{%c20}, !stream.resource<transient>{%c20}) -> %4{%c20}
  "test.side_effect"(%cond) <{msg = "B"}> : (i1) -> ()
  %6 = stream.async.dispatch @ex::@dispatch_2(%3[%c0 to %c80 for %c80], %5[%c0 to %c20 for %c20]) : (!stream.resource<transient>{%c80}, !stream.resource<transient>{%c20}) -> !stream.resource<external>{%c20}
  util.return %6 : !stream.resource<external>
}

// -----

// Cheap ops are copied into each consuming region (the splat runs on both devices); barriers steer partitioning and disappear.
// CHECK-LABEL: @cloneAcrossDevices
util.func public @cloneAcrossDevices() -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c255_i32 = arith.constant 255 : i32
  // The longer chain (device1, then back to device0) is issued first.
  // CHECK: %[[R1:.+]], %[[T1:.+]] = stream.async.execute on(#hal.device.affinity<@device1>) with()
  // CHECK-NEXT: stream.async.splat
  // CHECK-NEXT: stream.async.dispatch @ex::@dispatch1
  // CHECK-NEXT: stream.async.transfer
  // CHECK: %[[R0:.+]], %[[T0:.+]] = stream.async.execute on(#hal.device.affinity<@device0>) with()
  // CHECK-NEXT: stream.async.splat
  // CHECK-NEXT: %[[D0:.+]] = stream.async.dispatch @ex::@dispatch0
  // CHECK-NEXT: stream.async.transfer
  // CHECK-NEXT: stream.yield %[[D0]]
  // CHECK-NOT: stream.async.barrier
  // CHECK: %[[A0:.+]] = stream.timepoint.await %[[T0]] => %[[R0]]
  // CHECK: %[[A1:.+]] = stream.timepoint.await %[[T1]] => %[[R1]]
  // CHECK: stream.async.execute on(#hal.device.affinity<@device0>) with(%[[A0]] as %{{.+}}, %[[A1]] as
  // CHECK-NEXT: stream.async.dispatch @ex::@dispatch2
  %0 = stream.async.splat %c255_i32 : i32 -> !stream.resource<transient>{%c128}
  %1 = stream.async.dispatch on(#hal.device.affinity<@device0>) @ex::@dispatch0(%0[%c0 to %c128 for %c128]) : (!stream.resource<transient>{%c128}) -> !stream.resource<transient>{%c128}
  %2 = stream.async.barrier %1 : !stream.resource<transient>{%c128}
  %3 = stream.async.transfer %1 : !stream.resource<transient>{%c128} from(#hal.device.affinity<@device0>) -> to(#hal.device.affinity<@device1>) !stream.resource<transient>{%c128}
  %4 = stream.async.dispatch on(#hal.device.affinity<@device1>) @ex::@dispatch1(%0[%c0 to %c128 for %c128]) : (!stream.resource<transient>{%c128}) -> !stream.resource<transient>{%c128}
  %5 = stream.async.transfer %4 : !stream.resource<transient>{%c128} from(#hal.device.affinity<@device1>) -> to(#hal.device.affinity<@device0>) !stream.resource<transient>{%c128}
  %6 = stream.async.dispatch on(#hal.device.affinity<@device0>) @ex::@dispatch2(%2[%c0 to %c128 for %c128], %5[%c0 to %c128 for %c128]) : (!stream.resource<transient>{%c128}, !stream.resource<transient>{%c128}) -> !stream.resource<transient>{%c128}
  util.return %6 : !stream.resource<transient>
}

// -----

// A transfer placed with on(...) runs on that device, in a region after its producer's.
// CHECK-LABEL: @placedTransfer
util.func public @placedTransfer(%arg0: !stream.resource<external>, %size: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  // CHECK: %[[P:.+]], %[[TP:.+]] = stream.async.execute on(#hal.device.affinity<@device_b>)
  // CHECK-NEXT: stream.async.dispatch
  // CHECK: %[[READY:.+]] = stream.timepoint.await %[[TP]] => %[[P]]
  // CHECK: stream.async.execute on(#hal.device.affinity<@device_a>) with(%[[READY]] as
  // CHECK-NEXT: stream.async.transfer
  // CHECK-NEXT: stream.yield
  %produced = stream.async.dispatch on(#hal.device.affinity<@device_b>) @ex::@dispatch_b(%arg0[%c0 to %size for %size]) : (!stream.resource<external>{%size}) -> !stream.resource<transient>{%size}
  %transferred = stream.async.transfer on(#hal.device.affinity<@device_a>) %produced : !stream.resource<transient>{%size} from(#hal.device.affinity<@device_b>) -> to(#hal.device.affinity<@device_a>) !stream.resource<external>{%size}
  util.return %transferred : !stream.resource<external>
}

// -----

// A storage hazard without data flow: the host op writes %arg0 in place after a region read it, so it waits for that region first.
// CHECK-LABEL: @hostWriteAfterDeviceRead
util.func public @hostWriteAfterDeviceRead(%arg0: !stream.resource<staging>, %v: i32) -> (!stream.resource<transient>, !stream.resource<staging>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // CHECK: %[[UP:.+]], %[[TP:.+]] = stream.async.execute with(%arg0 as
  // CHECK-NEXT: stream.async.transfer
  // CHECK: %[[WAITED:.+]]:2 = stream.timepoint.await %[[TP]] => %arg0, %[[UP]] : !stream.resource<staging>{%c4}, !stream.resource<transient>{%c4}
  // CHECK: %[[STORED:.+]] = stream.async.store %{{.+}}, %[[WAITED]]#0[%c0]
  // CHECK: util.return %[[WAITED]]#1, %[[STORED]]
  %0 = stream.async.transfer %arg0 : !stream.resource<staging>{%c4} -> !stream.resource<transient>{%c4}
  %1 = stream.async.store %v, %arg0[%c0] : i32 -> %arg0 as !stream.resource<staging>{%c4}
  util.return %0, %1 : !stream.resource<transient>, !stream.resource<staging>
}

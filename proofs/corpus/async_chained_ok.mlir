// EXPECT: proved
// The second execute awaits the first one's timepoint before it reads its result (chained on the device).
util.func public @chained(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %now = stream.timepoint.immediate => !stream.timepoint
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) await(%now) => with(%in as %a: !stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64} {
    %1 = stream.async.dispatch @ex::@first(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
    stream.yield %1 : !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %r2, %t2 = stream.async.execute on(#hal.device.affinity<@dev0>) await(%t1) => with(%r1 as %b: !stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64} {
    %2 = stream.async.dispatch @ex::@second(%b[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %2 : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %j = stream.timepoint.join max(%t1, %t2) => !stream.timepoint
  %r = stream.timepoint.await %j => %r2 : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

// EXPECT: MISSED_WAIT
// The caller exports a private function's result without awaiting the timepoint it came with (the callee hands the wait over): MISSED_WAIT, and so is returning while @produce may still read the caller's %in (its summary: until %t is reached).
util.func private @produce(%arg0: !stream.resource<external>, %t0: !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%arg0 as %a: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %x = stream.async.dispatch @ex::@f(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %x : !stream.resource<external>{%c64}
  } => !stream.timepoint
  util.return %r, %t : !stream.resource<external>, !stream.timepoint
}
util.func public @main(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %now = stream.timepoint.immediate => !stream.timepoint
  %r, %t = util.call @produce(%in, %now) : (!stream.resource<external>, !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint)

  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

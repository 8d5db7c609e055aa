// EXPECT: RACE_READ_AFTER_WRITE
// A wave op uses the result of another op of the same async.concurrent wave (reference rule A3).
util.func public @wave_dep(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %w:2 = stream.async.concurrent with(%a as %b: !stream.resource<external>{%c64}) -> (!stream.resource<transient>{%c64}, !stream.resource<external>{%c64}) {
      %1 = stream.async.dispatch @ex::@first(%b[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
      %2 = stream.async.dispatch @ex::@second(%1[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64}
      stream.yield %1, %2 : !stream.resource<transient>{%c64}, !stream.resource<external>{%c64}
    }
    stream.yield %w#1 : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %r1 : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

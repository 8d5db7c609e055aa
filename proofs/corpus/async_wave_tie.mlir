// EXPECT: RACE_WRITE_AFTER_READ
// IREE #14889: a reader of %y and an in-place writer of %y placed in one async.concurrent wave.
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

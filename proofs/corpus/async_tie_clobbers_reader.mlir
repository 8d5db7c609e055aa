// EXPECT: RACE_WRITE_AFTER_READ
// Tie linearity (A2): the in-place writer runs first in block order, so the later reader of %x sees the new bytes.
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

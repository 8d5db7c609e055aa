// EXPECT: RACE_READ_AFTER_WRITE
// Three in-place ops chained in one wave: the dispatch reads bytes [0, 16) of the fill's result, which the fill leaves alone but the update before it writes; the dispatch needs the update.
util.func public @wave_inplace_chain(%view: !hal.buffer_view, %row_view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %x0 = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %row = stream.tensor.import on(#hal.device.affinity<@dev0>) %row_view : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%x0 as %x: !stream.resource<external>{%c64}, %row as %u: !stream.resource<external>{%c16}) -> %x0{%c64} {
    %w = stream.async.concurrent with(%x as %y: !stream.resource<external>{%c64}, %u as %v: !stream.resource<external>{%c16}) -> %x{%c64} {
      %1 = stream.async.update %v, %y[%c0 to %c16] : !stream.resource<external>{%c16} -> %y as !stream.resource<external>{%c64}
      %2 = stream.async.fill %c1_i32, %1[%c16 to %c32 for %c16] : i32 -> %1 as !stream.resource<external>{%c64}
      %3 = stream.async.dispatch @ex::@d(%2[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c64}) -> %2{%c64}
      stream.yield %3 : !stream.resource<external>{%c64}
    }
    stream.yield %w : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %r1 : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

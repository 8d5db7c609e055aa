// EXPECT: RACE_WRITE_AFTER_WRITE
// Two in-place writers consume the same value %x: whichever runs second destroys what the other returned.
util.func public @two_ties(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %c2_i32 = arith.constant 2 : i32
  %x0 = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %results:2, %tp = stream.async.execute on(#hal.device.affinity<@dev0>) with(%x0 as %x: !stream.resource<external>{%c64}) -> (%x0{%c64}, %x0{%c64}) {
    %1 = stream.async.fill %c1_i32, %x[%c0 to %c32 for %c32] : i32 -> %x as !stream.resource<external>{%c64}
    %2 = stream.async.fill %c2_i32, %x[%c32 to %c64 for %c32] : i32 -> %x as !stream.resource<external>{%c64}
    stream.yield %1, %2 : !stream.resource<external>{%c64}, !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r:2 = stream.timepoint.await %tp => %results#0, %results#1 : !stream.resource<external>{%c64}, !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r#0 : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

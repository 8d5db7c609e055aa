// EXPECT: proved
// Two in-place writes in sequence: the second consumes the first one's result, not the original value.
util.func public @tie_chain(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %c2_i32 = arith.constant 2 : i32
  %x0 = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %result, %tp = stream.async.execute on(#hal.device.affinity<@dev0>) with(%x0 as %x: !stream.resource<external>{%c64}) -> %x0{%c64} {
    %first = stream.async.fill %c1_i32, %x[%c0 to %c32 for %c32] : i32 -> %x as !stream.resource<external>{%c64}
    %second = stream.async.fill %c2_i32, %first[%c32 to %c64 for %c32] : i32 -> %first as !stream.resource<external>{%c64}
    stream.yield %second : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %tp => %result : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

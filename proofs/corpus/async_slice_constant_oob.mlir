// EXPECT: OUT_OF_BOUNDS
// A constant slice [224, 288) of a 256-byte value: IREE accepts it; verify reports it with a witness (not bad input).
util.func public @slice_const_oob(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c224 = arith.constant 224 : index
  %end = arith.constant 288 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<64xf32> in !stream.resource<external>{%c256}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c256}) -> !stream.resource<external>{%c64} {
    %s = stream.async.slice %a[%c224 to %end] : !stream.resource<external>{%c256} -> !stream.resource<external>{%c64}
    stream.yield %s : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %r1 : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

// EXPECT: OUT_OF_BOUNDS
// A slice [n, n + 64) of a 256-byte value: out of bounds for n > 192 (Z3 gives such an n).
util.func public @slice_oob(%view: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %end = arith.addi %n, %c64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<64xf32> in !stream.resource<external>{%c256}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c256}) -> !stream.resource<external>{%c64} {
    %s = stream.async.slice %a[%n to %end] : !stream.resource<external>{%c256} -> !stream.resource<external>{%c64}
    stream.yield %s : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %r1 : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

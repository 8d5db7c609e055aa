// EXPECT: BORROWED_INPUT_MUTATED
// IREE #16168 at the async level (as in examples d_inplace): an in-place update of a borrowed import.
util.func public @borrowed_update(%cache_view: !hal.buffer_view, %row_view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %cache = stream.tensor.import on(#hal.device.affinity<@dev0>) %cache_view : !hal.buffer_view -> tensor<64xf32> in !stream.resource<external>{%c256}
  %row = stream.tensor.import on(#hal.device.affinity<@dev0>) %row_view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%cache as %c: !stream.resource<external>{%c256}, %row as %u: !stream.resource<external>{%c64}) -> %cache{%c256} {
    %1 = stream.async.update %u, %c[%c0 to %c64] : !stream.resource<external>{%c64} -> %c as !stream.resource<external>{%c256}
    stream.yield %1 : !stream.resource<external>{%c256}
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %r1 : !stream.resource<external>{%c256}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<64xf32> in !stream.resource<external>{%c256} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

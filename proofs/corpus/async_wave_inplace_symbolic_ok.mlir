// EXPECT: proved
// A concat of a row of %n bytes and two 16-byte pieces in one wave, chained in place (update, fill, dispatch): the three ranges are disjoint for every %n (Z3).
util.func public @wave_inplace_symbolic(%view: !hal.buffer_view, %row_view: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c1_i32 = arith.constant 1 : i32
  %mid = arith.addi %n, %c16 : index
  %size = arith.addi %n, %c32 : index
  %x0 = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<?xi8>{%size} in !stream.resource<external>{%size}
  %row = stream.tensor.import on(#hal.device.affinity<@dev0>) %row_view : !hal.buffer_view -> tensor<?xi8>{%n} in !stream.resource<external>{%n}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%x0 as %x: !stream.resource<external>{%size}, %row as %u: !stream.resource<external>{%n}) -> %x0{%size} {
    %w = stream.async.concurrent with(%x as %y: !stream.resource<external>{%size}, %u as %v: !stream.resource<external>{%n}) -> %x{%size} {
      %1 = stream.async.update %v, %y[%c0 to %n] : !stream.resource<external>{%n} -> %y as !stream.resource<external>{%size}
      %2 = stream.async.fill %c1_i32, %1[%n to %mid for %c16] : i32 -> %1 as !stream.resource<external>{%size}
      %3 = stream.async.dispatch @ex::@d(%2[%mid to %size for %c16]) : (!stream.resource<external>{%size}) -> %2{%size}
      stream.yield %3 : !stream.resource<external>{%size}
    }
    stream.yield %w : !stream.resource<external>{%size}
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %r1 : !stream.resource<external>{%size}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<?xi8>{%size} in !stream.resource<external>{%size} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

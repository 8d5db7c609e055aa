// EXPECT: RACE_WRITE_AFTER_READ
// IREE #13003 with the callee in the module: @bump writes %in in place (its summary says so), and the caller clones the old value after the call, which has replaced it.
util.func private @bump(%x: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%x as %a: !stream.resource<external>{%c64}) -> %x{%c64} {
    %y = stream.async.fill %c1_i32, %a[%c0 to %c64 for %c64] : i32 -> %a as !stream.resource<external>{%c64}
    stream.yield %y : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %w = stream.timepoint.await %t => %r : !stream.resource<external>{%c64}
  util.return %w : !stream.resource<external>
}
util.func public @main(%view: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %b = util.call @bump(%in) : (!stream.resource<external>) -> !stream.resource<external>
  %old = stream.async.clone on(#hal.device.affinity<@dev0>) %in : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
  %o1 = stream.tensor.export on(#hal.device.affinity<@dev0>) %b : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  %o2 = stream.tensor.export on(#hal.device.affinity<@dev0>) %old : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %o1, %o2 : !hal.buffer_view, !hal.buffer_view
}

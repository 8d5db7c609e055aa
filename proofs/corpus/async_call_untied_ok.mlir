// EXPECT: proved
// The #13003 fix: the region reads %init before the call that may write it in place (the call uses %init as awaited with the region's timepoint).
// The callee is declared only: what it does is not in the module.
util.func private @accumulate(%b: !stream.resource<external>) -> i32
util.func public @call_last(%init_view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %init = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %init_view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%init as %i: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %0 = stream.async.dispatch @ex::@use(%i[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %0 : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %w:2 = stream.timepoint.await %t => %r, %init : !stream.resource<external>{%c64}, !stream.resource<external>{%c64}
  %n = util.call @accumulate(%w#1) : (!stream.resource<external>) -> i32
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %w#0 : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

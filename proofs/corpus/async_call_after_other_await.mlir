// EXPECT: UNKNOWN
// The call may write %init in place while the region reads it: the await before the call orders only users of %w (awaits are pure), so nothing orders them (undecided, never proved: the call has no effect rule).
// The callee is declared only: what it does is not in the module.
util.func private @accumulate(%b: !stream.resource<external>) -> i32
util.func public @call_after_other_await(%init_view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %init = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %init_view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%init as %i: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %0 = stream.async.dispatch @ex::@use(%i[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %0 : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %w = stream.timepoint.await %t => %r : !stream.resource<external>{%c64}
  %n = util.call @accumulate(%init) : (!stream.resource<external>) -> i32
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %w : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

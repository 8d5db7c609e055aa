// EXPECT: UNKNOWN
// An op of a dialect streamproof does not know (generic form) takes the region's result before the wait: undecided, the op named, never a definite MISSED_WAIT.
util.func public @unknown_dialect(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %0 = stream.async.dispatch @ex::@f(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %0 : !stream.resource<external>{%c64}
  } => !stream.timepoint
  "mydialect.inspect"(%r1) : (!stream.resource<external>) -> ()
  %r = stream.timepoint.await %t1 => %r1 : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

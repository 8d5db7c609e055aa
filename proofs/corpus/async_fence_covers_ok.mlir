// EXPECT: proved
// The #22803 fix: the fence is chained to the timepoint of the execute that produces the returned value.
util.func public @fence_covers(%view: !hal.buffer_view, %fence: !hal.fence) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64} {
    %x = stream.async.dispatch @ex::@f(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
    stream.yield %x : !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %b, %tb = stream.timepoint.barrier on(#hal.device.affinity<@dev0>) %r1 : !stream.resource<transient>{%c64} => !stream.timepoint
  %r2, %t2 = stream.async.execute on(#hal.device.affinity<@dev0>) await(%t1) => with(%b as %c: !stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64} {
    %y = stream.async.transfer %c : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
    stream.yield %y : !stream.resource<external>{%c64}
  } => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t2 => (%fence : !hal.fence)
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r2 : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

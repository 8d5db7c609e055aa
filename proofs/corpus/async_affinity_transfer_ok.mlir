// EXPECT: proved
// The value crosses from @dev0 to @dev1 through a stream.async.transfer before @dev1 uses it.
util.func public @with_transfer(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64} {
    %x = stream.async.dispatch @ex::@first(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
    %xt = stream.async.transfer %x : !stream.resource<transient>{%c64} -> to(#hal.device.affinity<@dev1>) !stream.resource<transient>{%c64}
    stream.yield %xt : !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %r2, %t2 = stream.async.execute on(#hal.device.affinity<@dev1>) await(%t1) => with(%r1 as %b: !stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64} {
    %y = stream.async.dispatch @ex::@second(%b[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %y : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %t2 => %r2 : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev1>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

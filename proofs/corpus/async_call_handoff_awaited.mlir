// EXPECT: proved
// The caller awaits the timepoint the private function returns with its result before exporting it: proved. The call's effect comes from @produce's summary (verify/calls.py): it reads %in once %now is reached, until %t is, and returns a fresh value ready at %t.
util.func private @produce(%arg0: !stream.resource<external>, %t0: !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%arg0 as %a: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %x = stream.async.dispatch @ex::@f(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %x : !stream.resource<external>{%c64}
  } => !stream.timepoint
  util.return %r, %t : !stream.resource<external>, !stream.timepoint
}
util.func public @main(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %now = stream.timepoint.immediate => !stream.timepoint
  %r, %t = util.call @produce(%in, %now) : (!stream.resource<external>, !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint)
  %ready = stream.timepoint.await %t => %r : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %ready : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

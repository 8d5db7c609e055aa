// EXPECT: MISSED_WAIT
// A private function reads the argument the caller hands in with a timepoint without awaiting that timepoint (PropagateTimepoints' pairs): the value may not be ready yet. Twin: async_private_handoff_ok.
util.func private @produce(%arg0: !stream.resource<external>, %t0: !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%arg0 as %a: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %x = stream.async.dispatch @ex::@f(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %x : !stream.resource<external>{%c64}
  } => !stream.timepoint
  util.return %r, %t : !stream.resource<external>, !stream.timepoint
}

// EXPECT: RACE_WRITE_AFTER_READ
// IREE #23246: the clone of %a before the loop was elided, so the in-place step on the carried value clobbers %a, which the next iteration reads.
util.func public @accumulate(%view: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r = "scf.for"(%c0, %n, %c1, %a) ({
  ^bb0(%i: index, %acc: !stream.resource<external>):
    %res:2, %tp = stream.async.execute on(#hal.device.affinity<@dev0>) with(%a as %x: !stream.resource<external>{%c64}, %acc as %y: !stream.resource<external>{%c64}) -> (!stream.resource<transient>{%c64}, %acc{%c64}) {
      %d = stream.async.dispatch @ex::@delta(%x[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<transient>{%c64}
      %s = stream.async.dispatch @ex::@step(%y[%c0 to %c64 for %c64], %d[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}, !stream.resource<transient>{%c64}) -> %y{%c64}
      stream.yield %d, %s : !stream.resource<transient>{%c64}, !stream.resource<external>{%c64}
    } => !stream.timepoint
    %w:2 = stream.timepoint.await %tp => %res#0, %res#1 : !stream.resource<transient>{%c64}, !stream.resource<external>{%c64}
    "scf.yield"(%w#1) : (!stream.resource<external>) -> ()
  }) : (index, index, index, !stream.resource<external>) -> !stream.resource<external>
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

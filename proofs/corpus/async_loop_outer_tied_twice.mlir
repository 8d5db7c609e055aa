// EXPECT: RACE_WRITE_AFTER_WRITE
// A loop writes an outer value in place every iteration: the second iteration consumes the value the first already replaced.
util.func public @twice(%view: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r = "scf.for"(%c0, %n, %c1, %a) ({
  ^bb0(%i: index, %acc: !stream.resource<external>):
    %res, %tp = stream.async.execute on(#hal.device.affinity<@dev0>) with(%a as %x: !stream.resource<external>{%c64}) -> %a{%c64} {
      %s = stream.async.dispatch @ex::@step(%x[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> %x{%c64}
      stream.yield %s : !stream.resource<external>{%c64}
    } => !stream.timepoint
    %w = stream.timepoint.await %tp => %res : !stream.resource<external>{%c64}
    "scf.yield"(%w) : (!stream.resource<external>) -> ()
  }) : (index, index, index, !stream.resource<external>) -> !stream.resource<external>
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

util.func public @accumulate(%view: !hal.buffer_view, %n: index) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %cl, %tc = stream.async.execute on(#hal.device.affinity<@dev0>) with(%w as %x: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %k = stream.async.clone %x : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
    stream.yield %k : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %init = stream.timepoint.await %tc => %cl : !stream.resource<external>{%c64}
  %r = "scf.for"(%c0, %n, %c1, %init) ({
  ^bb0(%i: index, %acc: !stream.resource<external>):
    %s, %tp = stream.async.execute on(#hal.device.affinity<@dev0>) with(%w as %x: !stream.resource<external>{%c64}, %acc as %y: !stream.resource<external>{%c64}) -> %acc{%c64} {
      %u = stream.async.dispatch @ex::@step(%y[%c0 to %c64 for %c64], %x[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}, !stream.resource<external>{%c64}) -> %y{%c64}
      stream.yield %u : !stream.resource<external>{%c64}
    } => !stream.timepoint
    %next = stream.timepoint.await %tp => %s : !stream.resource<external>{%c64}
    "scf.yield"(%next) : (!stream.resource<external>) -> ()
  }) : (index, index, index, !stream.resource<external>) -> !stream.resource<external>
  %e0 = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  %e1 = stream.tensor.export on(#hal.device.affinity<@dev0>) %w : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %e0, %e1 : !hal.buffer_view, !hal.buffer_view
}

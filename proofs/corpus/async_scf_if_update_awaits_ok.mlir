// EXPECT: proved
// IREE #18123 fixed: the scf.if that reads %x in its regions yields its timepoint, and the in-place update of %x awaits it.
util.func public @read_then_update(%view: !hal.buffer_view, %c: i1) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %x = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %y:2 = "scf.if"(%c) ({
    %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%x as %a: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
      %d = stream.async.dispatch @ex::@scale(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
      stream.yield %d : !stream.resource<external>{%c64}
    } => !stream.timepoint
    "scf.yield"(%r, %t) : (!stream.resource<external>, !stream.timepoint) -> ()
  }, {
    %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%x as %a: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
      %d = stream.async.dispatch @ex::@negate(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
      stream.yield %d : !stream.resource<external>{%c64}
    } => !stream.timepoint
    "scf.yield"(%r, %t) : (!stream.resource<external>, !stream.timepoint) -> ()
  }) : (i1) -> (!stream.resource<external>, !stream.timepoint)
  %w, %tw = stream.async.execute on(#hal.device.affinity<@dev0>) await(%y#1) => with(%x as %a: !stream.resource<external>{%c64}) -> %x{%c64} {
    %u = stream.async.dispatch @ex::@update(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> %a{%c64}
    stream.yield %u : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %j = stream.timepoint.join max(%y#1, %tw) => !stream.timepoint
  %o:2 = stream.timepoint.await %j => %y#0, %w : !stream.resource<external>{%c64}, !stream.resource<external>{%c64}
  %e0 = stream.tensor.export on(#hal.device.affinity<@dev0>) %o#0 : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  %e1 = stream.tensor.export on(#hal.device.affinity<@dev0>) %o#1 : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %e0, %e1 : !hal.buffer_view, !hal.buffer_view
}

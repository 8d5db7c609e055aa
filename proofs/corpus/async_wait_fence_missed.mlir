// EXPECT: MISSED_WAIT
// Coarse-fences ABI: the execute reads the imported input without awaiting the wait fence, so it may read bytes the caller is still writing.
util.func public @main$async(%view: !hal.buffer_view, %wait: !hal.fence, %signal: !hal.fence) -> !hal.buffer_view attributes {iree.abi.model = "coarse-fences"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %ready = stream.timepoint.import on(#hal.device.affinity<@dev0>) %wait : (!hal.fence) => !stream.timepoint
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %x = stream.async.dispatch @ex::@f(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %x : !stream.resource<external>{%c64}
  } => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t => (%signal : !hal.fence)
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

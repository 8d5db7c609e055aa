// A coarse-fences ABI function as IREE's conversion writes it: every import is awaited on the host
// at the imported wait fence before a region reads it (two inputs, two awaits, two independent
// regions, so that neither region is ordered after the fence through the other's input); %signal
// covers the writes to both outputs. Source of the mutation self-test's drop-wait-fence class
// (tests/fuzz/test_mutation_kill.py).
util.func public @fences_host(%a_view: !hal.buffer_view, %b_view: !hal.buffer_view, %wait: !hal.fence, %signal: !hal.fence) -> (!hal.buffer_view, !hal.buffer_view) attributes {iree.abi.model = "coarse-fences"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ready = stream.timepoint.import on(#hal.device.affinity<@dev0>) %wait : (!hal.fence) => !stream.timepoint
  %a0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %a_view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %a = stream.timepoint.await %ready => %a0 : !stream.resource<external>{%c64}
  %b0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %b_view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %b = stream.timepoint.await %ready => %b0 : !stream.resource<external>{%c64}
  %ra, %ta = stream.async.execute on(#hal.device.affinity<@dev0>) with(%a as %x: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %s = stream.async.dispatch @ex::@neg(%x[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %s : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %rb, %tb = stream.async.execute on(#hal.device.affinity<@dev0>) with(%b as %y: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %s = stream.async.dispatch @ex::@neg(%y[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %s : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %t = stream.timepoint.join max(%ta, %tb) => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t => (%signal : !hal.fence)
  %out_a = stream.tensor.export on(#hal.device.affinity<@dev0>) %ra : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  %out_b = stream.tensor.export on(#hal.device.affinity<@dev0>) %rb : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out_a, %out_b : !hal.buffer_view, !hal.buffer_view
}

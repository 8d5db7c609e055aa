// A coarse-fences ABI function at the async level (the `$async` shape IREE gives ONNX models): the
// caller's input is ready at %wait, which the region reading it awaits; %signal covers the write to
// the output. Source of the mutation self-test's drop-wait-fence class (tests/fuzz/test_mutation_kill.py).
util.func public @fences_async(%view: !hal.buffer_view, %wait: !hal.fence, %signal: !hal.fence) -> !hal.buffer_view attributes {iree.abi.model = "coarse-fences"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ready = stream.timepoint.import on(#hal.device.affinity<@dev0>) %wait : (!hal.fence) => !stream.timepoint
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) await(%ready) => with(%in as %a: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %x = stream.async.dispatch @ex::@f(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %x : !stream.resource<external>{%c64}
  } => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t => (%signal : !hal.fence)
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

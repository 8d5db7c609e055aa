// EXPECT: proved
// Coarse-fences ABI after allocation, as IREE emits it: the alloca awaits the wait fence and the execute awaits the alloca, so the input is read only after the caller signalled it.
util.func public @main$async(%view: !hal.buffer_view, %wait: !hal.fence, %signal: !hal.fence) -> !hal.buffer_view attributes {iree.abi.model = "coarse-fences"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %ready = stream.timepoint.import on(#hal.device.affinity<@dev0>) %wait : (!hal.fence) => !stream.timepoint
  %out, %ta = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%ready) => !stream.resource<external>{%c64} => !stream.timepoint
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%ta) => with(%in as %a: !stream.resource<external>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %o[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t => (%signal : !hal.fence)
  %v = stream.tensor.export on(#hal.device.affinity<@dev0>) %out : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %v : !hal.buffer_view
}

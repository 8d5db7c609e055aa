// EXPECT: UNKNOWN
// One signal fence handed to two coarse-fences calls: which signal the await waits for is unknown, so the uses of the results are undecided, never proved.
util.func public @main$async(%view: !hal.buffer_view, %wait: !hal.fence, %signal: !hal.fence) -> !hal.buffer_view attributes {iree.abi.model = "coarse-fences"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %ready = stream.timepoint.import on(#hal.device.affinity<@dev0>) %wait : (!hal.fence) => !stream.timepoint
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) await(%ready) => with(%in as %a: !stream.resource<external>{%c64}) -> !stream.resource<external>{%c64} {
    %x = stream.async.dispatch @ex::@f(%a[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %x : !stream.resource<external>{%c64}
  } => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %t => (%signal : !hal.fence)
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}
util.func public @main(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %null = "util.null"() : () -> !hal.fence
  %forever = arith.constant -1 : i32
  %c0 = arith.constant 0 : index
  %device = "hal.devices.get"(%c0) : (index) -> !hal.device
  %fence = "hal.fence.create"(%device) <{flags = 0 : i64}> : (!hal.device) -> !hal.fence
  %r = util.call @main$async(%arg0, %null, %fence) : (!hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view
  %r2 = util.call @main$async(%arg0, %null, %fence) : (!hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view
  %status = "hal.fence.await"(%forever, %fence) <{flags = 0 : i64}> : (i32, !hal.fence) -> i32
  util.return %r2 : !hal.buffer_view
}

// EXPECT: UNKNOWN
// @loop calls itself: no summary (recursion is not modelled), so the calls stay ops without an effect rule and what depends on them is undecided, never proved.
util.func public @main(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %now = stream.timepoint.immediate => !stream.timepoint
  %r, %t = util.call @loop(%in, %now) : (!stream.resource<external>, !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint)
  %ready = stream.timepoint.await %t => %r : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %ready : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}
util.func private @loop(%arg0: !stream.resource<external>, %t0: !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint) {
  %r, %t = util.call @loop(%arg0, %t0) : (!stream.resource<external>, !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint)
  util.return %r, %t : !stream.resource<external>, !stream.timepoint
}

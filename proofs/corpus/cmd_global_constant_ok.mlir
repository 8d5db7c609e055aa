// EXPECT: proved
// A dispatch reads an immutable constant global (IREE's hoisted constants) while writing a buffer of its own: the global is storage of its own.
util.global private @weights : !stream.resource<constant>
util.func public @constant_global(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %w = "util.global.load"() <{global = @weights, is_immutable}> : () -> !stream.resource<constant>
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%w as %a: !stream.resource<constant>{%c64}, %in as %b: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@scale {
      ro %a[%c0 for %c64] : !stream.resource<constant>{%c64},
      rw %b[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %in : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

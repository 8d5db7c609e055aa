// EXPECT: MISSED_WAIT
// An initializer is verified too: it stores the splat into the global before awaiting the execute that produces it.
util.global private @weights : !stream.resource<constant>
util.initializer {
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with() -> !stream.resource<constant>{%c64} {
    %s = stream.async.splat %c1_i32 : i32 -> !stream.resource<constant>{%c64}
    stream.yield %s : !stream.resource<constant>{%c64}
  } => !stream.timepoint
  %w = stream.timepoint.await %t => %r : !stream.resource<constant>{%c64}
  "util.global.store"(%r) <{global = @weights}> : (!stream.resource<constant>) -> ()
  util.return
}
util.func public @read_weights() -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %w = "util.global.load"() <{global = @weights, is_immutable}> : () -> !stream.resource<constant>
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with(%w as %x: !stream.resource<constant>{%c64}) -> !stream.resource<external>{%c64} {
    %c = stream.async.clone %x : !stream.resource<constant>{%c64} -> !stream.resource<external>{%c64}
    stream.yield %c : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %o = stream.timepoint.await %t => %r : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %o : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

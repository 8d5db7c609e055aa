// EXPECT: BORROWED_INPUT_MUTATED
// A function (not an initializer) stores an immutable global: only initializers may set it.
util.global private @weights : !stream.resource<constant>
util.func public @set_weights() {
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) with() -> !stream.resource<constant>{%c64} {
    %s = stream.async.splat %c1_i32 : i32 -> !stream.resource<constant>{%c64}
    stream.yield %s : !stream.resource<constant>{%c64}
  } => !stream.timepoint
  %w = stream.timepoint.await %t => %r : !stream.resource<constant>{%c64}
  "util.global.store"(%w) <{global = @weights}> : (!stream.resource<constant>) -> ()
  util.return
}

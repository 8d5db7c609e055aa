// EXPECT: BORROWED_INPUT_MUTATED
// On one branch the function clears an input it imported without `consume`: the caller's buffer.
util.func public @maybe_clear(%view: !hal.buffer_view, %c: i1) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c0_i32 = arith.constant 0 : i32
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %t = scf.if %c -> (!stream.timepoint) {
    %e = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%in as %x: !stream.resource<external>{%c64}) {
      stream.cmd.fill %c0_i32, %x[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
    } => !stream.timepoint
    scf.yield %e : !stream.timepoint
  } else {
    %now = stream.timepoint.immediate => !stream.timepoint
    scf.yield %now : !stream.timepoint
  }
  %r = stream.timepoint.await %t => %in : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

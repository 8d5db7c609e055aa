// EXPECT: proved
// Two constants loaded from parameters in one batch are awaited by the execute that copies them out.
util.func public @parameters(%out: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c0_i64 = arith.constant 0 : i64
  %k0 = util.buffer.constant : !util.buffer = "w0"
  %k1 = util.buffer.constant : !util.buffer = "w1"
  %w:2, %lt = stream.cmd.parameter.load {
    %k0[%c0_i64] : !stream.resource<constant>{%c32},
    %k1[%c0_i64] : !stream.resource<constant>{%c32}
  } => !stream.timepoint
  %et = stream.cmd.execute await(%lt) => with(%w#0 as %a: !stream.resource<constant>{%c32}, %w#1 as %b: !stream.resource<constant>{%c32}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %o[%c0], %c32 : !stream.resource<constant>{%c32} -> !stream.resource<external>{%c64}
    stream.cmd.copy %b[%c0], %o[%c32], %c32 : !stream.resource<constant>{%c32} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %et => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

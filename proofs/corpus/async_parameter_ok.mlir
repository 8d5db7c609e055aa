// EXPECT: proved
// Weights loaded from parameters are awaited before the dispatch that reads them; a read and a gather into the result are awaited before the export.
util.func public @parameters(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %c0_i64 = arith.constant 0 : i64
  %c16_i64 = arith.constant 16 : i64
  %scope = util.buffer.constant : !util.buffer = "model"
  %key = util.buffer.constant : !util.buffer = "w0"
  %bias = util.buffer.constant : !util.buffer = "b0"
  %w, %wt = stream.async.parameter.load %scope::%key[%c0_i64] : !stream.resource<constant>{%c64} => !stream.timepoint
  %in = stream.tensor.import %view : !hal.buffer_view -> tensor<16xf32> in !stream.resource<external>{%c64}
  %r1, %t1 = stream.async.execute await(%wt) => with(%in as %a: !stream.resource<external>{%c64}, %w as %b: !stream.resource<constant>{%c64}) -> !stream.resource<external>{%c64} {
    %x = stream.async.dispatch @ex::@f(%a[%c0 to %c64 for %c64], %b[%c0 to %c64 for %c64]) : (!stream.resource<external>{%c64}, !stream.resource<constant>{%c64}) -> !stream.resource<external>{%c64}
    stream.yield %x : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %u, %ut = stream.async.parameter.read await(%t1) %scope::%bias[%c0_i64] -> %r1[%c0 to %c16 for %c16] : !stream.resource<external>{%c64} => !stream.timepoint
  %g, %gt = stream.async.parameter.gather await(%ut) {
    %scope::%bias[%c16_i64] -> %u[%c16 to %c64 for %c48] : !stream.resource<external>{%c64}
  } : !stream.resource<external> => !stream.timepoint
  %r = stream.timepoint.await %gt => %g : !stream.resource<external>{%c64}
  %out = stream.tensor.export %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

util.func public @f() -> !hal.buffer_view {
  %c64 = arith.constant 64 : index
  %c0_i64 = arith.constant 0 : i64
  %key = util.buffer.constant : !util.buffer = "w0"
  %w, %wt = stream.async.parameter.load %key[%c0_i64] : !stream.resource<external>{%c64} => !stream.timepoint
  %r = stream.timepoint.await %wt => %w : !stream.resource<external>{%c64}
  %out = stream.tensor.export %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

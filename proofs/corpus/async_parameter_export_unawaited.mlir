// EXPECT: MISSED_WAIT
// A parameter read into the result is not awaited: the export may hand out the buffer while the read still writes it.
util.func public @parameters() -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c0_i64 = arith.constant 0 : i64
  %key = util.buffer.constant : !util.buffer = "b0"
  %in = stream.async.alloca : !stream.resource<external>{%c64}
  %u, %ut = stream.async.parameter.read %key[%c0_i64] -> %in[%c0 to %c16 for %c16] : !stream.resource<external>{%c64} => !stream.timepoint
  %out = stream.tensor.export %u : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

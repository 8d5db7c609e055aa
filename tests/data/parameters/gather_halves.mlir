util.func public @f() -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c0_i64 = arith.constant 0 : i64
  %c32_i64 = arith.constant 32 : i64
  %key = util.buffer.constant : !util.buffer = "w0"
  %a = stream.async.alloca : !stream.resource<external>{%c64}
  %g, %gt = stream.async.parameter.gather {
    %key[%c32_i64] -> %a[%c32 to %c64 for %c32] : !stream.resource<external>{%c64},
    %key[%c0_i64] -> %a[%c0 to %c32 for %c32] : !stream.resource<external>{%c64}
  } : !stream.resource<external> => !stream.timepoint
  %r = stream.timepoint.await %gt => %g : !stream.resource<external>{%c64}
  %out = stream.tensor.export %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}

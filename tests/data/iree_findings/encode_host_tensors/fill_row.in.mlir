// A fill of the whole second row of a 2x4xf32 tensor: bytes [16, 32) change, a contiguous range.
util.func public @fill_row(%value: f32, %target: !stream.resource<*>) -> !stream.resource<*> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %result = stream.tensor.fill %value, %target[%c1, %c0 for %c1, %c4] : f32 -> tensor<2x4xf32> in %target as !stream.resource<*>{%c32}
  util.return %result : !stream.resource<*>
}

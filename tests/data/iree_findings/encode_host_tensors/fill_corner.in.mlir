// A 1x1 fill of the corner element of a 2x4xf32 tensor: only bytes [0, 4) may change.
util.func public @fill_corner(%value: f32, %target: !stream.resource<*>) -> !stream.resource<*> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %result = stream.tensor.fill %value, %target[%c0, %c0 for %c1, %c1] : f32 -> tensor<2x4xf32> in %target as !stream.resource<*>{%c32}
  util.return %result : !stream.resource<*>
}

// Two whole rows written at row 1 of a 4x4xf32 tensor: bytes [16, 48) change, a contiguous range.
util.func public @update_rows(%update: !stream.resource<*>, %target: !stream.resource<*>) -> !stream.resource<*> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %result = stream.tensor.update %update, %target[%c1, %c0] : tensor<2x4xf32> in !stream.resource<*>{%c32} -> tensor<4x4xf32> in %target as !stream.resource<*>{%c64}
  util.return %result : !stream.resource<*>
}

// A 2x2xf32 block written at row 1, column 1 of a 4x4xf32 tensor: bytes [20, 28) and [36, 44) change.
util.func public @update_block(%update: !stream.resource<*>, %target: !stream.resource<*>) -> !stream.resource<*> {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %result = stream.tensor.update %update, %target[%c1, %c1] : tensor<2x2xf32> in !stream.resource<*>{%c16} -> tensor<4x4xf32> in %target as !stream.resource<*>{%c64}
  util.return %result : !stream.resource<*>
}

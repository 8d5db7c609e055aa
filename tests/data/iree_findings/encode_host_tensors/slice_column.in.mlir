// The second column of a 4x2xf32 tensor: elements (0,1), (1,1), (2,1), (3,1).
util.func public @slice_column(%source: !stream.resource<*>) -> !stream.resource<*> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %result = stream.tensor.slice %source[%c0, %c1 for %c4, %c1] : tensor<4x2xf32> in !stream.resource<*>{%c32} -> tensor<4x1xf32> in !stream.resource<*>{%c16}
  util.return %result : !stream.resource<*>
}

// EXPECT: OUT_OF_BOUNDS
// An input-level append of 4 rows at a caller-chosen row of a 16-row cache: rows [%pos, %pos + 4) leave the cache for %pos > 12.
func.func @append(%cache: tensor<16x64xf32> {iree.abi.consume}, %rows: tensor<4x64xf32>, %pos: index) -> tensor<16x64xf32> {
  %c0 = arith.constant 0 : index
  %u = flow.tensor.update %rows, %cache[%pos, %c0] : tensor<4x64xf32> -> %cache as tensor<16x64xf32>
  return %u : tensor<16x64xf32>
}

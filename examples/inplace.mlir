// An in-place update into an argument: new keys are written into the caller's KV cache (handed over with iree.abi.consume).
func.func @kv_append(%cache: tensor<16x64xf32> {iree.abi.consume}, %k: tensor<4x32xf32>, %w: tensor<32x64xf32>, %pos: index) -> tensor<16x64xf32> {
  %c0 = arith.constant 0 : index
  %c12 = arith.constant 12 : index
  // Clamp the row so that the four new rows stay inside the cache (the verifier proves they do).
  %row = arith.minui %pos, %c12 : index
  %kw = flow.dispatch @matmul(%k, %w) : (tensor<4x32xf32>, tensor<32x64xf32>) -> tensor<4x64xf32>
  %u = flow.tensor.update %kw, %cache[%row, %c0] : tensor<4x64xf32> -> %cache as tensor<16x64xf32>
  return %u : tensor<16x64xf32>
}

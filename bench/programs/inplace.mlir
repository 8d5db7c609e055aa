// IREE's d_inplace at the flow level: a KV-cache update into caller storage, and a dynamic-row scatter.
func.func @kv_update(%cache: tensor<16x64xf32>, %k: tensor<4x32xf32>, %w: tensor<32x64xf32>,
                     %out: tensor<16x64xf32> {iree.abi.output = 0 : index}) -> tensor<16x64xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %p = flow.dispatch @matmul(%k, %w) : (tensor<4x32xf32>, tensor<32x64xf32>) -> tensor<4x64xf32>
  %neg = flow.dispatch @neg(%p) : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %u0 = flow.tensor.update %p, %cache[%c0, %c0] : tensor<4x64xf32> -> %cache as tensor<16x64xf32>
  %u1 = flow.tensor.update %neg, %u0[%c8, %c0] : tensor<4x64xf32> -> %u0 as tensor<16x64xf32>
  return %u1 : tensor<16x64xf32>
}

func.func @scatter_rows(%dst: tensor<128x16xf32>, %src: tensor<8x16xf32>, %row: index) -> (tensor<128x16xf32>, tensor<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c120 = arith.constant 120 : index
  // Clamp the row so the 8-row update stays inside the 128 rows (the verifier proves it does).
  %r0 = arith.minui %row, %c120 : index
  %sq = flow.dispatch @mul(%src, %src) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %u = flow.tensor.update %sq, %dst[%r0, %c0] : tensor<8x16xf32> -> %dst as tensor<128x16xf32>
  %r = flow.tensor.slice %u[%c0, %c0 for %c8, %c16] : tensor<128x16xf32> -> tensor<8x16xf32>
  return %u, %r : tensor<128x16xf32>, tensor<8x16xf32>
}

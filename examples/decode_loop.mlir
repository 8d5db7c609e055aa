// A decode loop over a KV cache: each step computes a key from the previous output and writes it into the next row of the cache (in place), then attends over the cache.
func.func @decode(%cache: tensor<16x64xf32> {iree.abi.consume}, %x: tensor<4x32xf32>, %w: tensor<32x64xf32>, %steps: index) -> (tensor<16x64xf32>, tensor<4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%kv = %cache, %h = %x) -> (tensor<16x64xf32>, tensor<4x32xf32>) {
    %k = flow.dispatch @matmul(%h, %w) : (tensor<4x32xf32>, tensor<32x64xf32>) -> tensor<4x64xf32>
    %p = arith.muli %i, %c4 : index
    %row = arith.minui %p, %c12 : index
    %kv2 = flow.tensor.update %k, %kv[%row, %c0] : tensor<4x64xf32> -> %kv as tensor<16x64xf32>
    %h2 = flow.dispatch @tanh(%h) : (tensor<4x32xf32>) -> tensor<4x32xf32>
    scf.yield %kv2, %h2 : tensor<16x64xf32>, tensor<4x32xf32>
  }
  return %r#0, %r#1 : tensor<16x64xf32>, tensor<4x32xf32>
}

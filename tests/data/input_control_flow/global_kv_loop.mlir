// Decode steps in a loop: the KV cache global is loaded once before the loop, carried, and stored back after it.
util.global private mutable @cache = dense<0.0> : tensor<4x16xf32>
util.global private mutable @pos = 0 : index
func.func @decode(%x: tensor<1x16xf32>, %q: tensor<1x4xf32>, %steps: index) -> tensor<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %p0 = util.global.load @pos : index
  %cache = util.global.load @cache : tensor<4x16xf32>
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%kv = %cache, %h = %x) -> (tensor<4x16xf32>, tensor<1x16xf32>) {
    %p = arith.addi %p0, %i : index
    %row = arith.minui %p, %c3 : index
    %k = flow.dispatch @tanh(%h) : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %kv2 = flow.tensor.update %k, %kv[%row, %c0] : tensor<1x16xf32> -> %kv as tensor<4x16xf32>
    %h2 = flow.dispatch @matmul(%q, %kv2) : (tensor<1x4xf32>, tensor<4x16xf32>) -> tensor<1x16xf32>
    scf.yield %kv2, %h2 : tensor<4x16xf32>, tensor<1x16xf32>
  }
  util.global.store %r#0, @cache : tensor<4x16xf32>
  %p1 = arith.addi %p0, %steps : index
  util.global.store %p1, @pos : index
  return %r#1 : tensor<1x16xf32>
}

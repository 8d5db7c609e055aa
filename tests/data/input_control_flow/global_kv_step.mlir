// A decode step whose state lives in globals: each call writes the key of its input into the next row of the KV cache (in place), attends over the cache and advances the position.
util.global private mutable @cache = dense<0.0> : tensor<4x16xf32>
util.global private mutable @pos = 0 : index
func.func @step(%x: tensor<1x16xf32>, %q: tensor<1x4xf32>) -> tensor<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %p = util.global.load @pos : index
  %row = arith.minui %p, %c3 : index
  %k = flow.dispatch @tanh(%x) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %c = util.global.load @cache : tensor<4x16xf32>
  %c2 = flow.tensor.update %k, %c[%row, %c0] : tensor<1x16xf32> -> %c as tensor<4x16xf32>
  %y = flow.dispatch @matmul(%q, %c2) : (tensor<1x4xf32>, tensor<4x16xf32>) -> tensor<1x16xf32>
  util.global.store %c2, @cache : tensor<4x16xf32>
  %p1 = arith.addi %p, %c1 : index
  util.global.store %p1, @pos : index
  return %y : tensor<1x16xf32>
}

// The cache is stored on one branch only and read again after the branch; earlier in the call it is stored and read back (the load gets the stored tensor).
util.global private mutable @cache = dense<0.0> : tensor<4x16xf32>
func.func @step(%x: tensor<1x16xf32>, %q: tensor<1x4xf32>, %flag: i1) -> tensor<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c = util.global.load @cache : tensor<4x16xf32>
  %c2 = flow.tensor.update %x, %c[%c0, %c0] : tensor<1x16xf32> -> %c as tensor<4x16xf32>
  util.global.store %c2, @cache : tensor<4x16xf32>
  %d = util.global.load @cache : tensor<4x16xf32>
  scf.if %flag {
    %k = flow.dispatch @tanh(%x) : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %d2 = flow.tensor.update %k, %d[%c1, %c0] : tensor<1x16xf32> -> %d as tensor<4x16xf32>
    util.global.store %d2, @cache : tensor<4x16xf32>
    scf.yield
  }
  %e = util.global.load @cache : tensor<4x16xf32>
  %y = flow.dispatch @matmul(%q, %e) : (tensor<1x4xf32>, tensor<4x16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// State set by a util.initializer and updated by a dispatch in place: an accumulator global (a tied @add), an immutable weight global, and a KV cache the step writes a row of.
util.global private mutable @cache : tensor<4x16xf32>
util.global private mutable @acc : tensor<1x16xf32>
util.global private @w = dense<0.5> : tensor<1x4xf32>
util.initializer {
  %quarter = arith.constant 0.25 : f32
  %zero = arith.constant 0.0 : f32
  %c = flow.tensor.splat %quarter : tensor<4x16xf32>
  util.global.store %c, @cache : tensor<4x16xf32>
  %a = flow.tensor.splat %zero : tensor<1x16xf32>
  util.global.store %a, @acc : tensor<1x16xf32>
  util.return
}
func.func @step(%x: tensor<1x16xf32>, %pos: index) -> tensor<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %row = arith.minui %pos, %c3 : index
  %c = util.global.load @cache : tensor<4x16xf32>
  %c2 = flow.tensor.update %x, %c[%row, %c0] : tensor<1x16xf32> -> %c as tensor<4x16xf32>
  %w = util.global.load @w : tensor<1x4xf32>
  %y = flow.dispatch @matmul(%w, %c2) : (tensor<1x4xf32>, tensor<4x16xf32>) -> tensor<1x16xf32>
  %a = util.global.load @acc : tensor<1x16xf32>
  %a2 = flow.dispatch @add(%a, %y) : (tensor<1x16xf32>, tensor<1x16xf32>) -> %a
  util.global.store %c2, @cache : tensor<4x16xf32>
  util.global.store %a2, @acc : tensor<1x16xf32>
  return %a2 : tensor<1x16xf32>
}

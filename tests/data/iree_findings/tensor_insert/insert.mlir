func.func @insert_element(%t: tensor<2x4xf32>, %v: f32) -> tensor<2x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.insert %v into %t[%c0, %c1] : tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// Slices, updates, splats and a clone around dispatches; the input is read after a tied use.
func.func @slices(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %half = arith.constant 0.5 : f32
  %top = flow.tensor.slice %x[%c0, %c0 for %c4, %c16] : tensor<8x16xf32> -> tensor<4x16xf32>
  %t2 = flow.dispatch @scale(%top, %half) : (tensor<4x16xf32>, f32) -> tensor<4x16xf32>
  %z = flow.tensor.splat %half : tensor<8x16xf32>
  %u = flow.tensor.update %t2, %z[%c2, %c0] : tensor<4x16xf32> -> %z as tensor<8x16xf32>
  %s = flow.dispatch @add(%u, %x) : (tensor<8x16xf32>, tensor<8x16xf32>) -> %u
  %c = flow.tensor.clone %top : tensor<4x16xf32>
  %n = flow.dispatch @neg(%c) : (tensor<4x16xf32>) -> %c
  return %s, %n : tensor<8x16xf32>, tensor<4x16xf32>
}

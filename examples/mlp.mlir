// A two-layer MLP on one device: matmul + bias + GELU, then matmul + bias + softmax.
func.func @mlp(%x: tensor<16x64xf32>, %w1: tensor<64x128xf32>, %b1: tensor<16x128xf32>,
               %w2: tensor<128x10xf32>, %b2: tensor<16x10xf32>) -> tensor<16x10xf32> {
  %h = flow.dispatch @matmul_add(%x, %w1, %b1) : (tensor<16x64xf32>, tensor<64x128xf32>, tensor<16x128xf32>) -> tensor<16x128xf32>
  %a = flow.dispatch @gelu(%h) : (tensor<16x128xf32>) -> %h
  %l = flow.dispatch @matmul_add(%a, %w2, %b2) : (tensor<16x128xf32>, tensor<128x10xf32>, tensor<16x10xf32>) -> tensor<16x10xf32>
  %p = flow.dispatch @softmax(%l) : (tensor<16x10xf32>) -> %l
  return %p : tensor<16x10xf32>
}

// A two-layer MLP with an in-place activation on a second device.
func.func @mlp(%x: tensor<8x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %h = flow.dispatch @matmul(%x, %w1) : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
  %a = flow.dispatch @gelu(%h) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<8x64xf32>) -> %h
  %y = flow.dispatch @matmul(%a, %w2) : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %s = flow.dispatch @softmax(%y) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  return %s : tensor<8x32xf32>
}

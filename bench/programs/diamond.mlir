// IREE's b_diamond at the flow level, one dispatch per IREE dispatch (fused kernels named after what IREE fused).
func.func @diamond(%x: tensor<64x64xf32>, %wa1: tensor<64x64xf32>, %wa2: tensor<64x64xf32>,
                   %wb1: tensor<64x64xf32>, %wb2: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a1 = flow.dispatch @matmul_relu(%x, %wa1) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %b1 = flow.dispatch @matmul_tanh(%x, %wb1) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %b2 = flow.dispatch @matmul(%b1, %wb2) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = flow.dispatch @matmul_add(%a1, %wa2, %b2) : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

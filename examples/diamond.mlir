// A diamond over two devices: both branches read %x, @dev1's branch is transferred back and joined on @dev0.
func.func @diamond(%x: tensor<64x64xf32>, %w0: tensor<64x64xf32>, %w1: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = flow.dispatch @matmul(%x, %w0) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = flow.dispatch @relu(%a) : (tensor<64x64xf32>) -> %a
  %x1 = flow.tensor.transfer %x : tensor<64x64xf32> to #hal.device.affinity<@dev1>
  %w11 = flow.tensor.transfer %w1 : tensor<64x64xf32> to #hal.device.affinity<@dev1>
  %b = flow.dispatch @matmul(%x1, %w11) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = flow.dispatch @tanh(%b) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<64x64xf32>) -> %b
  %t0 = flow.tensor.transfer %t : tensor<64x64xf32> to #hal.device.affinity<@dev0>
  %c = flow.dispatch @add(%r, %t0) : (tensor<64x64xf32>, tensor<64x64xf32>) -> %r
  return %c : tensor<64x64xf32>
}

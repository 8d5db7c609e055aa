// IREE's f_multidevice at the flow level: device_b computes a branch on transferred inputs, device_a joins it.
func.func @two_dev(%x: tensor<32x32xf32>, %wa: tensor<32x32xf32>, %wb: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {stream.affinity = #hal.device.affinity<@device_a>} {
  %xb = flow.tensor.transfer %x : tensor<32x32xf32> to #hal.device.affinity<@device_b>
  %wbb = flow.tensor.transfer %wb : tensor<32x32xf32> to #hal.device.affinity<@device_b>
  %tb = flow.dispatch @matmul_tanh(%xb, %wbb) {stream.affinity = #hal.device.affinity<@device_b>} : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %tba = flow.tensor.transfer %tb : tensor<32x32xf32> to #hal.device.affinity<@device_a>
  %y = flow.dispatch @matmul_add(%x, %wa, %tba) : (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

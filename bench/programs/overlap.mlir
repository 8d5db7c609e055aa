// IREE's i_multidevice_overlap at the flow level: device_a has work independent of device_b, so the two can overlap.
func.func @two_dev_overlap(%x: tensor<32x32xf32>, %wa: tensor<32x32xf32>, %wa2: tensor<32x32xf32>, %wb: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {stream.affinity = #hal.device.affinity<@device_a>} {
  %ta = flow.dispatch @matmul_tanh(%x, %wa) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %xb = flow.tensor.transfer %x : tensor<32x32xf32> to #hal.device.affinity<@device_b>
  %wbb = flow.tensor.transfer %wb : tensor<32x32xf32> to #hal.device.affinity<@device_b>
  %tb = flow.dispatch @matmul_tanh(%xb, %wbb) {stream.affinity = #hal.device.affinity<@device_b>} : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %tba = flow.tensor.transfer %tb : tensor<32x32xf32> to #hal.device.affinity<@device_a>
  %y = flow.dispatch @matmul_add(%ta, %wa2, %tba) : (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// Two independent branches on two devices joined by an add (the devices can overlap).
func.func @diamond(%x: tensor<32x32xf32>, %wa: tensor<32x32xf32>, %wb: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %a = flow.dispatch @matmul(%x, %wa) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %ar = flow.dispatch @relu(%a) : (tensor<32x32xf32>) -> %a
  %xb = flow.tensor.transfer %x : tensor<32x32xf32> to #hal.device.affinity<@dev1>
  %wbb = flow.tensor.transfer %wb : tensor<32x32xf32> to #hal.device.affinity<@dev1>
  %b = flow.dispatch @matmul(%xb, %wbb) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %bt = flow.dispatch @tanh(%b) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %ba = flow.tensor.transfer %bt : tensor<32x32xf32> to #hal.device.affinity<@dev0>
  %y = flow.dispatch @add(%ar, %ba) : (tensor<32x32xf32>, tensor<32x32xf32>) -> %ar
  return %y : tensor<32x32xf32>
}

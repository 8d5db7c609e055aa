// A chain across three devices and back, with a value used on two devices.
func.func @chain(%x: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %a = flow.dispatch @exp(%x) : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %a1 = flow.tensor.transfer %a : tensor<16x16xf32> to #hal.device.affinity<@dev1>
  %b = flow.dispatch @square(%a1) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %b2 = flow.tensor.transfer %b : tensor<16x16xf32> to #hal.device.affinity<@dev2>
  %c = flow.dispatch @transpose(%b2) {stream.affinity = #hal.device.affinity<@dev2>} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %c0 = flow.tensor.transfer %c : tensor<16x16xf32> to #hal.device.affinity<@dev0>
  %d = flow.dispatch @mul(%c0, %a) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %d, %a : tensor<16x16xf32>, tensor<16x16xf32>
}

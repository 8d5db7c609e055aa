// Independent work on two devices: streamproof gives each device its own regions so they overlap (IREE 3.13 serializes them).
func.func @overlap(%x: tensor<256x256xf32>, %wa: tensor<256x256xf32>, %wb: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %a = flow.dispatch @matmul(%x, %wa) : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %a2 = flow.dispatch @tanh(%a) : (tensor<256x256xf32>) -> %a
  %x1 = flow.tensor.transfer %x : tensor<256x256xf32> to #hal.device.affinity<@dev1>
  %wb1 = flow.tensor.transfer %wb : tensor<256x256xf32> to #hal.device.affinity<@dev1>
  %b = flow.dispatch @matmul(%x1, %wb1) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %b2 = flow.dispatch @tanh(%b) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<256x256xf32>) -> %b
  %b0 = flow.tensor.transfer %b2 : tensor<256x256xf32> to #hal.device.affinity<@dev0>
  %y = flow.dispatch @add(%a2, %b0) : (tensor<256x256xf32>, tensor<256x256xf32>) -> %a2
  return %y : tensor<256x256xf32>
}

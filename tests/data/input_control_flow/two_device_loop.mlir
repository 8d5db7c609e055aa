// A loop whose body runs on two devices: the carried state lives on @dev0, each step's matmul runs on @dev1.
func.func @ping(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %n: index) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<8x8xf32>) {
    %a1 = flow.tensor.transfer %a : tensor<8x8xf32> to #hal.device.affinity<@dev1>
    %w1 = flow.tensor.transfer %w : tensor<8x8xf32> to #hal.device.affinity<@dev1>
    %m = flow.dispatch @matmul(%a1, %w1) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %m0 = flow.tensor.transfer %m : tensor<8x8xf32> to #hal.device.affinity<@dev0>
    %t = flow.dispatch @tanh(%m0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %t : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

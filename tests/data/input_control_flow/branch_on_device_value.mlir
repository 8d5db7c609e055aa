// A branch on a value computed on the device: the host reads it back, then runs one branch or the other.
func.func @pick(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %s = flow.dispatch @add(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %v = flow.tensor.load %s[%c0] : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %p = arith.cmpf ogt, %v, %zero : f32
  %r = scf.if %p -> (tensor<4xf32>) {
    %a = flow.dispatch @tanh(%s) : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %a : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// A recurrence: the state goes through a matmul and a tanh per step; the weight is read in every step.
func.func @recur(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %n: index) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4x8xf32>) {
    %y = flow.dispatch @matmul(%acc, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %z = flow.dispatch @tanh(%y) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    scf.yield %z : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

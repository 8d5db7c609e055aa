// A loop inside a branch, and a branch inside the loop body, each on a value read back from the device (the inner one on an input).
func.func @nest(%x: tensor<2x4xf32>, %n: index) -> tensor<2x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %v = flow.tensor.load %x[%c0, %c0] : tensor<2x4xf32>
  %p = arith.cmpf ogt, %v, %zero : f32
  %r = scf.if %p -> (tensor<2x4xf32>) {
    %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<2x4xf32>) {
      %s = flow.dispatch @gelu(%acc) : (tensor<2x4xf32>) -> tensor<2x4xf32>
      %u = flow.tensor.load %x[%c0, %c1] : tensor<2x4xf32>
      %q = arith.cmpf ogt, %u, %zero : f32
      %b = scf.if %q -> (tensor<2x4xf32>) {
        %g = flow.dispatch @relu(%s) : (tensor<2x4xf32>) -> tensor<2x4xf32>
        scf.yield %g : tensor<2x4xf32>
      } else {
        scf.yield %s : tensor<2x4xf32>
      }
      scf.yield %b : tensor<2x4xf32>
    }
    scf.yield %l : tensor<2x4xf32>
  } else {
    %t = flow.dispatch @tanh(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    scf.yield %t : tensor<2x4xf32>
  }
  return %r : tensor<2x4xf32>
}

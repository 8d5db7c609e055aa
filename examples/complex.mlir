// Complex tensors over two devices: a 4-point DFT of 16 signals (a matmul by the DFT matrix) on @dev0, turned by a complex constant on @dev1, and added back on @dev0.
func.func @spectrum(%x: tensor<16x4xcomplex<f32>>, %w: tensor<4x4xcomplex<f32>>) -> tensor<16x4xcomplex<f32>> {
  %f = flow.dispatch @matmul(%x, %w) : (tensor<16x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<16x4xcomplex<f32>>
  %f1 = flow.tensor.transfer %f : tensor<16x4xcomplex<f32>> to #hal.device.affinity<@dev1>
  %turn = complex.constant [0.000000e+00 : f32, 5.000000e-01 : f32] : complex<f32>
  %t = flow.tensor.splat %turn : tensor<16x4xcomplex<f32>>
  %g = flow.dispatch @mul(%f1, %t) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<16x4xcomplex<f32>>, tensor<16x4xcomplex<f32>>) -> tensor<16x4xcomplex<f32>>
  %g0 = flow.tensor.transfer %g : tensor<16x4xcomplex<f32>> to #hal.device.affinity<@dev0>
  %r = flow.dispatch @add(%f, %g0) : (tensor<16x4xcomplex<f32>>, tensor<16x4xcomplex<f32>>) -> %f
  return %r : tensor<16x4xcomplex<f32>>
}

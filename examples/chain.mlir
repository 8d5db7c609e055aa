// A chain with large intermediates (1 MiB each): only two are live at a time, so the slab and reuse keep memory low.
func.func @chain(%x: tensor<512x512xf32>, %w: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %a = flow.dispatch @matmul(%x, %w) : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %b = flow.dispatch @tanh(%a) : (tensor<512x512xf32>) -> tensor<512x512xf32>
  %c = flow.dispatch @matmul(%b, %w) : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %d = flow.dispatch @tanh(%c) : (tensor<512x512xf32>) -> tensor<512x512xf32>
  %e = flow.dispatch @matmul(%d, %w) : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %f = flow.dispatch @tanh(%e) : (tensor<512x512xf32>) -> tensor<512x512xf32>
  %g = flow.dispatch @matmul(%f, %w) : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  return %g : tensor<512x512xf32>
}

// A dynamic batch: sizes are computed from %n at run time.
func.func @dyn(%x: tensor<?x32xf32>, %n: index, %w: tensor<32x32xf32>) -> tensor<?x32xf32> {
  %h = flow.dispatch @matmul(%x, %w) : (tensor<?x32xf32>{%n}, tensor<32x32xf32>) -> tensor<?x32xf32>{%n}
  %y = flow.dispatch @layernorm(%h) : (tensor<?x32xf32>{%n}) -> %h{%n}
  return %y : tensor<?x32xf32>
}

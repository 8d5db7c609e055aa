// Dynamic shapes: the batch size %n is known only at run time; sizes and ranges stay symbolic and are proved for every %n.
func.func @dynamic(%n: index, %x: tensor<?x32xf32>, %w: tensor<32x32xf32>) -> tensor<?x32xf32> {
  %h = flow.dispatch @matmul(%x, %w) : (tensor<?x32xf32>{%n}, tensor<32x32xf32>) -> tensor<?x32xf32>{%n}
  %r = flow.dispatch @relu(%h) : (tensor<?x32xf32>{%n}) -> %h{%n}
  %y = flow.dispatch @layernorm(%r) : (tensor<?x32xf32>{%n}) -> tensor<?x32xf32>{%n}
  return %y : tensor<?x32xf32>
}

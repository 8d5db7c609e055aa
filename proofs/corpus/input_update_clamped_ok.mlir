// EXPECT: proved
// The same append with the row clamped to 12, and a whole-tensor update of a dynamic tensor: in bounds for every %pos and %n.
func.func @append(%cache: tensor<16x64xf32> {iree.abi.consume}, %rows: tensor<4x64xf32>, %pos: index, %t: tensor<?x8xf32> {iree.abi.consume}, %s: tensor<?x8xf32>, %n: index) -> (tensor<16x64xf32>, tensor<?x8xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c12 = arith.constant 12 : index
  %c63 = arith.constant 63 : index
  %row = arith.minui %pos, %c12 : index
  %u = flow.tensor.update %rows, %cache[%row, %c0] : tensor<4x64xf32> -> %cache as tensor<16x64xf32>
  %w = flow.tensor.update %s, %t[%c0, %c0] : tensor<?x8xf32>{%n} -> %t as tensor<?x8xf32>{%n}
  %e = flow.tensor.load %cache[%row, %c63] : tensor<16x64xf32>
  return %u, %w, %e : tensor<16x64xf32>, tensor<?x8xf32>, f32
}

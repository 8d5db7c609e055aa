#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @dyn_mlp(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>, %w: tensor<3x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %d = tensor.dim %x, %c0 : tensor<?x3xf32>
  %e = tensor.dim %y, %c0 : tensor<?x3xf32>
  %ok = arith.cmpi eq, %d, %e : index
  cf.assert %ok, "batch sizes match"
  %pos = arith.cmpi sgt, %d, %c0 : index
  cf.assert %pos, "batch size > 0"
  %i0 = tensor.empty(%d) : tensor<?x3xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x3xf32>) outs(%i0 : tensor<?x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x3xf32>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<?x3xf32>) outs(%i0 : tensor<?x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<?x3xf32>
  %m0 = linalg.fill ins(%zero : f32) outs(%i0 : tensor<?x3xf32>) -> tensor<?x3xf32>
  %ma = linalg.matmul ins(%a, %w : tensor<?x3xf32>, tensor<3x3xf32>) outs(%m0 : tensor<?x3xf32>) -> tensor<?x3xf32>
  %mb = linalg.matmul ins(%b, %w : tensor<?x3xf32>, tensor<3x3xf32>) outs(%m0 : tensor<?x3xf32>) -> tensor<?x3xf32>
  %s = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%ma, %mb : tensor<?x3xf32>, tensor<?x3xf32>) outs(%i0 : tensor<?x3xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %r = arith.addf %in, %in2 : f32
    linalg.yield %r : f32
  } -> tensor<?x3xf32>
  return %s : tensor<?x3xf32>
}

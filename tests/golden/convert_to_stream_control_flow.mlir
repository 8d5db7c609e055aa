// RUN: streamproof compile %s --pass-pipeline=convert-to-stream --split-input-file | filecheck %s

// An scf.for carrying tensors carries their resources; the carried cache is copied before the in-place update in the body.
func.func @decode(%cache: tensor<16x64xf32> {iree.abi.consume}, %x: tensor<4x32xf32>, %w: tensor<32x64xf32>, %steps: index) -> (tensor<16x64xf32>, tensor<4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%kv = %cache, %h = %x) -> (tensor<16x64xf32>, tensor<4x32xf32>) {
    %k = flow.dispatch @matmul(%h, %w) : (tensor<4x32xf32>, tensor<32x64xf32>) -> tensor<4x64xf32>
    %p = arith.muli %i, %c4 : index
    %row = arith.minui %p, %c12 : index
    %kv2 = flow.tensor.update %k, %kv[%row, %c0] : tensor<4x64xf32> -> %kv as tensor<16x64xf32>
    %h2 = flow.dispatch @tanh(%h) : (tensor<4x32xf32>) -> tensor<4x32xf32>
    scf.yield %kv2, %h2 : tensor<16x64xf32>, tensor<4x32xf32>
  }
  return %r#0, %r#1 : tensor<16x64xf32>, tensor<4x32xf32>
}
// CHECK-LABEL: util.func public @decode
// CHECK: %[[C:.+]] = stream.async.cast {{.+}} -> !stream.resource<*>{%{{.+}}}
// CHECK: %r:2 = scf.for %i = %c0 to %steps step %c1 iter_args(%kv = %[[C]], %h = %{{.+}}) -> (!stream.resource<*>, !stream.resource<*>) {
// CHECK: stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @matmul(%h, %w)
// CHECK: %[[K:.+]] = stream.tensor.clone on(#hal.device.affinity<@dev0>) %kv :
// CHECK: stream.tensor.update on(#hal.device.affinity<@dev0>) %k, %[[K]][%row, %c0]
// CHECK: scf.yield %kv2, %h2 : !stream.resource<*>, !stream.resource<*>

// -----

// An scf.if on a value read back from the device: the element is staged and loaded on the host first; the branches yield resources.
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
// CHECK-LABEL: util.func public @pick
// CHECK: stream.tensor.load %{{.+}}[%c0] : tensor<1xf32> in !stream.resource<staging>
// CHECK: %r = scf.if %p -> (!stream.resource<*>) {
// CHECK: stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @tanh(%s)
// CHECK: scf.yield %a : !stream.resource<*>
// CHECK: } else {
// CHECK: scf.yield %x : !stream.resource<*>

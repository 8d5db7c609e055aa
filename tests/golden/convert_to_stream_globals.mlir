// RUN: streamproof compile %s --pass-pipeline=convert-to-stream --split-input-file | filecheck %s

// A mutable tensor global becomes a !stream.resource<variable> global; its dense initial value an initializer storing the constant transferred to variable storage; a load transfers the global to a resource of the function's own, a store transfers the value to new variable storage.
util.global private mutable @cache = dense<0.0> : tensor<4x16xf32>
func.func @step(%x: tensor<1x16xf32>, %q: tensor<1x4xf32>, %pos: index) -> tensor<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %row = arith.minui %pos, %c3 : index
  %c = util.global.load @cache : tensor<4x16xf32>
  %c2 = flow.tensor.update %x, %c[%row, %c0] : tensor<1x16xf32> -> %c as tensor<4x16xf32>
  %y = flow.dispatch @matmul(%q, %c2) : (tensor<1x4xf32>, tensor<4x16xf32>) -> tensor<1x16xf32>
  util.global.store %c2, @cache : tensor<4x16xf32>
  return %y : tensor<1x16xf32>
}
// CHECK: util.global private mutable @cache : !stream.resource<variable>
// CHECK-NEXT: util.initializer {
// CHECK: %[[CST:.+]] = stream.tensor.constant on(#hal.device.affinity<@dev0>) : tensor<4x16xf32> in !stream.resource<*> = dense<0.000000e+00> : tensor<4x16xf32>
// CHECK-NEXT: %[[INIT:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[CST]] : !stream.resource<*>{%[[SIZE:.+]]} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<variable>{%[[SIZE]]}
// CHECK-NEXT: util.global.store %[[INIT]], @cache : !stream.resource<variable>
// CHECK-LABEL: util.func public @step
// CHECK: %[[G:.+]] = util.global.load @cache : !stream.resource<variable>
// CHECK-NEXT: %[[S:.+]] = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<4x16xf32> : index
// CHECK-NEXT: %c = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[G]] : !stream.resource<variable>{%[[S]]} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<*>{%[[S]]}
// CHECK-NEXT: %c2 = stream.tensor.update on(#hal.device.affinity<@dev0>) %x, %c[%row, %c0]
// CHECK: %[[V:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %c2 : !stream.resource<*>{%[[S]]} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<variable>{%[[S]]}
// CHECK-NEXT: util.global.store %[[V]], @cache : !stream.resource<variable>

// -----

// An initializer that stores a tensor is converted like a function; an immutable tensor global becomes a !stream.resource<constant> global; a global with its own stream.affinity lives on that device and a load from elsewhere is transferred; an index global passes through.
util.global private mutable @acc : tensor<4xf32>
util.global private @w = dense<2.0> : tensor<4xf32>
util.global private mutable @calls = 0 : index
util.initializer {
  %zero = arith.constant 0.0 : f32
  %z = flow.tensor.splat %zero : tensor<4xf32>
  util.global.store %z, @acc : tensor<4xf32>
  util.return
}
func.func @accumulate(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  %a = util.global.load @acc : tensor<4xf32>
  %w = util.global.load @w : tensor<4xf32>
  %xw = flow.dispatch @mul(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %a2 = flow.dispatch @add(%a, %xw) : (tensor<4xf32>, tensor<4xf32>) -> %a
  util.global.store %a2, @acc : tensor<4xf32>
  %n = util.global.load @calls : index
  %n1 = arith.addi %n, %c1 : index
  util.global.store %n1, @calls : index
  return %a2 : tensor<4xf32>
}
// CHECK: util.global private mutable @acc : !stream.resource<variable>
// CHECK-NEXT: util.global private @w : !stream.resource<constant>
// CHECK-NEXT: util.initializer {
// CHECK: stream.async.transfer {{.+}} -> to(#hal.device.affinity<@dev0>) !stream.resource<constant>
// CHECK-NEXT: util.global.store %{{.+}}, @w : !stream.resource<constant>
// CHECK: util.global private mutable @calls = 0 : index
// CHECK-NEXT: util.initializer {
// CHECK: stream.tensor.splat on(#hal.device.affinity<@dev0>)
// CHECK: util.global.store %{{.+}}, @acc : !stream.resource<variable>
// CHECK-LABEL: util.func public @accumulate
// CHECK: util.global.load @acc : !stream.resource<variable>
// CHECK: util.global.load @w : !stream.resource<constant>
// CHECK: stream.async.transfer {{.+}} !stream.resource<constant>{%{{.+}}} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<*>
// CHECK: stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @add
// CHECK: util.global.store %{{.+}}, @acc : !stream.resource<variable>
// CHECK: %n = util.global.load @calls : index
// CHECK: util.global.store %n1, @calls : index

// -----

// A load and a store of the global inside an scf.for body: the loaded resource is the body's own (updated in place without a copy); the store transfers to new variable storage in every iteration.
util.global private mutable @cache = dense<0.0> : tensor<4x16xf32>
func.func @decode(%x: tensor<1x16xf32>, %q: tensor<1x4xf32>, %steps: index) -> tensor<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %steps step %c1 iter_args(%h = %x) -> (tensor<1x16xf32>) {
    %row = arith.minui %i, %c3 : index
    %kv = util.global.load @cache : tensor<4x16xf32>
    %kv2 = flow.tensor.update %h, %kv[%row, %c0] : tensor<1x16xf32> -> %kv as tensor<4x16xf32>
    %h2 = flow.dispatch @matmul(%q, %kv2) : (tensor<1x4xf32>, tensor<4x16xf32>) -> tensor<1x16xf32>
    util.global.store %kv2, @cache : tensor<4x16xf32>
    scf.yield %h2 : tensor<1x16xf32>
  }
  return %r : tensor<1x16xf32>
}
// CHECK-LABEL: util.func public @decode
// CHECK: scf.for %i = %c0 to %steps step %c1 iter_args(%h = %{{.+}}) -> (!stream.resource<*>) {
// CHECK: %[[G:.+]] = util.global.load @cache : !stream.resource<variable>
// CHECK: %kv = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[G]] : !stream.resource<variable>{%{{.+}}} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<*>
// CHECK-NOT: stream.tensor.clone
// CHECK: stream.tensor.update on(#hal.device.affinity<@dev0>) %h, %kv[%row, %c0]
// CHECK: %[[V:.+]] = stream.async.transfer {{.+}} -> to(#hal.device.affinity<@dev0>) !stream.resource<variable>
// CHECK-NEXT: util.global.store %[[V]], @cache : !stream.resource<variable>
// CHECK: scf.yield

// -----

// A load after a store of the global gets the stored tensor (no reload of the storage just handed over, as IREE's SimplifyGlobalAccesses forwards it), also in a branch after the store; after a branch that stores the global, a load reads the global again.
util.global private mutable @cache = dense<0.0> : tensor<4x16xf32>
func.func @step(%x: tensor<1x16xf32>, %q: tensor<1x4xf32>, %flag: i1) -> tensor<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c = util.global.load @cache : tensor<4x16xf32>
  %c2 = flow.tensor.update %x, %c[%c0, %c0] : tensor<1x16xf32> -> %c as tensor<4x16xf32>
  util.global.store %c2, @cache : tensor<4x16xf32>
  %d = util.global.load @cache : tensor<4x16xf32>
  scf.if %flag {
    %d2 = flow.tensor.update %x, %d[%c1, %c0] : tensor<1x16xf32> -> %d as tensor<4x16xf32>
    util.global.store %d2, @cache : tensor<4x16xf32>
    scf.yield
  }
  %e = util.global.load @cache : tensor<4x16xf32>
  %y = flow.dispatch @matmul(%q, %e) : (tensor<1x4xf32>, tensor<4x16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}
// CHECK-LABEL: util.func public @step
// CHECK: util.global.load @cache : !stream.resource<variable>
// CHECK: %c2 = stream.tensor.update
// CHECK: util.global.store %{{.+}}, @cache : !stream.resource<variable>
// CHECK-NOT: util.global.load
// CHECK: scf.if %flag {
// CHECK: %[[COPY:.+]] = stream.tensor.clone on(#hal.device.affinity<@dev0>) %c2 :
// CHECK: stream.tensor.update on(#hal.device.affinity<@dev0>) %x, %[[COPY]][%c1, %c0]
// CHECK: util.global.store %{{.+}}, @cache : !stream.resource<variable>
// CHECK: }
// CHECK-NEXT: %[[G:.+]] = util.global.load @cache : !stream.resource<variable>
// CHECK-NEXT: %e = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[G]]
// CHECK: stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @matmul(%q, %e)

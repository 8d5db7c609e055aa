// RUN: streamproof compile %s --pass-pipeline=convert-to-stream,encode-tensors,materialize-copy-on-write,elide-async-copies,refine-usage --split-input-file | filecheck %s

// Every data op of the input level on two devices, lowered to the unscheduled async level with lifetimes: the result is external, locals transient, the constant constant, and each cross-device use has one transfer.
func.func @every_op(%x: tensor<4x4xf32>, %acc: tensor<4x4xf32> {iree.abi.consume}) -> (tensor<4x4xf32>, tensor<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %half = arith.constant 5.000000e-01 : f32
  %w = arith.constant dense<2.000000e+00> : tensor<4x4xf32>
  %s = flow.tensor.splat %half : tensor<4x4xf32>
  %a = flow.dispatch @mul(%x, %w) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = flow.dispatch @add(%a, %s) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %bt = flow.tensor.transfer %b : tensor<4x4xf32> to #hal.device.affinity<@dev0>
  %rows = flow.tensor.slice %bt[%c1, %c0 for %c2, %c4] : tensor<4x4xf32> -> tensor<2x4xf32>
  %copy = flow.tensor.clone %rows : tensor<2x4xf32>
  %u = flow.tensor.update %copy, %acc[%c2, %c0] : tensor<2x4xf32> -> %acc as tensor<4x4xf32>
  %e = flow.tensor.empty : tensor<2x4xf32>
  %r = flow.dispatch @relu(%rows) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %u, %r : tensor<4x4xf32>, tensor<2x4xf32>
}
// CHECK-LABEL: util.func public @every_op
// CHECK-DAG: %[[X:.+]] = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4x4xf32> in !stream.resource<external>{%c64}
// CHECK-DAG: %[[ACC:.+]] = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %arg1 : !hal.buffer_view -> tensor<4x4xf32> in !stream.resource<external>{%c64}
// CHECK-DAG: %[[W:.+]] = stream.async.constant on(#hal.device.affinity<@dev0>) : !stream.resource<constant>{%c64} = dense<2.000000e+00> : tensor<4x4xf32>
// CHECK-DAG: %[[S:.+]] = stream.async.splat on(#hal.device.affinity<@dev1>) %c1056964608_i32 : i32 -> !stream.resource<transient>{%c64}
// CHECK: %[[A:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev0>) @mul(%[[X]][%c0 to %c64 for %c64], %[[W]][%c0 to %c64 for %c64]) {{.+}} : (!stream.resource<external>{%c64}, !stream.resource<constant>{%c64}) -> !stream.resource<transient>{%c64}
// CHECK: %[[A1:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[A]] {{.+}} -> to(#hal.device.affinity<@dev1>) !stream.resource<transient>{%c64}
// CHECK: %[[B:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev1>) @add(%[[A1]][%c0 to %c64 for %c64], %[[S]][%c0 to %c64 for %c64])
// CHECK: %[[BT:.+]] = stream.async.transfer on(#hal.device.affinity<@dev1>) %[[B]] {{.+}} -> to(#hal.device.affinity<@dev0>) !stream.resource<transient>{%c64}
// CHECK: %[[ROWS:.+]] = stream.async.slice on(#hal.device.affinity<@dev0>) %[[BT]][%c16 to %c48] : !stream.resource<transient>{%c64} -> !stream.resource<transient>{%c32}
// CHECK: %[[U:.+]] = stream.async.update on(#hal.device.affinity<@dev0>) %[[ROWS]], %[[ACC]][%c32 to %c64] : !stream.resource<transient>{%c32} -> %[[ACC]] as !stream.resource<external>{%c64}
// CHECK: stream.async.alloca on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c32}
// CHECK: %[[R:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%[[ROWS]][%c0 to %c32 for %c32]) {{.+}} -> !stream.resource<external>{%c32}
// CHECK-NOT: stream.async.clone
// CHECK: stream.tensor.export on(#hal.device.affinity<@dev0>) %[[U]]
// CHECK: stream.tensor.export on(#hal.device.affinity<@dev0>) %[[R]]

// -----

// Dynamic shapes: sizes are products of dim values (index arithmetic on dims included), dispatches get the dims as trailing operands, and a tied dispatch on an owned argument writes it in place.
func.func @dynamic(%n: index, %x: tensor<?x4xf32> {iree.abi.consume}) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %c2 = arith.constant 2 : index
  %m = arith.muli %n, %c2 : index
  %y = flow.dispatch @tanh(%x) : (tensor<?x4xf32>{%n}) -> %x{%n}
  %one = arith.constant 1.000000e+00 : f32
  %s = flow.tensor.splat %one : tensor<?x4xf32>{%m}
  %t = flow.tensor.transfer %s : tensor<?x4xf32>{%m} to #hal.device.affinity<@dev1>
  %z = flow.dispatch @relu(%t) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<?x4xf32>{%m}) -> tensor<?x4xf32>{%m}
  return %y, %z : tensor<?x4xf32>, tensor<?x4xf32>
}
// CHECK-LABEL: util.func public @dynamic(%n: index, %arg0: !hal.buffer_view)
// CHECK: %[[XS:.+]] = arith.muli %n, %c16 : index
// CHECK: %[[X:.+]] = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %arg0 : !hal.buffer_view -> tensor<?x4xf32>{%n} in !stream.resource<external>{%[[XS]]}
// CHECK: %[[M:.+]] = arith.muli %n, %c2 : index
// CHECK: %[[Y:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%[[X]][%c0 to %[[XS]] for %[[XS]]], %n) {streamproof.binding_types = [tensor<?x4xf32>]} : (!stream.resource<external>{%[[XS]]}, index) -> %[[X]]{%[[XS]]}
// CHECK: %[[MS:.+]] = arith.muli %[[M]], %c16 : index
// CHECK: %[[S:.+]] = stream.async.splat on(#hal.device.affinity<@dev1>) %c1065353216_i32 : i32 -> !stream.resource<transient>{%[[MS]]}
// CHECK-NOT: stream.async.transfer
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev1>) @relu(%[[S]][%c0 to %[[MS]] for %[[MS]]], %[[M]], %[[M]])

// -----

// Host access: a load moves one element to staging memory and reads it there; a store of the loaded value is a one-element fill on the device.
func.func @host(%x: tensor<4x4xi32>) -> (i32, tensor<4x4xi32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %y = flow.dispatch @relu(%x) : (tensor<4x4xi32>) -> tensor<4x4xi32>
  %v = flow.tensor.load %y[%c3, %c1] : tensor<4x4xi32>
  %s = flow.tensor.store %v, %y[%c1, %c3] : tensor<4x4xi32>
  return %v, %s : i32, tensor<4x4xi32>
}
// CHECK-LABEL: util.func public @host
// CHECK: %[[Y:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu
// CHECK: %[[E:.+]] = stream.async.slice on(#hal.device.affinity<@dev0>) %[[Y]][%c52 to %c56] : !stream.resource<external>{%c64} -> !stream.resource<transient>{%c4}
// CHECK: %[[ST:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[E]] {{.+}} -> to(#hal.device.affinity<@dev0>) !stream.resource<staging>{%c4}
// CHECK: %[[V:.+]] = stream.async.load %[[ST]][%c0] : !stream.resource<staging>{%c4} -> i32
// CHECK: %[[F:.+]] = stream.async.fill on(#hal.device.affinity<@dev0>) %[[V]], %[[Y]][%c28 to %c32 for %c4] : i32 -> %[[Y]] as !stream.resource<external>{%c64}
// CHECK: util.return %[[V]], %{{.+}} : i32, !hal.buffer_view

// -----

// A borrowed argument that is only read is never copied, also when two devices read it.
func.func @read_only(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = flow.dispatch @relu(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %b = flow.dispatch @tanh(%x) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<8xf32>) -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
// CHECK-LABEL: util.func public @read_only
// CHECK-NOT: stream.async.clone
// CHECK: %[[X:.+]] = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%[[X]]
// CHECK: %[[X1:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[X]] : !stream.resource<external>{%c32} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev1>) !stream.resource<transient>{%c32}
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev1>) @tanh(%[[X1]]

// -----

// A value both returned and then written in place by another op keeps its copy through elision (the export reads it when the function returns).
func.func @fork(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = flow.dispatch @relu(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %b = flow.dispatch @tanh(%a) : (tensor<8xf32>) -> %a
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
// CHECK-LABEL: util.func public @fork
// CHECK: %[[A:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu
// CHECK: %[[C:.+]] = stream.async.clone on(#hal.device.affinity<@dev0>) %[[A]] : !stream.resource<external>{%c32} -> !stream.resource<external>{%c32}
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%[[C]][%c0 to %c32 for %c32]) {{.+}} -> %[[C]]{%c32}

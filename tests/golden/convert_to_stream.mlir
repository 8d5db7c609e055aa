// RUN: streamproof compile %s --pass-pipeline=convert-to-stream --split-input-file | filecheck %s

// A borrowed argument is imported and cast to `*`, the dispatch keeps tensor types as encodings, and the result is cast to external and exported (IREE's sync ABI).
func.func @single(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = flow.dispatch @relu(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
// CHECK-LABEL: util.func public @single(%arg0: !hal.buffer_view) -> !hal.buffer_view
// CHECK: %[[SIZE:.+]] = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<4x8xf32> : index
// CHECK: %[[IMP:.+]] = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4x8xf32> in !stream.resource<external>{%[[SIZE]]}
// CHECK: %[[X:.+]] = stream.async.cast on(#hal.device.affinity<@dev0>) %[[IMP]] : !stream.resource<external>{%[[SIZE]]} -> !stream.resource<*>{%[[SIZE]]}
// CHECK: %[[Y:.+]] = stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @relu(%[[X]]) : (tensor<4x8xf32> in !stream.resource<*>{%[[SIZE]]}) -> tensor<4x8xf32> in !stream.resource<*>{%[[SIZE]]}
// CHECK: %[[EXT:.+]] = stream.async.cast on(#hal.device.affinity<@dev0>) %[[Y]] : !stream.resource<*>{%[[SIZE]]} -> !stream.resource<external>{%[[SIZE]]}
// CHECK: %[[VIEW:.+]] = stream.tensor.export on(#hal.device.affinity<@dev0>) %[[EXT]] : tensor<4x8xf32> in !stream.resource<external>{%[[SIZE]]} -> !hal.buffer_view
// CHECK: util.return %[[VIEW]] : !hal.buffer_view

// -----
// `iree.abi.consume` and `iree.abi.output` arguments are imported with `consume`; a tied result reuses the operand's resource and size.
func.func @owned(%acc: tensor<16xf32> {iree.abi.output = 0 : index}, %b: tensor<16xf32> {iree.abi.consume}, %c: tensor<16xf32>) -> tensor<16xf32> {
  %r = flow.dispatch @add(%acc, %c) : (tensor<16xf32>, tensor<16xf32>) -> %acc
  return %r : tensor<16xf32>
}
// CHECK-LABEL: util.func public @owned(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view)
// CHECK: %[[AIMP:.+]] = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %arg0
// CHECK: %[[ACC:.+]] = stream.async.cast on(#hal.device.affinity<@dev0>) %[[AIMP]]
// CHECK: stream.tensor.import on(#hal.device.affinity<@dev0>) consume %arg1
// CHECK: %[[CIMP:.+]] = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg2
// CHECK: %[[C:.+]] = stream.async.cast on(#hal.device.affinity<@dev0>) %[[CIMP]] : {{.+}} -> !stream.resource<*>{%[[S:.+]]}
// CHECK: stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @add(%[[ACC]], %[[C]]) : (tensor<16xf32> in !stream.resource<*>{%[[S]]}, tensor<16xf32> in !stream.resource<*>{%[[S]]}) -> tensor<16xf32> in %[[ACC]]{%[[S]]}

// -----
// An op placed on another device gets its operand by an explicit transfer (issued on the device where the value lives), and its result comes back by one; one transfer serves every consumer on that device.
func.func @two_devices(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = flow.dispatch @relu(%x) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<8xf32>) -> tensor<8xf32>
  %b = flow.dispatch @tanh(%x) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<8xf32>) -> tensor<8xf32>
  %c = flow.dispatch @add(%a, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %d = flow.dispatch @mul(%c, %x) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %d : tensor<8xf32>
}
// CHECK-LABEL: util.func public @two_devices
// CHECK: %[[X:.+]] = stream.async.cast on(#hal.device.affinity<@dev0>)
// CHECK: %[[X1:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[X]] : !stream.resource<*>{{.+}} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev1>) !stream.resource<*>
// CHECK: %[[A:.+]] = stream.tensor.dispatch on(#hal.device.affinity<@dev1>) @relu(%[[X1]])
// CHECK-NOT: stream.async.transfer {{.+}} %[[X]]
// CHECK: %[[B:.+]] = stream.tensor.dispatch on(#hal.device.affinity<@dev1>) @tanh(%[[X1]])
// CHECK: %[[A0:.+]] = stream.async.transfer on(#hal.device.affinity<@dev1>) %[[A]] {{.+}} from(#hal.device.affinity<@dev1>) -> to(#hal.device.affinity<@dev0>)
// CHECK: %[[B0:.+]] = stream.async.transfer on(#hal.device.affinity<@dev1>) %[[B]] {{.+}} from(#hal.device.affinity<@dev1>) -> to(#hal.device.affinity<@dev0>)
// CHECK: %[[C:.+]] = stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @add(%[[A0]], %[[B0]])
// CHECK: stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @mul(%[[C]], %[[X]])

// -----
// flow.tensor.transfer becomes stream.async.transfer from where the value lives to the target, also when both are one device (elide-async-copies removes that one); a promise names a device.
func.func @transfers(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %y = flow.dispatch @scale(%x) {stream.affinity = #hal.device.affinity<@dev0>} : (tensor<4xi32>) -> tensor<4xi32>
  %t = flow.tensor.transfer %y : tensor<4xi32> to #hal.device.promise<@dev1>
  %same = flow.tensor.transfer %y : tensor<4xi32> to #hal.device.affinity<@dev0>
  return %t, %same : tensor<4xi32>, tensor<4xi32>
}
// CHECK-LABEL: util.func public @transfers
// CHECK: %[[Y:.+]] = stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @scale
// CHECK: %[[T:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[Y]] : !stream.resource<*>{%[[S:.+]]} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev1>) !stream.resource<*>{%[[S]]}
// CHECK: %[[SAME:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[Y]] : !stream.resource<*>{%[[S]]} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<*>{%[[S]]}
// CHECK: stream.async.cast on(#hal.device.affinity<@dev1>) %[[T]]
// CHECK: stream.tensor.export on(#hal.device.affinity<@dev1>)
// CHECK: stream.async.cast on(#hal.device.affinity<@dev0>) %[[SAME]]

// -----
// Dynamic dims: an argument's dims come from the first op that spells them, sizes are stream.tensor.sizeof of the shaped type, and the export carries the dims.
func.func @dynamic(%n: index, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = flow.dispatch @relu(%x) : (tensor<?x4xf32>{%n}) -> tensor<?x4xf32>{%n}
  return %y : tensor<?x4xf32>
}
// CHECK-LABEL: util.func public @dynamic(%n: index, %arg0: !hal.buffer_view) -> !hal.buffer_view
// CHECK: %[[S:.+]] = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<?x4xf32>{%n} : index
// CHECK: stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<?x4xf32>{%n} in !stream.resource<external>{%[[S]]}
// CHECK: %[[Y:.+]] = stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @relu(%{{.+}}) : (tensor<?x4xf32>{%n} in !stream.resource<*>{%[[S]]}) -> tensor<?x4xf32>{%n} in !stream.resource<*>{%[[S]]}
// CHECK: stream.tensor.export on(#hal.device.affinity<@dev0>) %{{.+}} : tensor<?x4xf32>{%n} in !stream.resource<external>{%[[S]]} -> !hal.buffer_view

// -----
// Values that can be made anywhere follow their consumers: the splat and the argument land on @dev1, which uses them, instead of being made on @dev0 and transferred.
func.func @creators(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %cst = arith.constant 1.0 : f32
  %s = flow.tensor.splat %cst : tensor<2x2xf32>
  %y = flow.dispatch @add(%x, %s) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
// CHECK-LABEL: util.func public @creators
// CHECK: %[[X:.+]] = stream.tensor.import on(#hal.device.affinity<@dev1>) %arg0
// CHECK: %[[S:.+]] = stream.tensor.splat on(#hal.device.affinity<@dev1>) %cst : f32 -> tensor<2x2xf32> in !stream.resource<*>
// CHECK-NOT: stream.async.transfer
// CHECK: stream.tensor.dispatch on(#hal.device.affinity<@dev1>) @add(%{{.+}}, %[[S]])

// -----
// The function's stream.affinity places its compute and its arguments; the module default applies to functions without one.
module attributes {stream.affinity.default = #hal.device.affinity<@gpu>} {
  func.func @on_function(%x: tensor<4xf32>) -> tensor<4xf32> attributes {stream.affinity = #hal.device.affinity<@cpu>} {
    %y = flow.dispatch @relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
  func.func @on_module(%x: tensor<4xf32>) -> tensor<4xf32> {
    %e = flow.tensor.empty : tensor<4xf32>
    %y = flow.dispatch @relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
// CHECK-LABEL: util.func public @on_function
// CHECK-NOT: attributes
// CHECK: stream.tensor.import on(#hal.device.affinity<@cpu>)
// CHECK: stream.tensor.dispatch on(#hal.device.affinity<@cpu>) @relu
// CHECK-LABEL: util.func public @on_module
// CHECK: stream.tensor.import on(#hal.device.affinity<@gpu>)
// CHECK: stream.tensor.empty on(#hal.device.affinity<@gpu>) : tensor<4xf32> in !stream.resource<*>
// CHECK: stream.tensor.dispatch on(#hal.device.affinity<@gpu>) @relu

// -----
// Slices, updates and dense constants become their stream.tensor forms with element indices; data-access ops run where their data lives.
func.func @data(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %cst = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %s = flow.tensor.slice %x[%c2, %c0 for %c2, %c4] : tensor<8x4xf32> -> tensor<2x4xf32>
  %y = flow.dispatch @add(%s, %cst) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %u = flow.tensor.update %y, %x[%c0, %c0] : tensor<2x4xf32> -> %x as tensor<8x4xf32>
  return %u : tensor<8x4xf32>
}
// CHECK-LABEL: util.func public @data
// CHECK: %[[X:.+]] = stream.async.cast {{.+}} %{{.+}} : !stream.resource<external>{%[[XS:.+]]} -> !stream.resource<*>{%[[XS]]}
// CHECK: %[[CS:.+]] = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<2x4xf32> : index
// CHECK: %[[CST:.+]] = stream.tensor.constant on(#hal.device.affinity<@dev0>) : tensor<2x4xf32> in !stream.resource<*> = dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]]> : tensor<2x4xf32>
// CHECK: %[[S:.+]] = stream.tensor.slice on(#hal.device.affinity<@dev0>) %[[X]][%c2, %c0 for %c2, %c4] : tensor<8x4xf32> in !stream.resource<*>{%[[XS]]} -> tensor<2x4xf32> in !stream.resource<*>{%[[CS]]}
// CHECK: %[[Y:.+]] = stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @add(%[[S]], %[[CST]])
// CHECK: stream.tensor.update on(#hal.device.affinity<@dev0>) %[[Y]], %[[X]][%c0, %c0] : tensor<2x4xf32> in !stream.resource<*>{%[[CS]]} -> tensor<8x4xf32> in %[[X]] as !stream.resource<*>{%[[XS]]}

// -----
// A host load slices out the element and moves it to a staging resource; a one-element tensor moves whole; a store becomes a one-element fill on the device.
func.func @host(%x: tensor<4x4xi32>, %one: tensor<1xi32>) -> (i32, i32, tensor<4x4xi32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %v = flow.tensor.load %x[%c1, %c2] : tensor<4x4xi32>
  %w = flow.tensor.load %one[%c0] : tensor<1xi32>
  %s = flow.tensor.store %w, %x[%c2, %c1] : tensor<4x4xi32>
  return %v, %w, %s : i32, i32, tensor<4x4xi32>
}
// CHECK-LABEL: util.func public @host
// CHECK-SAME: -> (i32, i32, !hal.buffer_view)
// CHECK: %[[X:.+]] = stream.async.cast {{.+}} -> !stream.resource<*>{%[[XS:.+]]}
// CHECK: %[[ONE:.+]] = stream.async.cast {{.+}} -> !stream.resource<*>{%[[OS:.+]]}
// CHECK: %[[ES:.+]] = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<1x1xi32> : index
// CHECK: %[[EL:.+]] = stream.tensor.slice on(#hal.device.affinity<@dev0>) %[[X]][%c1, %c2 for %c1, %c1] : tensor<4x4xi32> in !stream.resource<*>{%[[XS]]} -> tensor<1x1xi32> in !stream.resource<*>{%[[ES]]}
// CHECK: %[[ST:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[EL]] {{.+}} -> to(#hal.device.affinity<@dev0>) !stream.resource<staging>{%[[ES]]}
// CHECK: %[[V:.+]] = stream.tensor.load %[[ST]][%c0, %c0] : tensor<1x1xi32> in !stream.resource<staging>{%[[ES]]} -> i32
// CHECK: %[[OST:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[ONE]] {{.+}} !stream.resource<staging>{%[[OS]]}
// CHECK: %[[W:.+]] = stream.tensor.load %[[OST]][%c0] : tensor<1xi32> in !stream.resource<staging>{%[[OS]]} -> i32
// CHECK: stream.tensor.fill on(#hal.device.affinity<@dev0>) %[[W]], %[[X]][%c2, %c1 for %c1, %c1] : i32 -> tensor<4x4xi32> in %[[X]] as !stream.resource<*>{%[[XS]]}
// CHECK: util.return %[[V]], %[[W]], %{{.+}} : i32, i32, !hal.buffer_view

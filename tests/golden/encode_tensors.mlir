// RUN: streamproof compile %s --allow-input-violations --pass-pipeline=encode-tensors --split-input-file | filecheck %s

// Static sizes become constants; dispatch operands are bound whole, binding types go in streamproof.binding_types (operands, then untied results) and a tied result keeps its operand.
util.func public @dispatch(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %0 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<4x8xf32> : index
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4x8xf32> in !stream.resource<external>{%0}
  %2 = stream.async.cast on(#hal.device.affinity<@dev0>) %1 : !stream.resource<external>{%0} -> !stream.resource<*>{%0}
  %3 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<8xi16> : index
  %4:2 = stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @k(%2) : (tensor<4x8xf32> in !stream.resource<*>{%0}) -> (tensor<8xi16> in !stream.resource<*>{%3}, tensor<4x8xf32> in %2{%0})
  %5 = stream.async.cast on(#hal.device.affinity<@dev0>) %4#1 : !stream.resource<*>{%0} -> !stream.resource<external>{%0}
  %6 = stream.tensor.export on(#hal.device.affinity<@dev0>) %5 : tensor<4x8xf32> in !stream.resource<external>{%0} -> !hal.buffer_view
  util.return %6 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @dispatch
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C128:.+]] = arith.constant 128 : index
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK-NOT: stream.tensor.sizeof
// CHECK: stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4x8xf32> in !stream.resource<external>{%[[C128]]}
// CHECK: %[[X:.+]] = stream.async.cast
// CHECK: %{{.+}}:2 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @k(%[[X]][%[[C0]] to %[[C128]] for %[[C128]]]) {streamproof.binding_types = [tensor<4x8xf32>, tensor<8xi16>]} : (!stream.resource<*>{%[[C128]]}) -> (!stream.resource<*>{%[[C16]]}, %[[X]]{%[[C128]]})

// -----
// Dynamic sizes are the dims times the static part; dynamic dims of the bindings are appended as trailing index operands, in binding order.
util.func public @dynamic(%n: index, %m: index, %arg0: !hal.buffer_view) -> !hal.buffer_view {
  %0 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<?x4xf32>{%n} : index
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<?x4xf32>{%n} in !stream.resource<external>{%0}
  %2 = stream.async.cast on(#hal.device.affinity<@dev0>) %1 : !stream.resource<external>{%0} -> !stream.resource<*>{%0}
  %3 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<?x?xf16>{%m, %n} : index
  %4 = stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @k(%2, %m) : (tensor<?x4xf32>{%n} in !stream.resource<*>{%0}, index) -> tensor<?x?xf16>{%m, %n} in !stream.resource<*>{%3}
  %5 = stream.async.cast on(#hal.device.affinity<@dev0>) %4 : !stream.resource<*>{%3} -> !stream.resource<external>{%3}
  %6 = stream.tensor.export on(#hal.device.affinity<@dev0>) %5 : tensor<?x?xf16>{%m, %n} in !stream.resource<external>{%3} -> !hal.buffer_view
  util.return %6 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @dynamic
// CHECK: %[[S0:.+]] = arith.muli %n, %c16 : index
// CHECK: stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<?x4xf32>{%n} in !stream.resource<external>{%[[S0]]}
// CHECK: %[[X:.+]] = stream.async.cast
// CHECK: %[[M2:.+]] = arith.muli %m, %c2 : index
// CHECK: %[[S1:.+]] = arith.muli %n, %[[M2]] : index
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @k(%[[X]][%c0 to %[[S0]] for %[[S0]]], %m, %n, %m, %n) {streamproof.binding_types = [tensor<?x4xf32>, tensor<?x?xf16>]} : (!stream.resource<*>{%[[S0]]}, index, index, index, index) -> !stream.resource<*>{%[[S1]]}

// -----
// A strided (non-contiguous) box with constant bounds becomes one copy per contiguous run: into a fresh alloca for a slice, into the target for an update.
util.func public @strided(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %0 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<3x4xi32> : index
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<3x4xi32> in !stream.resource<external>{%0}
  %2 = stream.async.cast on(#hal.device.affinity<@dev0>) %1 : !stream.resource<external>{%0} -> !stream.resource<*>{%0}
  %3 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<2x2xi32> : index
  %4 = stream.tensor.slice on(#hal.device.affinity<@dev0>) %2[%c1, %c1 for %c2, %c2] : tensor<3x4xi32> in !stream.resource<*>{%0} -> tensor<2x2xi32> in !stream.resource<*>{%3}
  %5 = stream.tensor.update on(#hal.device.affinity<@dev0>) %4, %2[%c0, %c2] : tensor<2x2xi32> in !stream.resource<*>{%3} -> tensor<3x4xi32> in %2 as !stream.resource<*>{%0}
  %6 = stream.async.cast on(#hal.device.affinity<@dev0>) %5 : !stream.resource<*>{%0} -> !stream.resource<external>{%0}
  %7 = stream.tensor.export on(#hal.device.affinity<@dev0>) %6 : tensor<3x4xi32> in !stream.resource<external>{%0} -> !hal.buffer_view
  util.return %7 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @strided
// CHECK: %[[X:.+]] = stream.async.cast
// CHECK: %[[BOX:.+]] = stream.async.alloca on(#hal.device.affinity<@dev0>) : !stream.resource<*>{%c16}
// CHECK: %[[R0:.+]] = stream.async.copy on(#hal.device.affinity<@dev0>) %[[X]][%c20 to %c28], %[[BOX]][%c0 to %c8], %c8 : !stream.resource<*>{%c48} -> %[[BOX]] as !stream.resource<*>{%c16}
// CHECK: %[[R1:.+]] = stream.async.copy on(#hal.device.affinity<@dev0>) %[[X]][%c36 to %c44], %[[R0]][%c8 to %c16], %c8 : !stream.resource<*>{%c48} -> %[[R0]] as !stream.resource<*>{%c16}
// CHECK: %[[U0:.+]] = stream.async.copy on(#hal.device.affinity<@dev0>) %[[R1]][%c0 to %c8], %[[X]][%c8 to %c16], %c8 : !stream.resource<*>{%c16} -> %[[X]] as !stream.resource<*>{%c48}
// CHECK: %[[U1:.+]] = stream.async.copy on(#hal.device.affinity<@dev0>) %[[R1]][%c8 to %c16], %[[U0]][%c24 to %c32], %c8 : !stream.resource<*>{%c16} -> %[[U0]] as !stream.resource<*>{%c48}
// CHECK: stream.async.cast on(#hal.device.affinity<@dev0>) %[[U1]]

// -----
// Host loads and stores address the element's byte offset; empty, constant and clone become alloca, constant and clone.
util.func public @host(%v: i32) -> (i32, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<2x3xi32> : index
  %1 = stream.tensor.constant on(#hal.device.affinity<@dev0>) : tensor<2x3xi32> in !stream.resource<*> = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %2 = stream.tensor.clone on(#hal.device.affinity<@dev0>) %1 : tensor<2x3xi32> in !stream.resource<*>{%0} -> tensor<6xi32> in !stream.resource<*>{%0}
  %3 = stream.async.transfer on(#hal.device.affinity<@dev0>) %2 : !stream.resource<*>{%0} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<staging>{%0}
  %4 = stream.tensor.load %3[%c1, %c1] : tensor<2x3xi32> in !stream.resource<staging>{%0} -> i32
  %5 = stream.tensor.store %v, %3[%c1, %c0] : i32 -> tensor<2x3xi32> in %3 as !stream.resource<staging>{%0}
  %6 = stream.tensor.empty on(#hal.device.affinity<@dev0>) : tensor<2x3xi32> in !stream.resource<*>{%0}
  %7 = stream.tensor.export on(#hal.device.affinity<@dev0>) %5 : tensor<2x3xi32> in !stream.resource<staging>{%0} -> !hal.buffer_view
  util.return %4, %7 : i32, !hal.buffer_view
}
// CHECK-LABEL: util.func public @host
// CHECK: %[[CST:.+]] = stream.async.constant on(#hal.device.affinity<@dev0>) : !stream.resource<*>{%c24} = dense<{{\[\[}}1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK: %[[CL:.+]] = stream.async.clone on(#hal.device.affinity<@dev0>) %[[CST]] : !stream.resource<*>{%c24} -> !stream.resource<*>{%c24}
// CHECK: %[[ST:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[CL]]
// CHECK: %[[V:.+]] = stream.async.load %[[ST]][%c16] : !stream.resource<staging>{%c24} -> i32
// CHECK: %[[S:.+]] = stream.async.store %v, %[[ST]][%c12] : i32 -> %[[ST]] as !stream.resource<staging>{%c24}
// CHECK: stream.async.alloca on(#hal.device.affinity<@dev0>) : !stream.resource<*>{%c24}
// CHECK: stream.tensor.export on(#hal.device.affinity<@dev0>) %[[S]]
// CHECK: util.return %[[V]]

// -----
// Constant fill and splat patterns fold at compile time: f32 1.0 is the i32 1065353216, f16 2.0 the i16 16384, and a pattern whose bytes are all equal narrows to i8.
util.func public @constant_patterns() -> (!hal.buffer_view, !hal.buffer_view) {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %h = arith.constant 2.0 : f16
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %0 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<4xf32> : index
  %1 = stream.tensor.splat on(#hal.device.affinity<@dev0>) %zero : f32 -> tensor<4xf32> in !stream.resource<*>{%0}
  %2 = stream.tensor.fill on(#hal.device.affinity<@dev0>) %one, %1[%c2 for %c2] : f32 -> tensor<4xf32> in %1 as !stream.resource<*>{%0}
  %3 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<8xf16> : index
  %4 = stream.tensor.splat on(#hal.device.affinity<@dev0>) %h : f16 -> tensor<8xf16> in !stream.resource<*>{%3}
  %5 = stream.async.cast on(#hal.device.affinity<@dev0>) %2 : !stream.resource<*>{%0} -> !stream.resource<external>{%0}
  %6 = stream.tensor.export on(#hal.device.affinity<@dev0>) %5 : tensor<4xf32> in !stream.resource<external>{%0} -> !hal.buffer_view
  %7 = stream.async.cast on(#hal.device.affinity<@dev0>) %4 : !stream.resource<*>{%3} -> !stream.resource<external>{%3}
  %8 = stream.tensor.export on(#hal.device.affinity<@dev0>) %7 : tensor<8xf16> in !stream.resource<external>{%3} -> !hal.buffer_view
  util.return %6, %8 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @constant_patterns
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i8
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1065353216 : i32
// CHECK-DAG: %[[TWO:.+]] = arith.constant 16384 : i16
// CHECK-NOT: arith.bitcast
// CHECK: %[[S:.+]] = stream.async.splat on(#hal.device.affinity<@dev0>) %[[ZERO]] : i8 -> !stream.resource<*>{%c16}
// CHECK: stream.async.fill on(#hal.device.affinity<@dev0>) %[[ONE]], %[[S]][%c8 to %c16 for %c8] : i32 -> %[[S]] as !stream.resource<*>{%c16}
// CHECK: stream.async.splat on(#hal.device.affinity<@dev0>) %[[TWO]] : i16 -> !stream.resource<*>{%c16}

// -----
// Splat and fill patterns are the element's bits as an integer of its width: a constant folds (bytes all equal narrow to i8), a dynamic value is bitcast.
util.func public @patterns(%v: f32) -> !hal.buffer_view {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %h = arith.constant 2.0 : f16
  %0 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<4xf32> : index
  %1 = stream.tensor.splat on(#hal.device.affinity<@dev0>) %one : f32 -> tensor<4xf32> in !stream.resource<*>{%0}
  %2 = stream.tensor.splat on(#hal.device.affinity<@dev0>) %zero : f32 -> tensor<4xf32> in !stream.resource<*>{%0}
  %3 = stream.tensor.splat on(#hal.device.affinity<@dev0>) %v : f32 -> tensor<4xf32> in !stream.resource<*>{%0}
  %4 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<8xf16> : index
  %5 = stream.tensor.splat on(#hal.device.affinity<@dev0>) %h : f16 -> tensor<8xf16> in !stream.resource<*>{%4}
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %6 = stream.tensor.fill on(#hal.device.affinity<@dev0>) %v, %1[%c1 for %c2] : f32 -> tensor<4xf32> in %1 as !stream.resource<*>{%0}
  %7 = stream.async.cast on(#hal.device.affinity<@dev0>) %6 : !stream.resource<*>{%0} -> !stream.resource<external>{%0}
  %8 = stream.tensor.export on(#hal.device.affinity<@dev0>) %7 : tensor<4xf32> in !stream.resource<external>{%0} -> !hal.buffer_view
  util.return %8 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @patterns
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1065353216 : i32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i8
// CHECK-DAG: %[[TWO:.+]] = arith.constant 16384 : i16
// CHECK: %[[A:.+]] = stream.async.splat on(#hal.device.affinity<@dev0>) %[[ONE]] : i32 -> !stream.resource<*>{%c16}
// CHECK: stream.async.splat on(#hal.device.affinity<@dev0>) %[[ZERO]] : i8 -> !stream.resource<*>{%c16}
// CHECK: %[[BITS:.+]] = arith.bitcast %v : f32 to i32
// CHECK: stream.async.splat on(#hal.device.affinity<@dev0>) %[[BITS]] : i32 -> !stream.resource<*>{%c16}
// CHECK: stream.async.splat on(#hal.device.affinity<@dev0>) %[[TWO]] : i16 -> !stream.resource<*>{%c16}
// CHECK: stream.async.fill on(#hal.device.affinity<@dev0>) %[[BITS]], %[[A]][%c4 to %c12 for %c8] : i32 -> %[[A]] as !stream.resource<*>{%c16}

// -----

// Contiguous slices and updates become one byte range (row-major offsets; a dynamic start index is scaled by the row size).
util.func public @ranges(%i: index, %arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %0 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<16x8xf32> : index
  %1 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<16x8xf32> in !stream.resource<external>{%0}
  %2 = stream.async.cast on(#hal.device.affinity<@dev0>) %1 : !stream.resource<external>{%0} -> !stream.resource<*>{%0}
  %3 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<2x8xf32> : index
  %4 = stream.tensor.slice on(#hal.device.affinity<@dev0>) %2[%i, %c0 for %c2, %c8] : tensor<16x8xf32> in !stream.resource<*>{%0} -> tensor<2x8xf32> in !stream.resource<*>{%3}
  %5 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<1x2xf32> : index
  %6 = stream.tensor.slice on(#hal.device.affinity<@dev0>) %2[%c1, %c2 for %c1, %c2] : tensor<16x8xf32> in !stream.resource<*>{%0} -> tensor<1x2xf32> in !stream.resource<*>{%5}
  %7 = stream.tensor.update on(#hal.device.affinity<@dev0>) %4, %2[%c8, %c0] : tensor<2x8xf32> in !stream.resource<*>{%3} -> tensor<16x8xf32> in %2 as !stream.resource<*>{%0}
  %8 = stream.async.cast on(#hal.device.affinity<@dev0>) %7 : !stream.resource<*>{%0} -> !stream.resource<external>{%0}
  %9 = stream.tensor.export on(#hal.device.affinity<@dev0>) %8 : tensor<16x8xf32> in !stream.resource<external>{%0} -> !hal.buffer_view
  util.return %9 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @ranges
// CHECK: %[[X:.+]] = stream.async.cast
// CHECK: %[[OFF:.+]] = arith.muli %i, %c32 : index
// CHECK: %[[END:.+]] = arith.addi %[[OFF]], %c64 : index
// CHECK: %[[ROWS:.+]] = stream.async.slice on(#hal.device.affinity<@dev0>) %[[X]][%[[OFF]] to %[[END]]] : !stream.resource<*>{%c512} -> !stream.resource<*>{%c64}
// CHECK: stream.async.slice on(#hal.device.affinity<@dev0>) %[[X]][%c40 to %c48] : !stream.resource<*>{%c512} -> !stream.resource<*>{%c8}
// CHECK: stream.async.update on(#hal.device.affinity<@dev0>) %[[ROWS]], %[[X]][%c256 to %c320] : !stream.resource<*>{%c64} -> %[[X]] as !stream.resource<*>{%c512}

// -----
// Complex elements take both parts (complex<f32>: 8 bytes, complex<f64>: 16); a complex<f32> splat's pattern is the value's 64 bits, `complex.bitcast` to i64 (real part low), as IREE's encode-host-tensors does, and a fill of one element at [1] starts at byte 8.
util.func public @complex(%arg0: !hal.buffer_view, %re: f32, %im: f32) -> (!stream.resource<*>, !stream.resource<*>, index) {
  %c1 = arith.constant 1 : index
  %cst = complex.constant [3.000000e+00 : f32, 1.000000e+01 : f32] : complex<f32>
  %0 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<6xcomplex<f32>> : index
  %1 = stream.tensor.splat on(#hal.device.affinity<@dev0>) %cst : complex<f32> -> tensor<6xcomplex<f32>> in !stream.resource<*>{%0}
  %v = complex.create %re, %im : complex<f32>
  %2 = stream.tensor.fill on(#hal.device.affinity<@dev0>) %v, %1[%c1 for %c1] : complex<f32> -> tensor<6xcomplex<f32>> in %1 as !stream.resource<*>{%0}
  %3 = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<5x?xcomplex<f64>>{%c1} : index
  util.return %1, %2, %3 : !stream.resource<*>, !stream.resource<*>, index
}
// CHECK-LABEL: util.func public @complex
// CHECK-DAG: %[[CST:.+]] = complex.constant [3.000000e+00 : f32, 1.000000e+01 : f32] : complex<f32>
// CHECK: %[[P:.+]] = complex.bitcast %[[CST]] : complex<f32> to i64
// CHECK: %[[S:.+]] = stream.async.splat on(#hal.device.affinity<@dev0>) %[[P]] : i64 -> !stream.resource<*>{%c48}
// CHECK: %[[V:.+]] = complex.create %re, %im : complex<f32>
// CHECK: %[[Q:.+]] = complex.bitcast %[[V]] : complex<f32> to i64
// CHECK: stream.async.fill on(#hal.device.affinity<@dev0>) %[[Q]], %[[S]][%c8 to %c16 for %c8] : i64 -> %[[S]] as !stream.resource<*>{%c48}
// CHECK: util.return %[[S]], %{{.+}}, %c80

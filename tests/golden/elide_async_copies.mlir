// RUN: streamproof compile %s --pass-pipeline=elide-async-copies --split-input-file | filecheck %s

// Two clones of one value, each written in place: the first is needed (the value is read again), the second is the last use and goes (IREE's multiUseTiedOperand).
util.func public @multi_use(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1_i32 = arith.constant 1 : i32
  %0 = stream.async.splat on(#hal.device.affinity<@dev0>) %c1_i32 : i32 -> !stream.resource<*>{%c16}
  %1 = stream.async.clone on(#hal.device.affinity<@dev0>) %0 : !stream.resource<*>{%c16} -> !stream.resource<*>{%c16}
  %2 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%1[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %1{%c16}
  %3 = stream.async.clone on(#hal.device.affinity<@dev0>) %0 : !stream.resource<*>{%c16} -> !stream.resource<*>{%c16}
  %4 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%3[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %3{%c16}
  %5 = stream.async.cast on(#hal.device.affinity<@dev0>) %2 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %6 = stream.tensor.export on(#hal.device.affinity<@dev0>) %5 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  %7 = stream.async.cast on(#hal.device.affinity<@dev0>) %4 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %8 = stream.tensor.export on(#hal.device.affinity<@dev0>) %7 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %6, %8 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @multi_use
// CHECK: %[[S:.+]] = stream.async.splat
// CHECK: %[[C:.+]] = stream.async.clone on(#hal.device.affinity<@dev0>) %[[S]]
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%[[C]]
// CHECK-NOT: stream.async.clone
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%[[S]][%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %[[S]]{%c16}

// -----

// A copy of borrowed caller storage stays when the copy is written (#16168, PR #22844); one that is only read is shared.
util.func public @borrowed(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %1 = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
  %2 = stream.async.clone on(#hal.device.affinity<@dev0>) %1 : !stream.resource<*>{%c16} -> !stream.resource<*>{%c16}
  %3 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%2[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
  %4 = stream.async.clone on(#hal.device.affinity<@dev0>) %1 : !stream.resource<*>{%c16} -> !stream.resource<*>{%c16}
  %5 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%4[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %4{%c16}
  %6 = stream.async.cast on(#hal.device.affinity<@dev0>) %3 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %7 = stream.tensor.export on(#hal.device.affinity<@dev0>) %6 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  %8 = stream.async.cast on(#hal.device.affinity<@dev0>) %5 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %9 = stream.tensor.export on(#hal.device.affinity<@dev0>) %8 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %7, %9 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @borrowed
// CHECK: %[[B:.+]] = stream.async.cast on(#hal.device.affinity<@dev0>) %{{.+}} : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%[[B]][%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
// CHECK: %[[W:.+]] = stream.async.clone on(#hal.device.affinity<@dev0>) %[[B]]
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%[[W]][%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %[[W]]{%c16}

// -----

// An export looks at its storage when the function returns, so a later in-place write through a clone of it keeps the clone; a clone of a constant that is written stays too.
util.func public @escape_and_constant(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1_i32 = arith.constant 1 : i32
  %0 = stream.async.splat on(#hal.device.affinity<@dev0>) %c1_i32 : i32 -> !stream.resource<*>{%c8}
  %1 = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<*>{%c8} -> !stream.resource<external>{%c8}
  %2 = stream.tensor.export on(#hal.device.affinity<@dev0>) %1 : tensor<2xi32> in !stream.resource<external>{%c8} -> !hal.buffer_view
  %3 = stream.async.clone on(#hal.device.affinity<@dev0>) %0 : !stream.resource<*>{%c8} -> !stream.resource<*>{%c8}
  %4 = stream.async.constant on(#hal.device.affinity<@dev0>) : !stream.resource<*>{%c8} = dense<[3, 4]> : tensor<2xi32>
  %5 = stream.async.clone on(#hal.device.affinity<@dev0>) %4 : !stream.resource<*>{%c8} -> !stream.resource<*>{%c8}
  %6:2 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%5[%c0 to %c8 for %c8], %3[%c0 to %c8 for %c8]) : (!stream.resource<*>{%c8}, !stream.resource<*>{%c8}) -> (%5{%c8}, %3{%c8})
  %7 = stream.async.cast on(#hal.device.affinity<@dev0>) %6#0 : !stream.resource<*>{%c8} -> !stream.resource<external>{%c8}
  %8 = stream.tensor.export on(#hal.device.affinity<@dev0>) %7 : tensor<2xi32> in !stream.resource<external>{%c8} -> !hal.buffer_view
  util.return %2, %8 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @escape_and_constant
// CHECK: %[[S:.+]] = stream.async.splat
// CHECK: %[[SC:.+]] = stream.async.clone on(#hal.device.affinity<@dev0>) %[[S]]
// CHECK: %[[K:.+]] = stream.async.constant
// CHECK: %[[KC:.+]] = stream.async.clone on(#hal.device.affinity<@dev0>) %[[K]]
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%[[KC]][%c0 to %c8 for %c8], %[[SC]][%c0 to %c8 for %c8])

// -----

// A transfer within one device and one lifetime is a clone: it goes when unobservable, and stays when its result is written while the source is still read (IREE drops it unconditionally); cross-device and lifetime-changing transfers stay.
util.func public @transfers(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1_i32 = arith.constant 1 : i32
  %0 = stream.async.splat on(#hal.device.affinity<@dev0>) %c1_i32 : i32 -> !stream.resource<*>{%c16}
  %1 = stream.async.transfer on(#hal.device.affinity<@dev0>) %0 : !stream.resource<*>{%c16} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<*>{%c16}
  %2 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%1[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %1{%c16}
  %3 = stream.async.transfer on(#hal.device.affinity<@dev0>) %0 : !stream.resource<*>{%c16} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev1>) !stream.resource<*>{%c16}
  %4 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%0[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
  %5 = stream.async.transfer on(#hal.device.affinity<@dev0>) %4 : !stream.resource<*>{%c16} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<*>{%c16}
  %6 = stream.async.transfer on(#hal.device.affinity<@dev0>) %5 : !stream.resource<*>{%c16} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<staging>{%c16}
  %7 = stream.async.cast on(#hal.device.affinity<@dev0>) %2 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %8 = stream.tensor.export on(#hal.device.affinity<@dev0>) %7 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  %9 = stream.async.cast on(#hal.device.affinity<@dev1>) %3 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %10 = stream.tensor.export on(#hal.device.affinity<@dev1>) %9 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  %11 = stream.tensor.export on(#hal.device.affinity<@dev0>) %6 : tensor<4xf32> in !stream.resource<staging>{%c16} -> !hal.buffer_view
  util.return %8, %10, %11 : !hal.buffer_view, !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @transfers
// CHECK: %[[S:.+]] = stream.async.splat
// CHECK: %[[KEEP:.+]] = stream.async.transfer on(#hal.device.affinity<@dev0>) %[[S]] {{.+}} to(#hal.device.affinity<@dev0>) !stream.resource<*>
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%[[KEEP]]
// CHECK: stream.async.transfer on(#hal.device.affinity<@dev0>) %[[S]] {{.+}} to(#hal.device.affinity<@dev1>)
// CHECK: %[[T:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh
// CHECK-NEXT: stream.async.transfer on(#hal.device.affinity<@dev0>) %[[T]] {{.+}} -> to(#hal.device.affinity<@dev0>) !stream.resource<staging>

// -----

// A slice read only by dispatches and copies folds into them at its offset, unless a write to the same storage may overlap the sliced bytes (IREE's slice_overlap_preventing).
util.func public @slices(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c1_i32 = arith.constant 1 : i32
  %0 = stream.async.splat on(#hal.device.affinity<@dev0>) %c1_i32 : i32 -> !stream.resource<*>{%c32}
  %1 = stream.async.slice on(#hal.device.affinity<@dev0>) %0[%c16 to %c32] : !stream.resource<*>{%c32} -> !stream.resource<*>{%c16}
  %2 = stream.async.slice on(#hal.device.affinity<@dev0>) %0[%c0 to %c16] : !stream.resource<*>{%c32} -> !stream.resource<*>{%c16}
  %3 = stream.async.fill on(#hal.device.affinity<@dev0>) %c1_i32, %0[%c8 to %c16 for %c8] : i32 -> %0 as !stream.resource<*>{%c32}
  %4 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%1[%c0 to %c16 for %c16], %2[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}, !stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
  %5 = stream.async.copy on(#hal.device.affinity<@dev0>) %1[%c0 to %c8], %4[%c8 to %c16], %c8 : !stream.resource<*>{%c16} -> %4 as !stream.resource<*>{%c16}
  %6 = stream.async.cast on(#hal.device.affinity<@dev0>) %5 : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %7 = stream.tensor.export on(#hal.device.affinity<@dev0>) %6 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  %8 = stream.async.cast on(#hal.device.affinity<@dev0>) %3 : !stream.resource<*>{%c32} -> !stream.resource<external>{%c32}
  %9 = stream.tensor.export on(#hal.device.affinity<@dev0>) %8 : tensor<8xf32> in !stream.resource<external>{%c32} -> !hal.buffer_view
  util.return %7, %9 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @slices
// CHECK: %[[S:.+]] = stream.async.splat
// CHECK-NEXT: %[[LOW:.+]] = stream.async.slice on(#hal.device.affinity<@dev0>) %[[S]][%c0 to %c16]
// CHECK-NEXT: %[[F:.+]] = stream.async.fill on(#hal.device.affinity<@dev0>) %c1_i32, %[[S]][%c8 to %c16 for %c8]
// CHECK-NEXT: %[[D:.+]] = stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%[[S]][%c16 to %c32 for %c16], %[[LOW]][%c0 to %c16 for %c16]) : (!stream.resource<*>{%c32}, !stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
// CHECK-NEXT: stream.async.copy on(#hal.device.affinity<@dev0>) %[[S]][%c16 to %c24], %[[D]][%c8 to %c16], %c8 : !stream.resource<*>{%c32} -> %[[D]] as !stream.resource<*>{%c16}

// -----

// An update whose bytes a tied update of the same range overwrites before anyone reads them is dropped; a partial overwrite is not enough (#23171: the concat case).
util.func public @updates(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c1_i32 = arith.constant 1 : i32
  %c2_i32 = arith.constant 2 : i32
  %a = stream.async.splat on(#hal.device.affinity<@dev0>) %c1_i32 : i32 -> !stream.resource<*>{%c8}
  %b = stream.async.splat on(#hal.device.affinity<@dev0>) %c2_i32 : i32 -> !stream.resource<*>{%c8}
  %t0 = stream.async.alloca on(#hal.device.affinity<@dev0>) : !stream.resource<*>{%c16}
  %dead = stream.async.update on(#hal.device.affinity<@dev0>) %a, %t0[%c0 to %c8] : !stream.resource<*>{%c8} -> %t0 as !stream.resource<*>{%c16}
  %over = stream.async.update on(#hal.device.affinity<@dev0>) %b, %dead[%c0 to %c8] : !stream.resource<*>{%c8} -> %dead as !stream.resource<*>{%c16}
  %t1 = stream.async.alloca on(#hal.device.affinity<@dev0>) : !stream.resource<*>{%c16}
  %first = stream.async.update on(#hal.device.affinity<@dev0>) %a, %t1[%c0 to %c8] : !stream.resource<*>{%c8} -> %t1 as !stream.resource<*>{%c16}
  %concat = stream.async.copy on(#hal.device.affinity<@dev0>) %b[%c0 to %c8], %first[%c8 to %c16], %c8 : !stream.resource<*>{%c8} -> %first as !stream.resource<*>{%c16}
  %0 = stream.async.cast on(#hal.device.affinity<@dev0>) %over : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %1 = stream.tensor.export on(#hal.device.affinity<@dev0>) %0 : tensor<4xi32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  %2 = stream.async.cast on(#hal.device.affinity<@dev0>) %concat : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %3 = stream.tensor.export on(#hal.device.affinity<@dev0>) %2 : tensor<4xi32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %1, %3 : !hal.buffer_view, !hal.buffer_view
}
// CHECK-LABEL: util.func public @updates
// CHECK: %[[A:.+]] = stream.async.splat on(#hal.device.affinity<@dev0>) %c1_i32
// CHECK: %[[B:.+]] = stream.async.splat on(#hal.device.affinity<@dev0>) %c2_i32
// CHECK: %[[T0:.+]] = stream.async.alloca
// CHECK-NOT: stream.async.update on(#hal.device.affinity<@dev0>) %[[A]], %[[T0]]
// CHECK: stream.async.update on(#hal.device.affinity<@dev0>) %[[B]], %[[T0]][%c0 to %c8]
// CHECK: %[[T1:.+]] = stream.async.alloca
// CHECK: %[[FIRST:.+]] = stream.async.update on(#hal.device.affinity<@dev0>) %[[A]], %[[T1]][%c0 to %c8]
// CHECK: stream.async.copy on(#hal.device.affinity<@dev0>) %[[B]][%c0 to %c8], %[[FIRST]][%c8 to %c16]

// -----

// A copy nobody reads is dead, whatever else holds: an unused clone of a value that is still used goes, and so does an update into a fresh value nobody looks at.
util.func public @dead(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1_i32 = arith.constant 1 : i32
  %0 = stream.async.splat on(#hal.device.affinity<@dev0>) %c1_i32 : i32 -> !stream.resource<*>{%c8}
  %1 = stream.async.clone on(#hal.device.affinity<@dev0>) %0 : !stream.resource<*>{%c8} -> !stream.resource<*>{%c8}
  %2 = stream.async.alloca on(#hal.device.affinity<@dev0>) : !stream.resource<*>{%c8}
  %3 = stream.async.update on(#hal.device.affinity<@dev0>) %0, %2[%c0 to %c8] : !stream.resource<*>{%c8} -> %2 as !stream.resource<*>{%c8}
  %4 = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<*>{%c8} -> !stream.resource<external>{%c8}
  %5 = stream.tensor.export on(#hal.device.affinity<@dev0>) %4 : tensor<2xi32> in !stream.resource<external>{%c8} -> !hal.buffer_view
  util.return %5 : !hal.buffer_view
}
// CHECK-LABEL: util.func public @dead
// CHECK-NOT: stream.async.clone
// CHECK-NOT: stream.async.update
// CHECK: stream.tensor.export

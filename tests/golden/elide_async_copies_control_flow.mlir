// RUN: streamproof compile %s --pass-pipeline=elide-async-copies --split-input-file | filecheck %s

// In a loop body, the copy of a value the body owns and uses last is elided; the copy of the region argument written in place stays.
util.func public @copies_in_body(%arg0: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %x = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (!stream.resource<*>) {
    %t = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%a[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
    %c = stream.async.clone on(#hal.device.affinity<@dev0>) %t : !stream.resource<*>{%c16} -> !stream.resource<*>{%c16}
    %u = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%c[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %c{%c16}
    %k = stream.async.clone on(#hal.device.affinity<@dev0>) %a : !stream.resource<*>{%c16} -> !stream.resource<*>{%c16}
    %v = stream.async.dispatch on(#hal.device.affinity<@dev0>) @gelu(%k[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %k{%c16}
    %s = stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%u[%c0 to %c16 for %c16], %v[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}, !stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
    scf.yield %s : !stream.resource<*>
  }
  %e = stream.async.cast on(#hal.device.affinity<@dev0>) %r : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %o = stream.tensor.export on(#hal.device.affinity<@dev0>) %e : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
// CHECK-LABEL: util.func public @copies_in_body
// CHECK: %t = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%t[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %t{%c16}
// CHECK: %k = stream.async.clone on(#hal.device.affinity<@dev0>) %a
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @gelu(%k[%c0 to %c16 for %c16])

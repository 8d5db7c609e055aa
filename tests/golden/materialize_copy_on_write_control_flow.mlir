// RUN: streamproof compile %s --pass-pipeline=materialize-copy-on-write --split-input-file --no-verify | filecheck %s
// Unverified: refinement does not follow an input whose loop body writes a carried value in place
// (the first case), which is exactly what this pass removes; convert-to-stream never emits one
// (tests/passes/test_structured_control_flow.py checks the pipeline, proved).

// A loop body writing its region argument in place writes a copy: the argument is the previous iteration's value (or the caller's buffer).
util.func public @carried_in_place(%arg0: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %x = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (!stream.resource<*>) {
    %y = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%a[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %a{%c16}
    scf.yield %y : !stream.resource<*>
  }
  %e = stream.async.cast on(#hal.device.affinity<@dev0>) %r : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %o = stream.tensor.export on(#hal.device.affinity<@dev0>) %e : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
// CHECK-LABEL: util.func public @carried_in_place
// CHECK: scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (!stream.resource<*>) {
// CHECK: %[[C:.+]] = stream.async.clone on(#hal.device.affinity<@dev0>) %a
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%[[C]][%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %[[C]]{%c16}

// -----

// A value the body makes and writes in place through its only user needs no copy.
util.func public @local_in_place(%arg0: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %x = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<external>{%c16} -> !stream.resource<*>{%c16}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (!stream.resource<*>) {
    %t = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%a[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> !stream.resource<*>{%c16}
    %y = stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%t[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %t{%c16}
    scf.yield %y : !stream.resource<*>
  }
  %e = stream.async.cast on(#hal.device.affinity<@dev0>) %r : !stream.resource<*>{%c16} -> !stream.resource<external>{%c16}
  %o = stream.tensor.export on(#hal.device.affinity<@dev0>) %e : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
// CHECK-LABEL: util.func public @local_in_place
// CHECK: %t = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh
// CHECK-NOT: stream.async.clone
// CHECK: stream.async.dispatch on(#hal.device.affinity<@dev0>) @relu(%t[%c0 to %c16 for %c16]) : (!stream.resource<*>{%c16}) -> %t{%c16}

// Found by a random input-level loop program (encode-tensors' output): two slots pass the same storage around, one of them through an scf.if in the body; the slice of %acc3 is in bounds in every iteration.
module {
  util.func public @main(%arg0: !hal.buffer_view, %n: index) -> (!hal.buffer_view, !hal.buffer_view) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %z8 = arith.constant 0.000000e+00 : f32
    %c64 = arith.constant 64 : index
    %c4 = arith.constant 4 : index
    %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) consume %arg0 : !hal.buffer_view -> tensor<2x8xf32> in !stream.resource<external>{%c64}
    %1 = stream.async.cast on(#hal.device.affinity<@dev0>) %0 : !stream.resource<external>{%c64} -> !stream.resource<*>{%c64}
    %v1 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @tanh(%1[%c0 to %c64 for %c64]) {streamproof.binding_types = [tensor<2x8xf32>, tensor<2x8xf32>]} : (!stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
    %r11:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc2 = %1, %acc3 = %v1) -> (!stream.resource<*>, !stream.resource<*>) {
      %idx4 = arith.minui %i, %c1 : index
      %v5 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @mul(%1[%c0 to %c64 for %c64], %1[%c0 to %c64 for %c64]) {streamproof.binding_types = [tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>]} : (!stream.resource<*>{%c64}, !stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
      %6 = stream.async.slice on(#hal.device.affinity<@dev0>) %acc3[%c0 to %c4] : !stream.resource<*>{%c64} -> !stream.resource<*>{%c4}
      %7 = stream.async.transfer on(#hal.device.affinity<@dev0>) %6 : !stream.resource<*>{%c4} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev0>) !stream.resource<staging>{%c4}
      %l6 = stream.async.load %7[%c0] : !stream.resource<staging>{%c4} -> f32
      %p7 = arith.cmpf ogt, %l6, %z8 : f32
      %if9 = scf.if %p7 -> (!stream.resource<*>) {
        scf.yield %acc2 : !stream.resource<*>
      } else {
        %v10 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @add(%1[%c0 to %c64 for %c64], %v5[%c0 to %c64 for %c64]) {streamproof.binding_types = [tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>]} : (!stream.resource<*>{%c64}, !stream.resource<*>{%c64}) -> !stream.resource<*>{%c64}
        scf.yield %v10 : !stream.resource<*>
      }
      scf.yield %if9, %acc2 : !stream.resource<*>, !stream.resource<*>
    }
    %2 = stream.async.cast on(#hal.device.affinity<@dev0>) %r11#0 : !stream.resource<*>{%c64} -> !stream.resource<external>{%c64}
    %3 = stream.tensor.export on(#hal.device.affinity<@dev0>) %2 : tensor<2x8xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
    %4 = stream.async.cast on(#hal.device.affinity<@dev0>) %r11#1 : !stream.resource<*>{%c64} -> !stream.resource<external>{%c64}
    %5 = stream.tensor.export on(#hal.device.affinity<@dev0>) %4 : tensor<2x8xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
    util.return %3, %5 : !hal.buffer_view, !hal.buffer_view
  }
}

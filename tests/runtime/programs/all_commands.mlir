// Every cmd-level command on one device: a concurrent copy and fill, a dispatch reading both
// (binding types from the program), an in-place (rw) dispatch, subviews and exports.
// Expected: @f(x) = (relu(x + 1), x).
util.func public @f(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %one = arith.constant 1065353216 : i32
  %x = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %r, %t = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c48} => !stream.timepoint
  %e = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t) => with(%x as %a: !stream.resource<external>{%c16}, %r as %b: !stream.resource<external>{%c48}) {
    stream.cmd.concurrent {
      stream.cmd.copy %a[%c0], %b[%c0], %c16 : !stream.resource<external>{%c16} -> !stream.resource<external>{%c48}
      stream.cmd.fill %one, %b[%c16 for %c16] : i32 -> !stream.resource<external>{%c48}
    }
    stream.cmd.dispatch @add {
      ro %b[%c0 for %c16] : !stream.resource<external>{%c48},
      ro %b[%c16 for %c16] : !stream.resource<external>{%c48},
      wo %b[%c32 for %c16] : !stream.resource<external>{%c48}
    } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>, tensor<4xf32>]}
    stream.cmd.dispatch @relu {
      rw %b[%c32 for %c16] : !stream.resource<external>{%c48}
    } attributes {streamproof.binding_types = [tensor<4xf32>]}
  } => !stream.timepoint
  %w = stream.timepoint.await %e => %r : !stream.resource<external>{%c48}
  %s0 = stream.resource.subview %w[%c32] : !stream.resource<external>{%c48} -> !stream.resource<external>{%c16}
  %s1 = stream.resource.subview %w[%c0] : !stream.resource<external>{%c48} -> !stream.resource<external>{%c16}
  %o0 = stream.tensor.export on(#hal.device.affinity<@dev0>) %s0 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  %o1 = stream.tensor.export on(#hal.device.affinity<@dev0>) %s1 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %o0, %o1 : !hal.buffer_view, !hal.buffer_view
}

// Two devices: @dev0 scales x by a uniform operand into a transient, @dev1 awaits it, copies it
// into its own memory (invalidate, copy, flush) and applies tanh in place; the transient is freed
// after @dev1's copy. Expected: @g(x) = tanh(2 * x).
util.func public @g(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  %x = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4x4xf32> in !stream.resource<external>{%c64}
  %tmp, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c64} => !stream.timepoint
  %e0 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%x as %a: !stream.resource<external>{%c64}, %tmp as %b: !stream.resource<transient>{%c64}) {
    stream.cmd.dispatch @scale(%two : f32) {
      ro %a[%c0 for %c64] : !stream.resource<external>{%c64},
      wo %b[%c0 for %c64] : !stream.resource<transient>{%c64}
    } attributes {streamproof.binding_types = [tensor<4x4xf32>, tensor<4x4xf32>]}
    stream.cmd.flush to(#hal.device.affinity<@dev1>) %b[%c0 for %c64] : !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %out, %t1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev1>) await(%e0) => !stream.resource<external>{%c64} => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev1>) await(%t1) => with(%tmp as %a: !stream.resource<transient>{%c64}, %out as %b: !stream.resource<external>{%c64}) {
    stream.cmd.invalidate from(#hal.device.affinity<@dev0>) %a[%c0 for %c64] : !stream.resource<transient>{%c64}
    stream.cmd.copy %a[%c0], %b[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
    stream.cmd.dispatch @tanh {
      rw %b[%c0 for %c64] : !stream.resource<external>{%c64}
    } attributes {streamproof.binding_types = [tensor<4x4xf32>]}
  } => !stream.timepoint
  %f = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e1) => %tmp : !stream.resource<transient>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%f, %e1) => !stream.timepoint
  %w = stream.timepoint.await %j => %out : !stream.resource<external>{%c64}
  %o = stream.tensor.export on(#hal.device.affinity<@dev1>) %w : tensor<4x4xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}

// Host-side resource ops: uploaded constants, a pack laid out into one slab, a staging buffer
// written and read by the host, retain/release after the export (the buffer view keeps its own
// claim, so the last release does not free it), joins of immediate timepoints, a barrier, sizes.
// Expected: @k() = (c * c + c for c = [1, 2, 3, 4], 2.5 + 4, 64-aligned slab size, release flags).
util.func public @k() -> (!hal.buffer_view, f32, index, i1, i1) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %half = arith.constant 2.5 : f32
  %cst:2 = stream.resource.constants on(#hal.device.affinity<@dev0>) :
    !stream.resource<constant>{%c16} = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    => !stream.timepoint
  %p:4 = stream.resource.pack on(#hal.device.affinity<@dev0>) slices({
    [0, 0] = %c16,
    [1, 1] = %c16,
    [0, 1] = %c16
  }) : index
  %slab, %ts = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%p#0} => !stream.timepoint
  %out, %to = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c16} => !stream.timepoint
  %i = stream.timepoint.immediate => !stream.timepoint
  %ready = stream.timepoint.join max(%cst#1, %ts, %to, %i) => !stream.timepoint
  %e = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%ready) => with(%cst#0 as %c: !stream.resource<constant>{%c16}, %slab as %s: !stream.resource<transient>{%p#0}, %out as %o: !stream.resource<external>{%c16}) {
    stream.cmd.dispatch @mul {
      ro %c[%c0 for %c16] : !stream.resource<constant>{%c16},
      ro %c[%c0 for %c16] : !stream.resource<constant>{%c16},
      wo %s[%p#1 for %c16] : !stream.resource<transient>{%p#0}
    } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>, tensor<4xf32>]}
    stream.cmd.dispatch @add {
      ro %s[%p#1 for %c16] : !stream.resource<transient>{%p#0},
      ro %c[%c0 for %c16] : !stream.resource<constant>{%c16},
      wo %s[%p#3 for %c16] : !stream.resource<transient>{%p#0}
    } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>, tensor<4xf32>]}
    stream.cmd.copy %s[%p#3], %o[%c0], %c16 : !stream.resource<transient>{%p#0} -> !stream.resource<external>{%c16}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e) => %slab : !stream.resource<transient>{%p#0} => !stream.timepoint
  %stage = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<staging>{%c4}
  stream.resource.store %half, %stage[%c0] : f32 -> !stream.resource<staging>{%c4}
  %v = stream.resource.load %stage[%c0] : !stream.resource<staging>{%c4} -> f32
  %sum = arith.addf %v, %v : f32
  %all = stream.timepoint.join max(%d, %e) => !stream.timepoint
  %w = stream.timepoint.await %all => %out : !stream.resource<external>{%c16}
  %b, %bt = stream.timepoint.barrier on(#hal.device.affinity<@dev0>) %w : !stream.resource<external>{%c16} => !stream.timepoint
  %ww = stream.timepoint.await %bt => %b : !stream.resource<external>{%c16}
  %n = stream.resource.size %ww : !stream.resource<external>
  %res = stream.tensor.export on(#hal.device.affinity<@dev0>) %ww : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  stream.resource.retain %ww : !stream.resource<external>{%c16}
  %last0 = stream.resource.release %ww : !stream.resource<external>{%c16}
  %last1 = stream.resource.release %ww : !stream.resource<external>{%c16}
  util.return %res, %sum, %p#0, %last0, %last1 : !hal.buffer_view, f32, index, i1, i1
}

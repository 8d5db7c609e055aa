// Dynamic shapes: %n rows; byte sizes computed on the host; the dispatch's dynamic dims arrive as
// trailing uniform operands in the order of the `?` in its binding types.
// Expected: @h(x, n) = softmax(x) over rows of 8, shape n x 8.
util.func public @h(%arg0: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %size = arith.muli %n, %c32 : index
  %x = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<?x8xf32>{%n} in !stream.resource<external>{%size}
  %r, %t = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%size} => !stream.timepoint
  %e = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t) => with(%x as %a: !stream.resource<external>{%size}, %r as %b: !stream.resource<external>{%size}) {
    stream.cmd.dispatch @softmax(%n, %n : index, index) {
      ro %a[%c0 for %size] : !stream.resource<external>{%size},
      wo %b[%c0 for %size] : !stream.resource<external>{%size}
    } attributes {streamproof.binding_types = [tensor<?x8xf32>, tensor<?x8xf32>]}
  } => !stream.timepoint
  %w = stream.timepoint.await %e => %r : !stream.resource<external>{%size}
  %o = stream.tensor.export on(#hal.device.affinity<@dev0>) %w : tensor<?x8xf32>{%n} in !stream.resource<external>{%size} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}

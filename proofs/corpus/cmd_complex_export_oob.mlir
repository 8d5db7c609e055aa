// EXPECT: OUT_OF_BOUNDS
// The export hands the caller 16 complex<f32> (128 bytes, 8 each) from a resource sized as if they were f32 (64 bytes): the caller reads past its end.
util.func public @complex_export_oob(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<8xcomplex<f32>> in !stream.resource<external>{%c64}
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%in as %a: !stream.resource<external>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %o[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %out : !stream.resource<external>{%c64}
  %v = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xcomplex<f32>> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %v : !hal.buffer_view
}

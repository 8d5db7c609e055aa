// EXPECT: OUT_OF_BOUNDS
// A splat of 16 complex<f32> elements takes 128 bytes (8 each, IREE's complex_float_64): filling them into a resource sized for 16 f32s runs past its end.
util.func public @complex_fill_oob() -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %cst = complex.constant [1.000000e+00 : f32, -2.000000e+00 : f32] : complex<f32>
  %pattern = complex.bitcast %cst : complex<f32> to i64
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c64} => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.fill %pattern, %o[%c0 for %c128] : i64 -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %out : !stream.resource<external>{%c64}
  %v = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<8xcomplex<f32>> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %v : !hal.buffer_view
}

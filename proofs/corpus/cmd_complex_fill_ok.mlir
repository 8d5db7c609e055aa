// EXPECT: proved
// A complex<f32> splat at the cmd level: the pattern is the constant's 64 bits (complex.bitcast to i64, as IREE encodes it), filled over 16 elements of 8 bytes.
util.func public @complex_fill() -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %cst = complex.constant [1.000000e+00 : f32, -2.000000e+00 : f32] : complex<f32>
  %pattern = complex.bitcast %cst : complex<f32> to i64
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c128} => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%out as %o: !stream.resource<external>{%c128}) {
    stream.cmd.fill %pattern, %o[%c0 for %c128] : i64 -> !stream.resource<external>{%c128}
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %out : !stream.resource<external>{%c128}
  %v = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xcomplex<f32>> in !stream.resource<external>{%c128} -> !hal.buffer_view
  util.return %v : !hal.buffer_view
}

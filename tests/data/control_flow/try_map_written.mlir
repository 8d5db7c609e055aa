util.global private @w : !stream.resource<constant>
util.initializer {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c7 = arith.constant 7 : i32
  %buf = util.buffer.constant : !util.buffer = dense<1> : tensor<16xi32>
  %ok, %m = "stream.resource.try_map"(%buf, %c0, %c64) : (!util.buffer, index, index) -> (i1, !stream.resource<constant>)
  %t = stream.cmd.execute with(%m as %x: !stream.resource<constant>{%c64}) {
    stream.cmd.fill %c7, %x[%c0 for %c64] : i32 -> !stream.resource<constant>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await sync %t => %m : !stream.resource<constant>{%c64}
  util.global.store %r, @w : !stream.resource<constant>
  util.return
}

// EXPECT: proved
// A wait fence without the ABI attribute: the host awaits it on the input and loads through the awaited value; the device copy waits for it on the device.
util.func public @peek(%buf: !stream.resource<staging>, %wait: !hal.fence) -> (i32, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ready = stream.timepoint.import on(#hal.device.affinity<@dev0>) %wait : (!hal.fence) => !stream.timepoint
  %out, %ta = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%ready) => !stream.resource<external>{%c64} => !stream.timepoint
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%ta) => with(%buf as %a: !stream.resource<staging>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %a[%c0], %o[%c0], %c64 : !stream.resource<staging>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %b = stream.timepoint.await %ready => %buf : !stream.resource<staging>{%c64}
  %v = stream.resource.load %b[%c0] : !stream.resource<staging>{%c64} -> i32
  %done = stream.timepoint.await %t => %out : !stream.resource<external>{%c64}
  util.return %v, %done : i32, !stream.resource<external>
}

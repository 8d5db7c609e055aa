// EXPECT: proved
// A retain before the release keeps the staging buffer alive for the load; the last release comes after it.
util.func public @retain_release() -> i32 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c5_i32 = arith.constant 5 : i32
  %buf = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<staging>{%c64}
  stream.resource.store %c5_i32, %buf[%c0] : i32 -> !stream.resource<staging>{%c64}
  stream.resource.retain %buf : !stream.resource<staging>{%c64}
  %l1 = stream.resource.release %buf : !stream.resource<staging>{%c64}
  %v = stream.resource.load %buf[%c0] : !stream.resource<staging>{%c64} -> i32
  %l2 = stream.resource.release %buf : !stream.resource<staging>{%c64}
  util.return %v : i32
}

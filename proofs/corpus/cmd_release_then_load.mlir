// EXPECT: USE_AFTER_FREE
// The host drops the last claim on a staging buffer and then reads it.
util.func public @release_then_load() -> i32 {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c5_i32 = arith.constant 5 : i32
  %buf = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<staging>{%c64}
  stream.resource.store %c5_i32, %buf[%c0] : i32 -> !stream.resource<staging>{%c64}
  %last = stream.resource.release %buf : !stream.resource<staging>{%c64}
  %v = stream.resource.load %buf[%c0] : !stream.resource<staging>{%c64} -> i32
  util.return %v : i32
}

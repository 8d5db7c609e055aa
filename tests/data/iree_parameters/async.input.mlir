util.func public @params(%target: !stream.resource<transient>, %tp: !stream.timepoint) -> (!stream.resource<constant>, !stream.resource<transient>, !stream.timepoint) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c0_i64 = arith.constant 0 : i64
  %c8_i64 = arith.constant 8 : i64
  %scope = util.buffer.constant : !util.buffer = "model"
  %key = util.buffer.constant : !util.buffer = "w0"
  %key1 = util.buffer.constant : !util.buffer = "w1"
  %r, %rt = stream.async.parameter.load %scope::%key[%c0_i64] : !stream.resource<constant>{%c64} => !stream.timepoint
  %r2, %rt2 = stream.async.parameter.load on(#hal.device.promise<@dev>) await(%tp) %key[%c8_i64] : !stream.resource<constant>{%c16} => !stream.timepoint
  %u, %ut = stream.async.parameter.read await(%rt) %scope::%key[%c0_i64] -> %target[%c0 to %c16 for %c16] : !stream.resource<transient>{%c64} => !stream.timepoint
  %w, %wt = stream.async.parameter.write await(%ut) %u[%c0 to %c16 for %c16] -> %scope::%key1[%c8_i64] : !stream.resource<transient>{%c64} => !stream.timepoint
  %g, %gt = stream.async.parameter.gather await(%wt) {
    %scope::%key[%c0_i64] -> %w[%c0 to %c16 for %c16] : !stream.resource<transient>{%c64},
    %scope::%key1[%c8_i64] -> %w[%c32 to %c64 for %c32] : !stream.resource<transient>{%c64}
  } : !stream.resource<transient> => !stream.timepoint
  %s, %st = stream.async.parameter.scatter await(%gt) {
    %g[%c0 to %c16 for %c16] : !stream.resource<transient>{%c64} -> %scope::%key[%c0_i64],
    %g[%c32 to %c64 for %c32] : !stream.resource<transient>{%c64} -> %scope::%key1[%c8_i64]
  } : !stream.resource<transient> => !stream.timepoint
  util.return %r, %s, %st : !stream.resource<constant>, !stream.resource<transient>, !stream.timepoint
}

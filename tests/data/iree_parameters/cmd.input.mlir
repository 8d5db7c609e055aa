util.func public @params(%target: !stream.resource<transient>, %tp: !stream.timepoint) -> (!stream.resource<constant>, !stream.timepoint) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c0_i64 = arith.constant 0 : i64
  %c8_i64 = arith.constant 8 : i64
  %scope = util.buffer.constant : !util.buffer = "model"
  %key = util.buffer.constant : !util.buffer = "w0"
  %key1 = util.buffer.constant : !util.buffer = "w1"
  %r:2, %rt = stream.cmd.parameter.load on(#hal.device.promise<@dev>) await(%tp) => {
    %scope::%key[%c0_i64] : !stream.resource<constant>{%c64},
    %scope::%key1[%c8_i64] : !stream.resource<constant>{%c16}
  } => !stream.timepoint
  %t1 = stream.cmd.parameter.read await(%rt) => %scope::%key[%c0_i64] -> %target[%c0 for %c16] : !stream.resource<transient>{%c64} => !stream.timepoint
  %t2 = stream.cmd.parameter.write await(%t1) => %target[%c0 for %c16] : !stream.resource<transient>{%c64} -> %key1[%c8_i64] => !stream.timepoint
  %t3 = stream.cmd.parameter.gather await(%t2) => {
    %scope::%key[%c0_i64] -> %target[%c0 for %c16] : !stream.resource<transient>{%c64},
    %scope::%key1[%c8_i64] -> %target[%c32 for %c32] : !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %t4 = stream.cmd.parameter.scatter await(%t3) => {
    %target[%c0 for %c16] : !stream.resource<transient>{%c64} -> %scope::%key[%c0_i64],
    %target[%c32 for %c32] : !stream.resource<transient>{%c64} -> %scope::%key1[%c8_i64]
  } => !stream.timepoint
  %t5 = stream.cmd.parameter.read %key[%c0_i64] -> %target[%c0 for %c16] : !stream.resource<transient>{%c64} => !stream.timepoint
  %j = stream.timepoint.join max(%t4, %t5) => !stream.timepoint
  util.return %r#0, %j : !stream.resource<constant>, !stream.timepoint
}

module {
  util.func public @params(%arg0: !stream.resource<transient>, %arg1: !stream.timepoint) -> (!stream.resource<constant>, !stream.timepoint) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c0_i64 = arith.constant 0 : i64
    %c8_i64 = arith.constant 8 : i64
    %buffer_cst = util.buffer.constant : !util.buffer = "model"
    %buffer_cst_0 = util.buffer.constant : !util.buffer = "w0"
    %buffer_cst_1 = util.buffer.constant : !util.buffer = "w1"
    %results:2, %result_timepoint = stream.cmd.parameter.load on(#hal.device.promise<@dev>) await(%arg1) => {
      %buffer_cst::%buffer_cst_0[%c0_i64] : !stream.resource<constant>{%c64},
      %buffer_cst::%buffer_cst_1[%c8_i64] : !stream.resource<constant>{%c16}
    } => !stream.timepoint
    %0 = stream.cmd.parameter.read await(%result_timepoint) => %buffer_cst::%buffer_cst_0[%c0_i64] -> %arg0[%c0 for %c16] : !stream.resource<transient>{%c64} => !stream.timepoint
    %1 = stream.cmd.parameter.write await(%0) => %arg0[%c0 for %c16] : !stream.resource<transient>{%c64} -> %buffer_cst_1[%c8_i64] => !stream.timepoint
    %2 = stream.cmd.parameter.gather await(%1) => {
      %buffer_cst::%buffer_cst_0[%c0_i64] -> %arg0[%c0 for %c16] : !stream.resource<transient>{%c64},
      %buffer_cst::%buffer_cst_1[%c8_i64] -> %arg0[%c32 for %c32] : !stream.resource<transient>{%c64}
    } => !stream.timepoint
    %3 = stream.cmd.parameter.scatter await(%2) => {
      %arg0[%c0 for %c16] : !stream.resource<transient>{%c64} -> %buffer_cst::%buffer_cst_0[%c0_i64],
      %arg0[%c32 for %c32] : !stream.resource<transient>{%c64} -> %buffer_cst::%buffer_cst_1[%c8_i64]
    } => !stream.timepoint
    %4 = stream.cmd.parameter.read %buffer_cst_0[%c0_i64] -> %arg0[%c0 for %c16] : !stream.resource<transient>{%c64} => !stream.timepoint
    %5 = stream.timepoint.join max(%3, %4) => !stream.timepoint
    util.return %results#0, %5 : !stream.resource<constant>, !stream.timepoint
  }
}

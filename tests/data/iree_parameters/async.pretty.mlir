module {
  util.func public @params(%arg0: !stream.resource<transient>, %arg1: !stream.timepoint) -> (!stream.resource<constant>, !stream.resource<transient>, !stream.timepoint) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c0_i64 = arith.constant 0 : i64
    %c8_i64 = arith.constant 8 : i64
    %buffer_cst = util.buffer.constant : !util.buffer = "model"
    %buffer_cst_0 = util.buffer.constant : !util.buffer = "w0"
    %buffer_cst_1 = util.buffer.constant : !util.buffer = "w1"
    %result, %result_timepoint = stream.async.parameter.load %buffer_cst::%buffer_cst_0[%c0_i64] : !stream.resource<constant>{%c64} => !stream.timepoint
    %result_2, %result_timepoint_3 = stream.async.parameter.load on(#hal.device.promise<@dev>) await(%arg1) %buffer_cst_0[%c8_i64] : !stream.resource<constant>{%c16} => !stream.timepoint
    %result_4, %result_timepoint_5 = stream.async.parameter.read await(%result_timepoint) %buffer_cst::%buffer_cst_0[%c0_i64] -> %arg0[%c0 to %c16 for %c16] : !stream.resource<transient>{%c64} => !stream.timepoint
    %result_6, %result_timepoint_7 = stream.async.parameter.write await(%result_timepoint_5) %result_4[%c0 to %c16 for %c16] -> %buffer_cst::%buffer_cst_1[%c8_i64] : !stream.resource<transient>{%c64} => !stream.timepoint
    %result_8, %result_timepoint_9 = stream.async.parameter.gather await(%result_timepoint_7) {
      %buffer_cst::%buffer_cst_0[%c0_i64] -> %result_6[%c0 to %c16 for %c16] : !stream.resource<transient>{%c64},
      %buffer_cst::%buffer_cst_1[%c8_i64] -> %result_6[%c32 to %c64 for %c32] : !stream.resource<transient>{%c64}
    } : !stream.resource<transient> => !stream.timepoint
    %result_10, %result_timepoint_11 = stream.async.parameter.scatter await(%result_timepoint_9) {
      %result_8[%c0 to %c16 for %c16] : !stream.resource<transient>{%c64} -> %buffer_cst::%buffer_cst_0[%c0_i64],
      %result_8[%c32 to %c64 for %c32] : !stream.resource<transient>{%c64} -> %buffer_cst::%buffer_cst_1[%c8_i64]
    } : !stream.resource<transient> => !stream.timepoint
    util.return %result, %result_10, %result_timepoint_11 : !stream.resource<constant>, !stream.resource<transient>, !stream.timepoint
  }
}

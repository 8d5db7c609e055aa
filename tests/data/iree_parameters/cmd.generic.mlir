"builtin.module"() ({
  "util.func"() <{function_type = (!stream.resource<transient>, !stream.timepoint) -> (!stream.resource<constant>, !stream.timepoint), sym_name = "params", sym_visibility = "public", tied_operands = [-1 : index, -1 : index]}> ({
  ^bb0(%arg0: !stream.resource<transient>, %arg1: !stream.timepoint):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "arith.constant"() <{value = 16 : index}> : () -> index
    %2 = "arith.constant"() <{value = 32 : index}> : () -> index
    %3 = "arith.constant"() <{value = 64 : index}> : () -> index
    %4 = "arith.constant"() <{value = 0 : i64}> : () -> i64
    %5 = "arith.constant"() <{value = 8 : i64}> : () -> i64
    %6 = "util.buffer.constant"() <{value = "model"}> : () -> !util.buffer
    %7 = "util.buffer.constant"() <{value = "w0"}> : () -> !util.buffer
    %8 = "util.buffer.constant"() <{value = "w1"}> : () -> !util.buffer
    %9:3 = "stream.cmd.parameter.load"(%6, %7, %8, %4, %5, %3, %1, %arg1) <{affinity = #hal.device.promise<@dev>, operandSegmentSizes = array<i32: 1, 2, 2, 2, 1>}> : (!util.buffer, !util.buffer, !util.buffer, i64, i64, index, index, !stream.timepoint) -> (!stream.resource<constant>, !stream.resource<constant>, !stream.timepoint)
    %10 = "stream.cmd.parameter.read"(%6, %7, %4, %arg0, %3, %0, %1, %9#2) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>}> : (!util.buffer, !util.buffer, i64, !stream.resource<transient>, index, index, index, !stream.timepoint) -> !stream.timepoint
    %11 = "stream.cmd.parameter.write"(%arg0, %3, %0, %1, %8, %5, %10) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 1, 1>}> : (!stream.resource<transient>, index, index, index, !util.buffer, i64, !stream.timepoint) -> !stream.timepoint
    %12 = "stream.cmd.parameter.gather"(%6, %7, %8, %4, %5, %arg0, %3, %0, %2, %1, %2, %11) <{operandSegmentSizes = array<i32: 1, 2, 2, 1, 1, 2, 2, 1>}> : (!util.buffer, !util.buffer, !util.buffer, i64, i64, !stream.resource<transient>, index, index, index, index, index, !stream.timepoint) -> !stream.timepoint
    %13 = "stream.cmd.parameter.scatter"(%arg0, %3, %0, %2, %1, %2, %6, %7, %8, %4, %5, %12) <{operandSegmentSizes = array<i32: 1, 1, 2, 2, 1, 2, 2, 1>}> : (!stream.resource<transient>, index, index, index, index, index, !util.buffer, !util.buffer, !util.buffer, i64, i64, !stream.timepoint) -> !stream.timepoint
    %14 = "stream.cmd.parameter.read"(%7, %4, %arg0, %3, %0, %1) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0>}> : (!util.buffer, i64, !stream.resource<transient>, index, index, index) -> !stream.timepoint
    %15 = "stream.timepoint.join"(%13, %14) : (!stream.timepoint, !stream.timepoint) -> !stream.timepoint
    "util.return"(%9#0, %15) : (!stream.resource<constant>, !stream.timepoint) -> ()
  }) : () -> ()
}) : () -> ()

"builtin.module"() ({
  "util.func"() <{function_type = (!stream.resource<transient>, !stream.timepoint) -> (!stream.resource<constant>, !stream.resource<transient>, !stream.timepoint), sym_name = "params", sym_visibility = "public", tied_operands = [-1 : index, -1 : index, -1 : index]}> ({
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
    %9:2 = "stream.async.parameter.load"(%6, %7, %4, %3) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1>}> : (!util.buffer, !util.buffer, i64, index) -> (!stream.resource<constant>, !stream.timepoint)
    %10:2 = "stream.async.parameter.load"(%arg1, %7, %5, %1) <{affinity = #hal.device.promise<@dev>, operandSegmentSizes = array<i32: 1, 0, 1, 1, 1>}> : (!stream.timepoint, !util.buffer, i64, index) -> (!stream.resource<constant>, !stream.timepoint)
    %11:2 = "stream.async.parameter.read"(%arg0, %3, %0, %1, %1, %6, %7, %4, %9#1) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>}> : (!stream.resource<transient>, index, index, index, index, !util.buffer, !util.buffer, i64, !stream.timepoint) -> (!stream.resource<transient>, !stream.timepoint)
    %12:2 = "stream.async.parameter.write"(%11#0, %3, %0, %1, %1, %6, %8, %5, %11#1) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>}> : (!stream.resource<transient>, index, index, index, index, !util.buffer, !util.buffer, i64, !stream.timepoint) -> (!stream.resource<transient>, !stream.timepoint)
    %13:2 = "stream.async.parameter.gather"(%6, %7, %8, %4, %5, %12#0, %3, %0, %2, %1, %3, %1, %2, %12#1) <{operandSegmentSizes = array<i32: 1, 2, 2, 1, 1, 2, 2, 2, 1>}> : (!util.buffer, !util.buffer, !util.buffer, i64, i64, !stream.resource<transient>, index, index, index, index, index, index, index, !stream.timepoint) -> (!stream.resource<transient>, !stream.timepoint)
    %14:2 = "stream.async.parameter.scatter"(%13#0, %3, %0, %2, %1, %3, %1, %2, %6, %7, %8, %4, %5, %13#1) <{operandSegmentSizes = array<i32: 1, 1, 2, 2, 2, 1, 2, 2, 1>}> : (!stream.resource<transient>, index, index, index, index, index, index, index, !util.buffer, !util.buffer, !util.buffer, i64, i64, !stream.timepoint) -> (!stream.resource<transient>, !stream.timepoint)
    "util.return"(%9#0, %14#0, %14#1) : (!stream.resource<constant>, !stream.resource<transient>, !stream.timepoint) -> ()
  }) : () -> ()
}) : () -> ()

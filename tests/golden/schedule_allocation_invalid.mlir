// RUN: not streamproof compile %s --pass-pipeline=schedule-allocation --no-verify 2>&1 | filecheck %s

// An async op outside an execution region is refused (schedule-execution has not run).
// CHECK: error: schedule-allocation: 'stream.async.splat' must be inside a stream.async.execute region
util.func public @unscheduled() -> !stream.resource<transient> {
  %c0_i8 = arith.constant 0 : i8
  %c64 = arith.constant 64 : index
  %0 = stream.async.splat %c0_i8 : i8 -> !stream.resource<transient>{%c64}
  util.return %0 : !stream.resource<transient>
}


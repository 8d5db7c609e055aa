// EXPECT: MISSED_WAIT
// The copy out awaits only the alloca, not the gather that fills the buffer: it may read bytes the gather is still writing.
util.func public @parameters(%out: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c0_i64 = arith.constant 0 : i64
  %scope = util.buffer.constant : !util.buffer = "model"
  %k0 = util.buffer.constant : !util.buffer = "w0"
  %k1 = util.buffer.constant : !util.buffer = "w1"
  %buf, %bt = stream.resource.alloca uninitialized : !stream.resource<transient>{%c64} => !stream.timepoint
  %gt = stream.cmd.parameter.gather await(%bt) => {
    %scope::%k0[%c0_i64] -> %buf[%c0 for %c32] : !stream.resource<transient>{%c64},
    %scope::%k1[%c0_i64] -> %buf[%c32 for %c32] : !stream.resource<transient>{%c64}
  } => !stream.timepoint
  %et = stream.cmd.execute await(%bt) => with(%buf as %b: !stream.resource<transient>{%c64}, %out as %o: !stream.resource<external>{%c64}) {
    stream.cmd.copy %b[%c0], %o[%c0], %c64 : !stream.resource<transient>{%c64} -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %j = stream.timepoint.join max(%gt, %et) => !stream.timepoint
  %dt = stream.resource.dealloca await(%j) => %buf : !stream.resource<transient>{%c64} => !stream.timepoint
  %r = stream.timepoint.await %dt => %out : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

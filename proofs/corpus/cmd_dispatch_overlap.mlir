// EXPECT: RACE_READ_AFTER_WRITE
// IREE #19347: one dispatch binds overlapping bytes of one transient `ro` and `wo`.
util.func public @dispatch_overlap(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  %c128 = arith.constant 128 : index
  %slab, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c128} => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%in as %a: !stream.resource<external>{%c64}, %slab as %s: !stream.resource<external>{%c128}) {
    stream.cmd.copy %a[%c0], %s[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c128}
    stream.cmd.dispatch @ex::@step {
      ro %s[%c0 for %c96] : !stream.resource<external>{%c128},
      wo %s[%c64 for %c64] : !stream.resource<external>{%c128}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %slab : !stream.resource<external>{%c128}
  util.return %r : !stream.resource<external>
}

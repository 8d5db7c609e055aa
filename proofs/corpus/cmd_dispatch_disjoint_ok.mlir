// EXPECT: proved
// The fixed #19347 pattern: the `ro` and `wo` bindings of one dispatch are disjoint ranges of one allocation.
util.func public @dispatch_disjoint(%in: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %slab, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c128} => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%in as %a: !stream.resource<external>{%c64}, %slab as %s: !stream.resource<external>{%c128}) {
    stream.cmd.copy %a[%c0], %s[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c128}
    stream.cmd.dispatch @ex::@step {
      ro %s[%c0 for %c64] : !stream.resource<external>{%c128},
      wo %s[%c64 for %c64] : !stream.resource<external>{%c128}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %slab : !stream.resource<external>{%c128}
  util.return %r : !stream.resource<external>
}

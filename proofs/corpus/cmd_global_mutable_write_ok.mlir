// EXPECT: proved
// The same in-place write into a `mutable` global's storage, finished before the function returns.
util.global private mutable @state : !stream.resource<variable>
util.func public @mutable_write() {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %s = "util.global.load"() <{global = @state}> : () -> !stream.resource<variable>
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%s as %a: !stream.resource<variable>{%c64}) {
    stream.cmd.dispatch @ex::@scale {
      rw %a[%c0 for %c64] : !stream.resource<variable>{%c64}
    }
  } => !stream.timepoint
  %done = stream.timepoint.await sync %t => %s : !stream.resource<variable>{%c64}
  util.return
}

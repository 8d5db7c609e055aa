// EXPECT: BORROWED_INPUT_MUTATED
// A dispatch writes in place into the storage of an immutable global (not `mutable`): only initializers may set it.
util.global private @state : !stream.resource<variable>
util.func public @immutable_write() {
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

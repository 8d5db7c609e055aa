// EXPECT: MISSED_WAIT
// The update stores back the timepoint it loaded, not the one of its own write: a later loader awaits it and reads the write unfinished.
util.global private mutable @state__timepoint = #stream.timepoint<immediate> : !stream.timepoint
util.global private mutable @state : !stream.resource<variable>
util.func public @update() {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %tp = "util.global.load"() <{global = @state__timepoint}> : () -> !stream.timepoint
  %s = "util.global.load"() <{global = @state}> : () -> !stream.resource<variable>
  %r, %t = stream.async.execute on(#hal.device.affinity<@dev0>) await(%tp) => with(%s as %x: !stream.resource<variable>{%c64}) -> %s{%c64} {
    %f = stream.async.fill %c1_i32, %x[%c0 to %c64 for %c64] : i32 -> %x as !stream.resource<variable>{%c64}
    stream.yield %f : !stream.resource<variable>{%c64}
  } => !stream.timepoint
  "util.global.store"(%tp) <{global = @state__timepoint}> : (!stream.timepoint) -> ()
  "util.global.store"(%r) <{global = @state}> : (!stream.resource<variable>) -> ()
  util.return
}

// RUN: not streamproof verify %s --split-input-file | filecheck %s

// A producer and its consumer in one cmd.concurrent: the SPEC §5 read-after-write counterexample.
// CHECK-LABEL: error: RACE_READ_AFTER_WRITE in @wave_raw on %slab (alloca at {{.+}}:{{[0-9]+}}:3) bytes [16384, 32768)
// CHECK-NEXT: write: stream.cmd.dispatch @mm1 wo %[[S:[a-z0-9_]+]][16384 for 16384] {{.+}}:{{[0-9]+}}:7 (cmd.concurrent in execute #1 on @dev0)
// CHECK-NEXT: read: stream.cmd.dispatch @mm2 ro %[[S]][16384 for 16384] {{.+}}:{{[0-9]+}}:7 (cmd.concurrent in execute #1 on @dev0)
// CHECK-NEXT: witness:
// CHECK-NEXT: 1 host issue execute #1
// CHECK-NEXT: 2 @dev0 start execute #1
// CHECK-NEXT: 3 @dev0 start dispatch @mm2 reads [16384, 32768)
// CHECK-NEXT: 4 @dev0 start dispatch @mm1 writes [16384, 32768)
// CHECK: FAILED: {{[0-9]+}} obligations
util.func public @wave_raw() {
  %c16384 = arith.constant 16384 : index
  %c32768 = arith.constant 32768 : index
  %slab, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c32768} => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%slab as %s: !stream.resource<transient>{%c32768}) {
    stream.cmd.concurrent {
      stream.cmd.dispatch @ex::@mm1 {
        wo %s[%c16384 for %c16384] : !stream.resource<transient>{%c32768}
      }
      stream.cmd.dispatch @ex::@mm2 {
        ro %s[%c16384 for %c16384] : !stream.resource<transient>{%c32768}
      }
    }
  } => !stream.timepoint
  %t2 = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%t1) => %slab : !stream.resource<transient>{%c32768} => !stream.timepoint
  util.return
}

// -----

// A reader and a later in-place writer of the same bytes in one wave: write-after-read.
// CHECK-LABEL: error: RACE_WRITE_AFTER_READ in @wave_war on %buf (argument at {{.+}}) bytes [0, 64)
// CHECK-NEXT: read: stream.cmd.copy source %[[B:[a-z0-9_]+]][0 for 64]
// CHECK-NEXT: write: stream.cmd.fill fill %[[B]][0 for 64]
// CHECK: witness:
// CHECK: @dev0 start fill writes [0, 64)
// CHECK-NEXT: @dev0 start copy reads [0, 64)
util.func public @wave_war(%buf: !stream.resource<external>, %dst: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%c64}, %dst as %d: !stream.resource<external>{%c64}) {
    stream.cmd.concurrent {
      stream.cmd.copy %b[%c0], %d[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}
      stream.cmd.fill %c0, %b[%c0 for %c64] : index -> !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %dst : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

// -----

// Two submissions to one queue with no timepoint between them: the consumer misses a wait.
// CHECK-LABEL: error: MISSED_WAIT in @same_queue on %buf (argument at {{.+}}) bytes [0, 64)
// CHECK-NEXT: producer: stream.cmd.fill fill %{{.+}}[0 for 64] {{.+}} (execute #1 on @dev0)
// CHECK-NEXT: consumer: stream.cmd.dispatch @use rw %{{.+}}[0 for 64] {{.+}} (execute #2 on @dev0)
// CHECK-NEXT: witness:
// CHECK-NEXT: 1 host issue execute #1
// CHECK-NEXT: 2 host issue execute #2
// CHECK: @dev0 start dispatch @use reads+writes [0, 64)
// CHECK-NEXT: @dev0 start fill writes [0, 64)
util.func public @same_queue(%buf: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c7_i32 = arith.constant 7 : i32
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%c64}) {
    stream.cmd.fill %c7_i32, %b[%c0 for %c64] : i32 -> !stream.resource<external>{%c64}
  } => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev0>) with(%buf as %b: !stream.resource<external>{%c64}) {
    stream.cmd.dispatch @ex::@use {
      rw %b[%c0 for %c64] : !stream.resource<external>{%c64}
    }
  } => !stream.timepoint
  %j = stream.timepoint.join max(%e1, %e2) => !stream.timepoint
  %r = stream.timepoint.await %j => %buf : !stream.resource<external>{%c64}
  util.return %r : !stream.resource<external>
}

// -----

// Concurrent writers of [0, a) and [b, b + 64): racy only for some sizes; Z3 gives such sizes.
// CHECK-LABEL: error: RACE_WRITE_AFTER_WRITE in @sizes on %buf
// CHECK-NEXT: write: stream.cmd.fill fill %{{.+}}[0 for %a]
// CHECK-NEXT: write: stream.cmd.dispatch @tail wo %{{.+}}[%b for 64]
// CHECK-NEXT: with: %a = [[A:[0-9]+]], %b = [[B:[0-9]+]]
// CHECK-NEXT: witness:
util.func public @sizes(%a: index, %b: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %ab = arith.addi %a, %b : index
  %size = arith.addi %ab, %c64 : index
  %buf, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%size} => !stream.timepoint
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%buf as %x: !stream.resource<external>{%size}) {
    stream.cmd.concurrent {
      stream.cmd.fill %c1_i32, %x[%c0 for %a] : i32 -> !stream.resource<external>{%size}
      stream.cmd.dispatch @ex::@tail {
        wo %x[%b for %c64] : !stream.resource<external>{%size}
      }
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%size}
  util.return %r : !stream.resource<external>
}

// EXPECT: proved
// FuseDispatchBindings' final form: both dispatches of a wave bind the whole slab, and their executable writes only the subspan at the offset passed as two i32 halves (0 and 64 + 64 * %n): disjoint for every %n.
stream.executable private @ex {
  stream.executable.export public @write16
  builtin.module {
    func.func @write16(%arg0: !stream.binding, %lo: i32, %hi: i32) {
      %c32 = arith.constant 32 : i64
      %0 = arith.extui %lo : i32 to i64
      %1 = arith.extui %hi : i32 to i64
      %2 = arith.shli %1, %c32 : i64
      %3 = arith.ori %0, %2 : i64
      %4 = arith.index_castui %3 : i64 to index
      %5 = stream.binding.subspan %arg0[%4] : !stream.binding -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16xf32>>
      return
    }
  }
}
util.func public @fused(%n: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c0_i32 = arith.constant 0 : i32
  %c32_i64 = arith.constant 32 : i64
  %n64 = arith.muli %n, %c64 : index
  %off = arith.addi %n64, %c64 : index
  %size = arith.addi %n64, %c128 : index
  %lo = arith.index_castui %off : index to i32
  %wide = arith.index_castui %off : index to i64
  %shr = arith.shrui %wide, %c32_i64 : i64
  %hi = arith.trunci %shr : i64 to i32
  %slab, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%size} => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%slab as %s: !stream.resource<external>{%size}) {
    stream.cmd.concurrent {
      stream.cmd.dispatch @ex::@write16(%c0_i32, %c0_i32 : i32, i32) {
        wo %s[%c0 for %size] : !stream.resource<external>{%size}
      }
      stream.cmd.dispatch @ex::@write16(%lo, %hi : i32, i32) {
        wo %s[%c0 for %size] : !stream.resource<external>{%size}
      }
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %slab : !stream.resource<external>{%size}
  util.return %r : !stream.resource<external>
}

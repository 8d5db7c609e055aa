// EXPECT: proved
// hal.buffer_view.assert checks the caller's view is a 16xf32 tensor; its hal.buffer_view.dim is then 16, so the writes [0, 16) and [dim, dim + 16) of a 32-byte slab issued after the check are disjoint and in bounds.
util.func public @view(%arg0: !hal.buffer_view) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c1_i32 = arith.constant 1 : i32
  %d = "hal.buffer_view.dim"(%arg0) <{index = 0 : index}> : (!hal.buffer_view) -> index
  %et = hal.element_type<f32> : i32
  %enc = hal.encoding_type<dense_row_major> : i32
  hal.buffer_view.assert<%arg0 : !hal.buffer_view> message("input") shape([%c16]) type(%et) encoding(%enc)
  %buf, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{%c32} => !stream.timepoint
  %t = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%buf as %b: !stream.resource<external>{%c32}) {
    stream.cmd.concurrent {
      stream.cmd.fill %c1_i32, %b[%c0 for %c16] : i32 -> !stream.resource<external>{%c32}
      stream.cmd.dispatch @ex::@second {
        wo %b[%d for %c16] : !stream.resource<external>{%c32}
      }
    }
  } => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : !stream.resource<external>{%c32}
  util.return %r : !stream.resource<external>
}

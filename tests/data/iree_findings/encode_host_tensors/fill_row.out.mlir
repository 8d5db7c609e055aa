// IREE 3.13.0: iree-opt --iree-stream-encode-host-tensors fill_row.in.mlir
module {
  util.func public @fill_row(%arg0: f32, %arg1: !stream.resource<*>) -> !stream.resource<*> {
    %c48 = arith.constant 48 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %0 = arith.bitcast %arg0 : f32 to i32
    %1 = stream.async.fill %0, %arg1[%c16 to %c48 for %c32] : i32 -> %arg1 as !stream.resource<*>{%c32}
    util.return %1 : !stream.resource<*>
  }
}


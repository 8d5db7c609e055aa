// IREE 3.13.0: iree-opt --iree-stream-encode-host-tensors fill_corner.in.mlir
module {
  util.func public @fill_corner(%arg0: f32, %arg1: !stream.resource<*>) -> !stream.resource<*> {
    %c20 = arith.constant 20 : index
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %0 = arith.bitcast %arg0 : f32 to i32
    %1 = stream.async.fill %0, %arg1[%c0 to %c20 for %c20] : i32 -> %arg1 as !stream.resource<*>{%c32}
    util.return %1 : !stream.resource<*>
  }
}


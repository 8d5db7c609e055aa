// IREE 3.13.0: iree-opt --iree-stream-encode-host-tensors update_rows.in.mlir
module {
  util.func public @update_rows(%arg0: !stream.resource<*>, %arg1: !stream.resource<*>) -> !stream.resource<*> {
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c16 = arith.constant 16 : index
    %c48 = arith.constant 48 : index
    %0 = stream.async.update %arg0, %arg1[%c16 to %c48] : !stream.resource<*>{%c32} -> %arg1 as !stream.resource<*>{%c64}
    util.return %0 : !stream.resource<*>
  }
}


// IREE 3.13.0: iree-opt --iree-stream-encode-host-tensors update_block.in.mlir
module {
  util.func public @update_block(%arg0: !stream.resource<*>, %arg1: !stream.resource<*>) -> !stream.resource<*> {
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c20 = arith.constant 20 : index
    %c36 = arith.constant 36 : index
    %0 = stream.async.update %arg0, %arg1[%c20 to %c36] : !stream.resource<*>{%c16} -> %arg1 as !stream.resource<*>{%c64}
    util.return %0 : !stream.resource<*>
  }
}


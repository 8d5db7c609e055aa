// IREE 3.13.0: iree-opt --iree-stream-encode-host-tensors slice_column.in.mlir
module {
  util.func public @slice_column(%arg0: !stream.resource<*>) -> !stream.resource<*> {
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : index
    %c20 = arith.constant 20 : index
    %0 = stream.async.slice %arg0[%c4 to %c20] : !stream.resource<*>{%c32} -> !stream.resource<*>{%c16}
    util.return %0 : !stream.resource<*>
  }
}


// IREE 3.13.0: iree-opt --iree-stream-encode-host-tensors fill_dynamic.in.mlir
module {
  util.func public @fill_dynamic(%arg0: f32, %arg1: !stream.resource<*>, %arg2: index, %arg3: index, %arg4: index, %arg5: index) -> !stream.resource<*> {
    %c20 = arith.constant 20 : index
    %c4 = arith.constant 4 : index
    %0 = arith.bitcast %arg0 : f32 to i32
    %1 = arith.muli %arg4, %c4 : index
    %2 = arith.addi %1, %arg5 : index
    %3 = arith.muli %2, %c4 : index
    %4 = arith.addi %3, %c20 : index
    %5 = stream.async.fill %0, %arg1[%3 to %4 for %c20] : i32 -> %arg1 as !stream.resource<*>{%arg3}
    util.return %5 : !stream.resource<*>
  }
}


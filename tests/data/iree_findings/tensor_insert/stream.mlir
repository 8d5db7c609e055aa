// IREE 3.13.0: iree-compile --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --compile-to=stream insert.mlir
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", cpu_features = "", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 16 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>]> : !hal.device
  util.func public @insert_element(%arg0: !hal.buffer_view, %arg1: f32) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @insert_element(%input0: tensor<2x4xf32>, %input1: f32) -> (%output0: tensor<2x4xf32>)"}} {
    %c20 = arith.constant 20 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : index
    %c2 = arith.constant 2 : index
    %element_type_f32 = hal.element_type<f32> : i32
    %dense_row_major = hal.encoding_type<dense_row_major> : i32
    hal.buffer_view.assert<%arg0 : !hal.buffer_view> message("input0") shape([%c2, %c4]) type(%element_type_f32) encoding(%dense_row_major)
    %0 = stream.tensor.import on(#hal.device.affinity<@__device_0>) %arg0 : !hal.buffer_view -> tensor<2x4xf32> in !stream.resource<external>{%c32}
    %1 = arith.bitcast %arg1 : f32 to i32
    %2 = stream.cmd.execute on(#hal.device.affinity<@__device_0>) with(%0 as %arg2: !stream.resource<external>{%c32}) {
      stream.cmd.fill %1, %arg2[%c4 for %c20] : i32 -> !stream.resource<external>{%c32}
    } => !stream.timepoint
    %3 = stream.timepoint.await %2 => %0 : !stream.resource<external>{%c32}
    %4 = stream.tensor.export on(#hal.device.affinity<@__device_0>) %3 : tensor<2x4xf32> in !stream.resource<external>{%c32} -> !hal.buffer_view
    util.return %4 : !hal.buffer_view
  }
}
#executable_target_embedded_elf_x86_64 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", cpu_features = "", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 16 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>
#device_target_local = #hal.device.target<"local", [#executable_target_embedded_elf_x86_64]> : !hal.device
"builtin.module"() ({
  "util.global"() <{initial_value = #device_target_local, sym_name = "__device_0", sym_visibility = "private", type = !hal.device}> : () -> ()
  "util.func"() <{function_type = (!hal.buffer_view, f32) -> !hal.buffer_view, sym_name = "insert_element"}> ({
  ^bb0(%arg0: !hal.buffer_view, %arg1: f32):
    %0 = "arith.constant"() <{value = 24 : index}> : () -> index
    %1 = "arith.constant"() <{value = 20 : index}> : () -> index
    %2 = "arith.constant"() <{value = 32 : index}> : () -> index
    %3 = "arith.constant"() <{value = 4 : index}> : () -> index
    %4 = "arith.constant"() <{value = 2 : index}> : () -> index
    %5 = "hal.element_type"() <{type = f32}> : () -> i32
    %6 = "hal.encoding_type"() : () -> i32
    "hal.buffer_view.assert"(%arg0, %5, %6, %4, %3) <{message = "input0"}> : (!hal.buffer_view, i32, i32, index, index) -> ()
    %7 = "stream.tensor.import"(%arg0, %2) <{affinity = #hal.device.affinity<@__device_0>, result_encoding = tensor<2x4xf32>}> : (!hal.buffer_view, index) -> !stream.resource<external>
    %8 = "stream.async.cast"(%7, %2, %2) <{affinity = #hal.device.affinity<@__device_0>}> : (!stream.resource<external>, index, index) -> !stream.resource<*>
    %9 = "arith.bitcast"(%arg1) : (f32) -> i32
    %10 = "stream.async.fill"(%8, %2, %3, %0, %1, %9) <{affinity = #hal.device.affinity<@__device_0>}> : (!stream.resource<*>, index, index, index, index, i32) -> !stream.resource<*>
    %11 = "stream.async.cast"(%10, %2, %2) <{affinity = #hal.device.affinity<@__device_0>}> : (!stream.resource<*>, index, index) -> !stream.resource<external>
    %12 = "stream.tensor.export"(%11, %2) <{affinity = #hal.device.affinity<@__device_0>, source_encoding = tensor<2x4xf32>}> : (!stream.resource<external>, index) -> !hal.buffer_view
    "util.return"(%12) : (!hal.buffer_view) -> ()
  }) {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @insert_element(%input0: tensor<2x4xf32>, %input1: f32) -> (%output0: tensor<2x4xf32>)"}} : () -> ()
}) {stream.affinity.default = #hal.device.affinity<@__device_0>} : () -> ()



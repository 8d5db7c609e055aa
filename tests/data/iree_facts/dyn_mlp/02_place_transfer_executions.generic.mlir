// dyn_mlp (tests/data/iree_facts/README.md): IREE 3.13 Stream IR, stage 02_place_transfer_executions, made by bench/iree_dumps.py from input.mlir
#executable_target_embedded_elf_x86_64 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", cpu_features = "", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 16 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#device_target_local = #hal.device.target<"local", [#executable_target_embedded_elf_x86_64]> : !hal.device
"builtin.module"() ({
  "util.global"() <{initial_value = #device_target_local, sym_name = "__device_0", sym_visibility = "private", type = !hal.device}> : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_0", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_0_elementwise_D_f32, sym_name = "dyn_mlp_dispatch_0_elementwise_D_f32"}> ({
    ^bb0(%arg40: index):
      %73:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg40) : (index) -> (index, index, index)
      "stream.return"(%73#0, %73#1, %73#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (index, !stream.binding, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_0_elementwise_D_f32"}> ({
      ^bb0(%arg35: index, %arg36: !stream.binding, %arg37: !stream.binding):
        %64 = "arith.constant"() <{value = 0 : index}> : () -> index
        %65 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %66 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg35) <{ordinal = 0 : index}> : (index) -> index
        %67 = "stream.binding.subspan"(%arg36, %64, %66) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>
        %68 = "stream.binding.subspan"(%arg37, %64, %66) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>
        %69 = "iree_tensor_ext.dispatch.tensor.load"(%67, %66, %66) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, index, index) -> tensor<?xf32>
        %70 = "tensor.empty"(%66) : (index) -> tensor<?xf32>
        %71 = "linalg.generic"(%69, %70) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg38: f32, %arg39: f32):
          %72 = "arith.maximumf"(%arg38, %65) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%72) : (f32) -> ()
        }) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%71, %68, %66, %66) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (tensor<?xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_1", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_1_elementwise_D_f32, sym_name = "dyn_mlp_dispatch_1_elementwise_D_f32"}> ({
    ^bb0(%arg33: index, %arg34: index):
      %63:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg33, %arg34) : (index, index) -> (index, index, index)
      "stream.return"(%63#0, %63#1, %63#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (index, !stream.binding, index, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_1_elementwise_D_f32"}> ({
      ^bb0(%arg27: index, %arg28: !stream.binding, %arg29: index, %arg30: !stream.binding):
        %54 = "arith.constant"() <{value = 0 : index}> : () -> index
        %55 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg27) <{ordinal = 0 : index}> : (index) -> index
        %56 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg29) <{ordinal = 1 : index}> : (index) -> index
        %57 = "stream.binding.subspan"(%arg28, %54, %56) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>
        %58 = "stream.binding.subspan"(%arg30, %54, %55) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>
        %59 = "iree_tensor_ext.dispatch.tensor.load"(%57, %56, %56) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, index, index) -> tensor<?xf32>
        %60 = "tensor.empty"(%55) : (index) -> tensor<?xf32>
        %61 = "linalg.generic"(%59, %60) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg31: f32, %arg32: f32):
          %62 = "math.exp"(%arg31) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
          "linalg.yield"(%62) : (f32) -> ()
        }) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%61, %58, %55, %55) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (tensor<?xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_2", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_2_matmul_Dx3x3_f32, sym_name = "dyn_mlp_dispatch_2_matmul_Dx3x3_f32"}> ({
    ^bb0(%arg26: index):
      %53:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg26) : (index) -> (index, index, index)
      "stream.return"(%53#0, %53#1, %53#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (!stream.binding, !stream.binding, index, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_2_matmul_Dx3x3_f32"}> ({
      ^bb0(%arg17: !stream.binding, %arg18: !stream.binding, %arg19: index, %arg20: !stream.binding):
        %40 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %41 = "arith.constant"() <{value = 0 : index}> : () -> index
        %42 = "stream.binding.subspan"(%arg18, %41) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>
        %43 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg19) <{ordinal = 0 : index}> : (index) -> index
        %44 = "stream.binding.subspan"(%arg17, %41, %43) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %45 = "stream.binding.subspan"(%arg20, %41, %43) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>
        %46 = "iree_tensor_ext.dispatch.tensor.load"(%44, %43, %43) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %47 = "iree_tensor_ext.dispatch.tensor.load"(%42) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 3, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>) -> tensor<3x3xf32>
        %48 = "tensor.empty"(%43) : (index) -> tensor<?x3xf32>
        %49 = "linalg.fill"(%40, %48) <{operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg24: f32, %arg25: f32):
          "linalg.yield"(%arg24) : (f32) -> ()
        }) : (f32, tensor<?x3xf32>) -> tensor<?x3xf32>
        %50 = "linalg.matmul"(%46, %47, %49) <{indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg21: f32, %arg22: f32, %arg23: f32):
          %51 = "arith.mulf"(%arg21, %arg22) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %52 = "arith.addf"(%arg23, %51) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%52) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<3x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%50, %45, %43, %43) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (tensor<?x3xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_3", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_3_matmul_Dx3x3_f32, sym_name = "dyn_mlp_dispatch_3_matmul_Dx3x3_f32"}> ({
    ^bb0(%arg16: index):
      %39:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg16) : (index) -> (index, index, index)
      "stream.return"(%39#0, %39#1, %39#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (!stream.binding, !stream.binding, !stream.binding, index, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_3_matmul_Dx3x3_f32"}> ({
      ^bb0(%arg3: !stream.binding, %arg4: !stream.binding, %arg5: !stream.binding, %arg6: index, %arg7: !stream.binding):
        %22 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %23 = "arith.constant"() <{value = 0 : index}> : () -> index
        %24 = "stream.binding.subspan"(%arg4, %23) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>
        %25 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg6) <{ordinal = 0 : index}> : (index) -> index
        %26 = "stream.binding.subspan"(%arg3, %23, %25) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %27 = "stream.binding.subspan"(%arg5, %23, %25) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %28 = "stream.binding.subspan"(%arg7, %23, %25) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>
        %29 = "iree_tensor_ext.dispatch.tensor.load"(%26, %25, %25) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %30 = "iree_tensor_ext.dispatch.tensor.load"(%24) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 3, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>) -> tensor<3x3xf32>
        %31 = "iree_tensor_ext.dispatch.tensor.load"(%27, %25, %25) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %32 = "tensor.empty"(%25) : (index) -> tensor<?x3xf32>
        %33 = "linalg.fill"(%22, %32) <{operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg14: f32, %arg15: f32):
          "linalg.yield"(%arg14) : (f32) -> ()
        }) : (f32, tensor<?x3xf32>) -> tensor<?x3xf32>
        %34 = "linalg.matmul"(%29, %30, %33) <{indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg11: f32, %arg12: f32, %arg13: f32):
          %37 = "arith.mulf"(%arg11, %arg12) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %38 = "arith.addf"(%arg13, %37) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%38) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<3x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        %35 = "linalg.generic"(%34, %31, %32) <{indexing_maps = [#map4, #map4, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg8: f32, %arg9: f32, %arg10: f32):
          %36 = "arith.addf"(%arg8, %arg9) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%36) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%35, %28, %25, %25) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (tensor<?x3xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "util.func"() <{function_type = (!hal.buffer_view, !hal.buffer_view, !hal.buffer_view) -> !hal.buffer_view, sym_name = "dyn_mlp"}> ({
  ^bb0(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view):
    %0 = "arith.constant"() <{value = 36 : index}> : () -> index
    %1 = "arith.constant"() <{value = 12 : index}> : () -> index
    %2 = "arith.constant"() <{value = 3 : index}> : () -> index
    %3 = "arith.constant"() <{value = 0 : index}> : () -> index
    %4 = "hal.buffer_view.dim"(%arg0) <{index = 0 : index}> : (!hal.buffer_view) -> index
    %5 = "hal.element_type"() <{type = f32}> : () -> i32
    %6 = "hal.encoding_type"() : () -> i32
    "hal.buffer_view.assert"(%arg0, %5, %6, %4, %2) <{message = "input0"}> : (!hal.buffer_view, i32, i32, index, index) -> ()
    %7 = "arith.muli"(%4, %1) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
    %8 = "stream.tensor.import"(%arg0, %4, %7) <{affinity = #hal.device.affinity<@__device_0>, result_encoding = tensor<?x3xf32>}> : (!hal.buffer_view, index, index) -> !stream.resource<external>
    %9 = "hal.buffer_view.dim"(%arg1) <{index = 0 : index}> : (!hal.buffer_view) -> index
    "hal.buffer_view.assert"(%arg1, %5, %6, %9, %2) <{message = "input1"}> : (!hal.buffer_view, i32, i32, index, index) -> ()
    %10 = "arith.muli"(%9, %1) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
    %11 = "stream.tensor.import"(%arg1, %9, %10) <{affinity = #hal.device.affinity<@__device_0>, result_encoding = tensor<?x3xf32>}> : (!hal.buffer_view, index, index) -> !stream.resource<external>
    "hal.buffer_view.assert"(%arg2, %5, %6, %2, %2) <{message = "input2"}> : (!hal.buffer_view, i32, i32, index, index) -> ()
    %12 = "stream.tensor.import"(%arg2, %0) <{affinity = #hal.device.affinity<@__device_0>, result_encoding = tensor<3x3xf32>}> : (!hal.buffer_view, index) -> !stream.resource<external>
    %13 = "arith.cmpi"(%4, %9) <{predicate = 0 : i64}> : (index, index) -> i1
    "cf.assert"(%13) <{msg = "batch sizes match"}> : (i1) -> ()
    %14 = "arith.cmpi"(%4, %3) <{predicate = 4 : i64}> : (index, index) -> i1
    "cf.assert"(%14) <{msg = "batch size > 0"}> : (i1) -> ()
    %15 = "arith.muli"(%4, %2) <{overflowFlags = #arith.overflow<nsw>}> : (index, index) -> index
    %16 = "stream.async.dispatch"(%15, %15, %8, %7, %3, %7, %7, %7) <{affinity = #hal.device.affinity<@__device_0>, entry_points = [@dyn_mlp_dispatch_0::@dyn_mlp_dispatch_0_elementwise_D_f32], operandSegmentSizes = array<i32: 1, 2, 1, 1, 1, 1, 1>, tied_operands = [-1 : index]}> : (index, index, !stream.resource<external>, index, index, index, index, index) -> !stream.resource<transient>
    %17 = "arith.muli"(%9, %2) <{overflowFlags = #arith.overflow<nsw>}> : (index, index) -> index
    %18 = "stream.async.dispatch"(%15, %17, %15, %11, %17, %10, %3, %10, %10, %7) <{affinity = #hal.device.affinity<@__device_0>, entry_points = [@dyn_mlp_dispatch_1::@dyn_mlp_dispatch_1_elementwise_D_f32], operandSegmentSizes = array<i32: 2, 3, 1, 1, 1, 1, 1>, tied_operands = [-1 : index]}> : (index, index, index, !stream.resource<external>, index, index, index, index, index, index) -> !stream.resource<transient>
    %19 = "stream.async.dispatch"(%4, %18, %12, %4, %7, %0, %3, %3, %7, %0, %7, %0, %7) <{affinity = #hal.device.affinity<@__device_0>, entry_points = [@dyn_mlp_dispatch_2::@dyn_mlp_dispatch_2_matmul_Dx3x3_f32], operandSegmentSizes = array<i32: 1, 3, 2, 2, 2, 2, 1>, tied_operands = [-1 : index]}> : (index, !stream.resource<transient>, !stream.resource<external>, index, index, index, index, index, index, index, index, index, index) -> !stream.resource<transient>
    %20 = "stream.async.dispatch"(%4, %16, %12, %19, %4, %7, %0, %7, %3, %3, %3, %7, %0, %7, %7, %0, %7, %7) <{affinity = #hal.device.affinity<@__device_0>, entry_points = [@dyn_mlp_dispatch_3::@dyn_mlp_dispatch_3_matmul_Dx3x3_f32], operandSegmentSizes = array<i32: 1, 4, 3, 3, 3, 3, 1>, tied_operands = [-1 : index]}> : (index, !stream.resource<transient>, !stream.resource<external>, !stream.resource<transient>, index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> !stream.resource<external>
    %21 = "stream.tensor.export"(%20, %4, %7) <{affinity = #hal.device.affinity<@__device_0>, source_encoding = tensor<?x3xf32>}> : (!stream.resource<external>, index, index) -> !hal.buffer_view
    "util.return"(%21) : (!hal.buffer_view) -> ()
  }) {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @dyn_mlp(%input0: tensor<?x3xf32>, %input1: tensor<?x3xf32>, %input2: tensor<3x3xf32>) -> (%output0: tensor<?x3xf32>)"}} : () -> ()
}) {stream.affinity.default = #hal.device.affinity<@__device_0>} : () -> ()

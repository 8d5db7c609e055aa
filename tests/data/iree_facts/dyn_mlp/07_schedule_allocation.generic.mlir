// dyn_mlp (tests/data/iree_facts/README.md): IREE 3.13 Stream IR, stage 07_schedule_allocation, made by bench/iree_dumps.py from input.mlir
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
    ^bb0(%arg45: index):
      %78:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg45) : (index) -> (index, index, index)
      "stream.return"(%78#0, %78#1, %78#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (index, !stream.binding, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_0_elementwise_D_f32"}> ({
      ^bb0(%arg40: index, %arg41: !stream.binding, %arg42: !stream.binding):
        %69 = "arith.constant"() <{value = 0 : index}> : () -> index
        %70 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %71 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg40) <{ordinal = 0 : index}> : (index) -> index
        %72 = "stream.binding.subspan"(%arg41, %69, %71) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>
        %73 = "stream.binding.subspan"(%arg42, %69, %71) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>
        %74 = "iree_tensor_ext.dispatch.tensor.load"(%72, %71, %71) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, index, index) -> tensor<?xf32>
        %75 = "tensor.empty"(%71) : (index) -> tensor<?xf32>
        %76 = "linalg.generic"(%74, %75) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg43: f32, %arg44: f32):
          %77 = "arith.maximumf"(%arg43, %70) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%77) : (f32) -> ()
        }) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%76, %73, %71, %71) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (tensor<?xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_1", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_1_elementwise_D_f32, sym_name = "dyn_mlp_dispatch_1_elementwise_D_f32"}> ({
    ^bb0(%arg38: index, %arg39: index):
      %68:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg38, %arg39) : (index, index) -> (index, index, index)
      "stream.return"(%68#0, %68#1, %68#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (index, !stream.binding, index, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_1_elementwise_D_f32"}> ({
      ^bb0(%arg32: index, %arg33: !stream.binding, %arg34: index, %arg35: !stream.binding):
        %59 = "arith.constant"() <{value = 0 : index}> : () -> index
        %60 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg32) <{ordinal = 0 : index}> : (index) -> index
        %61 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg34) <{ordinal = 1 : index}> : (index) -> index
        %62 = "stream.binding.subspan"(%arg33, %59, %61) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>
        %63 = "stream.binding.subspan"(%arg35, %59, %60) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>
        %64 = "iree_tensor_ext.dispatch.tensor.load"(%62, %61, %61) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, index, index) -> tensor<?xf32>
        %65 = "tensor.empty"(%60) : (index) -> tensor<?xf32>
        %66 = "linalg.generic"(%64, %65) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg36: f32, %arg37: f32):
          %67 = "math.exp"(%arg36) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
          "linalg.yield"(%67) : (f32) -> ()
        }) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%66, %63, %60, %60) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (tensor<?xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_2", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_2_matmul_Dx3x3_f32, sym_name = "dyn_mlp_dispatch_2_matmul_Dx3x3_f32"}> ({
    ^bb0(%arg31: index):
      %58:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg31) : (index) -> (index, index, index)
      "stream.return"(%58#0, %58#1, %58#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (!stream.binding, !stream.binding, index, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_2_matmul_Dx3x3_f32"}> ({
      ^bb0(%arg22: !stream.binding, %arg23: !stream.binding, %arg24: index, %arg25: !stream.binding):
        %45 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %46 = "arith.constant"() <{value = 0 : index}> : () -> index
        %47 = "stream.binding.subspan"(%arg23, %46) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>
        %48 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg24) <{ordinal = 0 : index}> : (index) -> index
        %49 = "stream.binding.subspan"(%arg22, %46, %48) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %50 = "stream.binding.subspan"(%arg25, %46, %48) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>
        %51 = "iree_tensor_ext.dispatch.tensor.load"(%49, %48, %48) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %52 = "iree_tensor_ext.dispatch.tensor.load"(%47) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 3, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>) -> tensor<3x3xf32>
        %53 = "tensor.empty"(%48) : (index) -> tensor<?x3xf32>
        %54 = "linalg.fill"(%45, %53) <{operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg29: f32, %arg30: f32):
          "linalg.yield"(%arg29) : (f32) -> ()
        }) : (f32, tensor<?x3xf32>) -> tensor<?x3xf32>
        %55 = "linalg.matmul"(%51, %52, %54) <{indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg26: f32, %arg27: f32, %arg28: f32):
          %56 = "arith.mulf"(%arg26, %arg27) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %57 = "arith.addf"(%arg28, %56) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%57) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<3x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%55, %50, %48, %48) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (tensor<?x3xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_3", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_3_matmul_Dx3x3_f32, sym_name = "dyn_mlp_dispatch_3_matmul_Dx3x3_f32"}> ({
    ^bb0(%arg21: index):
      %44:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg21) : (index) -> (index, index, index)
      "stream.return"(%44#0, %44#1, %44#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (!stream.binding, !stream.binding, !stream.binding, index, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_3_matmul_Dx3x3_f32"}> ({
      ^bb0(%arg8: !stream.binding, %arg9: !stream.binding, %arg10: !stream.binding, %arg11: index, %arg12: !stream.binding):
        %27 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %28 = "arith.constant"() <{value = 0 : index}> : () -> index
        %29 = "stream.binding.subspan"(%arg9, %28) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>
        %30 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg11) <{ordinal = 0 : index}> : (index) -> index
        %31 = "stream.binding.subspan"(%arg8, %28, %30) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %32 = "stream.binding.subspan"(%arg10, %28, %30) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %33 = "stream.binding.subspan"(%arg12, %28, %30) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>
        %34 = "iree_tensor_ext.dispatch.tensor.load"(%31, %30, %30) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %35 = "iree_tensor_ext.dispatch.tensor.load"(%29) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 3, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>) -> tensor<3x3xf32>
        %36 = "iree_tensor_ext.dispatch.tensor.load"(%32, %30, %30) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %37 = "tensor.empty"(%30) : (index) -> tensor<?x3xf32>
        %38 = "linalg.fill"(%27, %37) <{operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg19: f32, %arg20: f32):
          "linalg.yield"(%arg19) : (f32) -> ()
        }) : (f32, tensor<?x3xf32>) -> tensor<?x3xf32>
        %39 = "linalg.matmul"(%34, %35, %38) <{indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg16: f32, %arg17: f32, %arg18: f32):
          %42 = "arith.mulf"(%arg16, %arg17) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %43 = "arith.addf"(%arg18, %42) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%43) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<3x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        %40 = "linalg.generic"(%39, %36, %37) <{indexing_maps = [#map4, #map4, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg13: f32, %arg14: f32, %arg15: f32):
          %41 = "arith.addf"(%arg13, %arg14) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%41) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%40, %33, %30, %30) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (tensor<?x3xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>, index, index) -> ()
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
    %16 = "arith.muli"(%9, %2) <{overflowFlags = #arith.overflow<nsw>}> : (index, index) -> index
    %17 = "arith.constant"() <{value = 0 : index}> : () -> index
    %18:2 = "stream.resource.alloca"(%7) <{affinity = #hal.device.affinity<@__device_0>}> : (index) -> (!stream.resource<external>, !stream.timepoint)
    %19:4 = "stream.resource.pack"(%7, %7, %7) <{affinity = #hal.device.affinity<@__device_0>, lifetime_intervals = [0 : index, 2 : index, 0 : index, 1 : index, 1 : index, 2 : index], operandSegmentSizes = array<i32: 0, 3>}> : (index, index, index) -> (index, index, index, index)
    %20:2 = "stream.resource.alloca"(%19#0) <{affinity = #hal.device.affinity<@__device_0>}> : (index) -> (!stream.resource<transient>, !stream.timepoint)
    %21 = "stream.timepoint.join"(%18#1, %20#1) : (!stream.timepoint, !stream.timepoint) -> !stream.timepoint
    %22 = "stream.cmd.execute"(%8, %11, %12, %18#0, %20#0, %7, %10, %0, %7, %19#0, %21) <{affinity = #hal.device.affinity<@__device_0>, operandSegmentSizes = array<i32: 5, 5, 1>}> ({
    ^bb0(%arg3: !stream.resource<external>, %arg4: !stream.resource<external>, %arg5: !stream.resource<external>, %arg6: !stream.resource<external>, %arg7: !stream.resource<transient>):
      "stream.cmd.concurrent"() ({
        "stream.cmd.dispatch"(%15, %15, %arg3, %arg7, %7, %19#0, %3, %19#1, %7, %7) <{entry_points = [@dyn_mlp_dispatch_0::@dyn_mlp_dispatch_0_elementwise_D_f32], operandSegmentSizes = array<i32: 1, 1, 2, 2, 2, 2>, resource_accesses = [1 : i32, 2 : i32]}> : (index, index, !stream.resource<external>, !stream.resource<transient>, index, index, index, index, index, index) -> ()
        "stream.cmd.dispatch"(%15, %16, %15, %16, %arg4, %arg7, %10, %19#0, %3, %19#2, %10, %7) <{entry_points = [@dyn_mlp_dispatch_1::@dyn_mlp_dispatch_1_elementwise_D_f32], operandSegmentSizes = array<i32: 2, 2, 2, 2, 2, 2>, resource_accesses = [1 : i32, 2 : i32]}> : (index, index, index, index, !stream.resource<external>, !stream.resource<transient>, index, index, index, index, index, index) -> ()
        "stream.yield"() : () -> ()
      }) : () -> ()
      "stream.cmd.dispatch"(%4, %4, %arg7, %arg5, %arg7, %19#0, %0, %19#0, %19#2, %3, %19#3, %7, %0, %7) <{entry_points = [@dyn_mlp_dispatch_2::@dyn_mlp_dispatch_2_matmul_Dx3x3_f32], operandSegmentSizes = array<i32: 1, 1, 3, 3, 3, 3>, resource_accesses = [1 : i32, 1 : i32, 2 : i32]}> : (index, index, !stream.resource<transient>, !stream.resource<external>, !stream.resource<transient>, index, index, index, index, index, index, index, index, index) -> ()
      "stream.cmd.dispatch"(%4, %4, %arg7, %arg5, %arg7, %arg6, %19#0, %0, %19#0, %7, %19#1, %3, %19#3, %17, %7, %0, %7, %7) <{entry_points = [@dyn_mlp_dispatch_3::@dyn_mlp_dispatch_3_matmul_Dx3x3_f32], operandSegmentSizes = array<i32: 1, 1, 4, 4, 4, 4>, resource_accesses = [1 : i32, 1 : i32, 1 : i32, 2 : i32]}> : (index, index, !stream.resource<transient>, !stream.resource<external>, !stream.resource<transient>, !stream.resource<external>, index, index, index, index, index, index, index, index, index, index, index, index) -> ()
      "stream.yield"() : () -> ()
    }) : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>, !stream.resource<external>, !stream.resource<transient>, index, index, index, index, index, !stream.timepoint) -> !stream.timepoint
    %23 = "stream.resource.dealloca"(%20#0, %19#0, %22) <{affinity = #hal.device.affinity<@__device_0>}> : (!stream.resource<transient>, index, !stream.timepoint) -> !stream.timepoint
    %24 = "stream.timepoint.join"(%23, %22) : (!stream.timepoint, !stream.timepoint) -> !stream.timepoint
    %25 = "stream.timepoint.await"(%18#0, %7, %24) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!stream.resource<external>, index, !stream.timepoint) -> !stream.resource<external>
    %26 = "stream.tensor.export"(%25, %4, %7) <{affinity = #hal.device.affinity<@__device_0>, source_encoding = tensor<?x3xf32>}> : (!stream.resource<external>, index, index) -> !hal.buffer_view
    "util.return"(%26) : (!hal.buffer_view) -> ()
  }) {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @dyn_mlp(%input0: tensor<?x3xf32>, %input1: tensor<?x3xf32>, %input2: tensor<3x3xf32>) -> (%output0: tensor<?x3xf32>)"}} : () -> ()
}) {stream.affinity.default = #hal.device.affinity<@__device_0>} : () -> ()

// dyn_mlp (tests/data/iree_facts/README.md): IREE 3.13 Stream IR, stage 05_propagate_timepoints, made by bench/iree_dumps.py from input.mlir
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
      %80:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg45) : (index) -> (index, index, index)
      "stream.return"(%80#0, %80#1, %80#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (index, !stream.binding, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_0_elementwise_D_f32"}> ({
      ^bb0(%arg40: index, %arg41: !stream.binding, %arg42: !stream.binding):
        %71 = "arith.constant"() <{value = 0 : index}> : () -> index
        %72 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %73 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg40) <{ordinal = 0 : index}> : (index) -> index
        %74 = "stream.binding.subspan"(%arg41, %71, %73) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>
        %75 = "stream.binding.subspan"(%arg42, %71, %73) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>
        %76 = "iree_tensor_ext.dispatch.tensor.load"(%74, %73, %73) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, index, index) -> tensor<?xf32>
        %77 = "tensor.empty"(%73) : (index) -> tensor<?xf32>
        %78 = "linalg.generic"(%76, %77) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg43: f32, %arg44: f32):
          %79 = "arith.maximumf"(%arg43, %72) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%79) : (f32) -> ()
        }) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%78, %75, %73, %73) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (tensor<?xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_1", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_1_elementwise_D_f32, sym_name = "dyn_mlp_dispatch_1_elementwise_D_f32"}> ({
    ^bb0(%arg38: index, %arg39: index):
      %70:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg38, %arg39) : (index, index) -> (index, index, index)
      "stream.return"(%70#0, %70#1, %70#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (index, !stream.binding, index, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_1_elementwise_D_f32"}> ({
      ^bb0(%arg32: index, %arg33: !stream.binding, %arg34: index, %arg35: !stream.binding):
        %61 = "arith.constant"() <{value = 0 : index}> : () -> index
        %62 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg32) <{ordinal = 0 : index}> : (index) -> index
        %63 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg34) <{ordinal = 1 : index}> : (index) -> index
        %64 = "stream.binding.subspan"(%arg33, %61, %63) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>
        %65 = "stream.binding.subspan"(%arg35, %61, %62) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>
        %66 = "iree_tensor_ext.dispatch.tensor.load"(%64, %63, %63) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, index, index) -> tensor<?xf32>
        %67 = "tensor.empty"(%62) : (index) -> tensor<?xf32>
        %68 = "linalg.generic"(%66, %67) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg36: f32, %arg37: f32):
          %69 = "math.exp"(%arg36) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
          "linalg.yield"(%69) : (f32) -> ()
        }) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%68, %65, %62, %62) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (tensor<?xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_2", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_2_matmul_Dx3x3_f32, sym_name = "dyn_mlp_dispatch_2_matmul_Dx3x3_f32"}> ({
    ^bb0(%arg31: index):
      %60:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg31) : (index) -> (index, index, index)
      "stream.return"(%60#0, %60#1, %60#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (!stream.binding, !stream.binding, index, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_2_matmul_Dx3x3_f32"}> ({
      ^bb0(%arg22: !stream.binding, %arg23: !stream.binding, %arg24: index, %arg25: !stream.binding):
        %47 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %48 = "arith.constant"() <{value = 0 : index}> : () -> index
        %49 = "stream.binding.subspan"(%arg23, %48) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>
        %50 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg24) <{ordinal = 0 : index}> : (index) -> index
        %51 = "stream.binding.subspan"(%arg22, %48, %50) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %52 = "stream.binding.subspan"(%arg25, %48, %50) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>
        %53 = "iree_tensor_ext.dispatch.tensor.load"(%51, %50, %50) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %54 = "iree_tensor_ext.dispatch.tensor.load"(%49) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 3, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>) -> tensor<3x3xf32>
        %55 = "tensor.empty"(%50) : (index) -> tensor<?x3xf32>
        %56 = "linalg.fill"(%47, %55) <{operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg29: f32, %arg30: f32):
          "linalg.yield"(%arg29) : (f32) -> ()
        }) : (f32, tensor<?x3xf32>) -> tensor<?x3xf32>
        %57 = "linalg.matmul"(%53, %54, %56) <{indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg26: f32, %arg27: f32, %arg28: f32):
          %58 = "arith.mulf"(%arg26, %arg27) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %59 = "arith.addf"(%arg28, %58) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%59) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<3x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%57, %52, %50, %50) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (tensor<?x3xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_3", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_3_matmul_Dx3x3_f32, sym_name = "dyn_mlp_dispatch_3_matmul_Dx3x3_f32"}> ({
    ^bb0(%arg21: index):
      %46:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg21) : (index) -> (index, index, index)
      "stream.return"(%46#0, %46#1, %46#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (!stream.binding, !stream.binding, !stream.binding, index, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_3_matmul_Dx3x3_f32"}> ({
      ^bb0(%arg8: !stream.binding, %arg9: !stream.binding, %arg10: !stream.binding, %arg11: index, %arg12: !stream.binding):
        %29 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %30 = "arith.constant"() <{value = 0 : index}> : () -> index
        %31 = "stream.binding.subspan"(%arg9, %30) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>
        %32 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg11) <{ordinal = 0 : index}> : (index) -> index
        %33 = "stream.binding.subspan"(%arg8, %30, %32) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %34 = "stream.binding.subspan"(%arg10, %30, %32) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %35 = "stream.binding.subspan"(%arg12, %30, %32) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>
        %36 = "iree_tensor_ext.dispatch.tensor.load"(%33, %32, %32) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %37 = "iree_tensor_ext.dispatch.tensor.load"(%31) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 3, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>) -> tensor<3x3xf32>
        %38 = "iree_tensor_ext.dispatch.tensor.load"(%34, %32, %32) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %39 = "tensor.empty"(%32) : (index) -> tensor<?x3xf32>
        %40 = "linalg.fill"(%29, %39) <{operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg19: f32, %arg20: f32):
          "linalg.yield"(%arg19) : (f32) -> ()
        }) : (f32, tensor<?x3xf32>) -> tensor<?x3xf32>
        %41 = "linalg.matmul"(%36, %37, %40) <{indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg16: f32, %arg17: f32, %arg18: f32):
          %44 = "arith.mulf"(%arg16, %arg17) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %45 = "arith.addf"(%arg18, %44) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%45) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<3x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        %42 = "linalg.generic"(%41, %38, %39) <{indexing_maps = [#map4, #map4, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg13: f32, %arg14: f32, %arg15: f32):
          %43 = "arith.addf"(%arg13, %arg14) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%43) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%42, %35, %32, %32) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (tensor<?x3xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>, index, index) -> ()
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
    %17 = "stream.timepoint.immediate"() : () -> !stream.timepoint
    %18 = "stream.timepoint.immediate"() : () -> !stream.timepoint
    %19 = "stream.timepoint.immediate"() : () -> !stream.timepoint
    %20 = "stream.timepoint.join"(%17, %18, %19) : (!stream.timepoint, !stream.timepoint, !stream.timepoint) -> !stream.timepoint
    %21:2 = "stream.async.execute"(%8, %11, %12, %7, %10, %0, %7, %20) <{affinity = #hal.device.affinity<@__device_0>, operandSegmentSizes = array<i32: 3, 3, 1, 1>, tied_operands = []}> ({
    ^bb0(%arg3: !stream.resource<external>, %arg4: !stream.resource<external>, %arg5: !stream.resource<external>):
      %24:2 = "stream.async.concurrent"(%arg3, %arg4, %7, %10, %7, %7) <{operandSegmentSizes = array<i32: 2, 2, 2>, tied_operands = []}> ({
      ^bb0(%arg6: !stream.resource<external>, %arg7: !stream.resource<external>):
        %27 = "stream.async.dispatch"(%15, %15, %arg6, %7, %3, %7, %7, %7) <{entry_points = [@dyn_mlp_dispatch_0::@dyn_mlp_dispatch_0_elementwise_D_f32], operandSegmentSizes = array<i32: 1, 2, 1, 1, 1, 1, 1>, tied_operands = [-1 : index]}> : (index, index, !stream.resource<external>, index, index, index, index, index) -> !stream.resource<transient>
        %28 = "stream.async.dispatch"(%15, %16, %15, %arg7, %16, %10, %3, %10, %10, %7) <{entry_points = [@dyn_mlp_dispatch_1::@dyn_mlp_dispatch_1_elementwise_D_f32], operandSegmentSizes = array<i32: 2, 3, 1, 1, 1, 1, 1>, tied_operands = [-1 : index]}> : (index, index, index, !stream.resource<external>, index, index, index, index, index, index) -> !stream.resource<transient>
        "stream.yield"(%27, %28, %7, %7) : (!stream.resource<transient>, !stream.resource<transient>, index, index) -> ()
      }) : (!stream.resource<external>, !stream.resource<external>, index, index, index, index) -> (!stream.resource<transient>, !stream.resource<transient>)
      %25 = "stream.async.dispatch"(%4, %24#1, %arg5, %4, %7, %0, %3, %3, %7, %0, %7, %0, %7) <{entry_points = [@dyn_mlp_dispatch_2::@dyn_mlp_dispatch_2_matmul_Dx3x3_f32], operandSegmentSizes = array<i32: 1, 3, 2, 2, 2, 2, 1>, tied_operands = [-1 : index]}> : (index, !stream.resource<transient>, !stream.resource<external>, index, index, index, index, index, index, index, index, index, index) -> !stream.resource<transient>
      %26 = "stream.async.dispatch"(%4, %24#0, %arg5, %25, %4, %7, %0, %7, %3, %3, %3, %7, %0, %7, %7, %0, %7, %7) <{entry_points = [@dyn_mlp_dispatch_3::@dyn_mlp_dispatch_3_matmul_Dx3x3_f32], operandSegmentSizes = array<i32: 1, 4, 3, 3, 3, 3, 1>, tied_operands = [-1 : index]}> : (index, !stream.resource<transient>, !stream.resource<external>, !stream.resource<transient>, index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> !stream.resource<external>
      "stream.yield"(%26, %7) : (!stream.resource<external>, index) -> ()
    }) : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>, index, index, index, index, !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint)
    %22 = "stream.timepoint.await"(%21#0, %7, %21#1) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!stream.resource<external>, index, !stream.timepoint) -> !stream.resource<external>
    %23 = "stream.tensor.export"(%22, %4, %7) <{affinity = #hal.device.affinity<@__device_0>, source_encoding = tensor<?x3xf32>}> : (!stream.resource<external>, index, index) -> !hal.buffer_view
    "util.return"(%23) : (!hal.buffer_view) -> ()
  }) {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @dyn_mlp(%input0: tensor<?x3xf32>, %input1: tensor<?x3xf32>, %input2: tensor<3x3xf32>) -> (%output0: tensor<?x3xf32>)"}} : () -> ()
}) {stream.affinity.default = #hal.device.affinity<@__device_0>} : () -> ()

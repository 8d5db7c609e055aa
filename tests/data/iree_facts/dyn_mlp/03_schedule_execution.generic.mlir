// dyn_mlp (tests/data/iree_facts/README.md): IREE 3.13 Stream IR, stage 03_schedule_execution, made by bench/iree_dumps.py from input.mlir
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
    ^bb0(%arg43: index):
      %75:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg43) : (index) -> (index, index, index)
      "stream.return"(%75#0, %75#1, %75#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (index, !stream.binding, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_0_elementwise_D_f32"}> ({
      ^bb0(%arg38: index, %arg39: !stream.binding, %arg40: !stream.binding):
        %66 = "arith.constant"() <{value = 0 : index}> : () -> index
        %67 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %68 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg38) <{ordinal = 0 : index}> : (index) -> index
        %69 = "stream.binding.subspan"(%arg39, %66, %68) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>
        %70 = "stream.binding.subspan"(%arg40, %66, %68) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>
        %71 = "iree_tensor_ext.dispatch.tensor.load"(%69, %68, %68) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, index, index) -> tensor<?xf32>
        %72 = "tensor.empty"(%68) : (index) -> tensor<?xf32>
        %73 = "linalg.generic"(%71, %72) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg41: f32, %arg42: f32):
          %74 = "arith.maximumf"(%arg41, %67) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%74) : (f32) -> ()
        }) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%73, %70, %68, %68) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (tensor<?xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_1", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_1_elementwise_D_f32, sym_name = "dyn_mlp_dispatch_1_elementwise_D_f32"}> ({
    ^bb0(%arg36: index, %arg37: index):
      %65:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg36, %arg37) : (index, index) -> (index, index, index)
      "stream.return"(%65#0, %65#1, %65#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (index, !stream.binding, index, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_1_elementwise_D_f32"}> ({
      ^bb0(%arg30: index, %arg31: !stream.binding, %arg32: index, %arg33: !stream.binding):
        %56 = "arith.constant"() <{value = 0 : index}> : () -> index
        %57 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg30) <{ordinal = 0 : index}> : (index) -> index
        %58 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg32) <{ordinal = 1 : index}> : (index) -> index
        %59 = "stream.binding.subspan"(%arg31, %56, %58) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>
        %60 = "stream.binding.subspan"(%arg33, %56, %57) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>
        %61 = "iree_tensor_ext.dispatch.tensor.load"(%59, %58, %58) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, index, index) -> tensor<?xf32>
        %62 = "tensor.empty"(%57) : (index) -> tensor<?xf32>
        %63 = "linalg.generic"(%61, %62) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg34: f32, %arg35: f32):
          %64 = "math.exp"(%arg34) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
          "linalg.yield"(%64) : (f32) -> ()
        }) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%63, %60, %57, %57) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (tensor<?xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_2", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_2_matmul_Dx3x3_f32, sym_name = "dyn_mlp_dispatch_2_matmul_Dx3x3_f32"}> ({
    ^bb0(%arg29: index):
      %55:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg29) : (index) -> (index, index, index)
      "stream.return"(%55#0, %55#1, %55#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (!stream.binding, !stream.binding, index, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_2_matmul_Dx3x3_f32"}> ({
      ^bb0(%arg20: !stream.binding, %arg21: !stream.binding, %arg22: index, %arg23: !stream.binding):
        %42 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %43 = "arith.constant"() <{value = 0 : index}> : () -> index
        %44 = "stream.binding.subspan"(%arg21, %43) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>
        %45 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg22) <{ordinal = 0 : index}> : (index) -> index
        %46 = "stream.binding.subspan"(%arg20, %43, %45) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %47 = "stream.binding.subspan"(%arg23, %43, %45) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>
        %48 = "iree_tensor_ext.dispatch.tensor.load"(%46, %45, %45) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %49 = "iree_tensor_ext.dispatch.tensor.load"(%44) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 3, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>) -> tensor<3x3xf32>
        %50 = "tensor.empty"(%45) : (index) -> tensor<?x3xf32>
        %51 = "linalg.fill"(%42, %50) <{operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg27: f32, %arg28: f32):
          "linalg.yield"(%arg27) : (f32) -> ()
        }) : (f32, tensor<?x3xf32>) -> tensor<?x3xf32>
        %52 = "linalg.matmul"(%48, %49, %51) <{indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg24: f32, %arg25: f32, %arg26: f32):
          %53 = "arith.mulf"(%arg24, %arg25) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %54 = "arith.addf"(%arg26, %53) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%54) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<3x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%52, %47, %45, %45) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (tensor<?x3xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_3", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_3_matmul_Dx3x3_f32, sym_name = "dyn_mlp_dispatch_3_matmul_Dx3x3_f32"}> ({
    ^bb0(%arg19: index):
      %41:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg19) : (index) -> (index, index, index)
      "stream.return"(%41#0, %41#1, %41#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (!stream.binding, !stream.binding, !stream.binding, index, !stream.binding) -> (), sym_name = "dyn_mlp_dispatch_3_matmul_Dx3x3_f32"}> ({
      ^bb0(%arg6: !stream.binding, %arg7: !stream.binding, %arg8: !stream.binding, %arg9: index, %arg10: !stream.binding):
        %24 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %25 = "arith.constant"() <{value = 0 : index}> : () -> index
        %26 = "stream.binding.subspan"(%arg7, %25) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>
        %27 = "iree_tensor_ext.dispatch.workload.ordinal"(%arg9) <{ordinal = 0 : index}> : (index) -> index
        %28 = "stream.binding.subspan"(%arg6, %25, %27) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %29 = "stream.binding.subspan"(%arg8, %25, %27) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %30 = "stream.binding.subspan"(%arg10, %25, %27) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>
        %31 = "iree_tensor_ext.dispatch.tensor.load"(%28, %27, %27) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %32 = "iree_tensor_ext.dispatch.tensor.load"(%26) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 3, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>) -> tensor<3x3xf32>
        %33 = "iree_tensor_ext.dispatch.tensor.load"(%29, %27, %27) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %34 = "tensor.empty"(%27) : (index) -> tensor<?x3xf32>
        %35 = "linalg.fill"(%24, %34) <{operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg17: f32, %arg18: f32):
          "linalg.yield"(%arg17) : (f32) -> ()
        }) : (f32, tensor<?x3xf32>) -> tensor<?x3xf32>
        %36 = "linalg.matmul"(%31, %32, %35) <{indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg14: f32, %arg15: f32, %arg16: f32):
          %39 = "arith.mulf"(%arg14, %arg15) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %40 = "arith.addf"(%arg16, %39) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%40) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<3x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        %37 = "linalg.generic"(%36, %33, %34) <{indexing_maps = [#map4, #map4, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg11: f32, %arg12: f32, %arg13: f32):
          %38 = "arith.addf"(%arg11, %arg12) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%38) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%37, %30, %27, %27) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (tensor<?x3xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>, index, index) -> ()
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
    %17:2 = "stream.async.execute"(%8, %11, %12, %7, %10, %0, %7) <{affinity = #hal.device.affinity<@__device_0>, operandSegmentSizes = array<i32: 3, 3, 1, 0>, tied_operands = []}> ({
    ^bb0(%arg3: !stream.resource<external>, %arg4: !stream.resource<external>, %arg5: !stream.resource<external>):
      %20 = "stream.async.dispatch"(%15, %15, %arg3, %7, %3, %7, %7, %7) <{entry_points = [@dyn_mlp_dispatch_0::@dyn_mlp_dispatch_0_elementwise_D_f32], operandSegmentSizes = array<i32: 1, 2, 1, 1, 1, 1, 1>, tied_operands = [-1 : index]}> : (index, index, !stream.resource<external>, index, index, index, index, index) -> !stream.resource<transient>
      %21 = "stream.async.dispatch"(%15, %16, %15, %arg4, %16, %10, %3, %10, %10, %7) <{entry_points = [@dyn_mlp_dispatch_1::@dyn_mlp_dispatch_1_elementwise_D_f32], operandSegmentSizes = array<i32: 2, 3, 1, 1, 1, 1, 1>, tied_operands = [-1 : index]}> : (index, index, index, !stream.resource<external>, index, index, index, index, index, index) -> !stream.resource<transient>
      %22 = "stream.async.dispatch"(%4, %21, %arg5, %4, %7, %0, %3, %3, %7, %0, %7, %0, %7) <{entry_points = [@dyn_mlp_dispatch_2::@dyn_mlp_dispatch_2_matmul_Dx3x3_f32], operandSegmentSizes = array<i32: 1, 3, 2, 2, 2, 2, 1>, tied_operands = [-1 : index]}> : (index, !stream.resource<transient>, !stream.resource<external>, index, index, index, index, index, index, index, index, index, index) -> !stream.resource<transient>
      %23 = "stream.async.dispatch"(%4, %20, %arg5, %22, %4, %7, %0, %7, %3, %3, %3, %7, %0, %7, %7, %0, %7, %7) <{entry_points = [@dyn_mlp_dispatch_3::@dyn_mlp_dispatch_3_matmul_Dx3x3_f32], operandSegmentSizes = array<i32: 1, 4, 3, 3, 3, 3, 1>, tied_operands = [-1 : index]}> : (index, !stream.resource<transient>, !stream.resource<external>, !stream.resource<transient>, index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> !stream.resource<external>
      "stream.yield"(%23, %7) : (!stream.resource<external>, index) -> ()
    }) : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>, index, index, index, index) -> (!stream.resource<external>, !stream.timepoint)
    %18 = "stream.timepoint.await"(%17#0, %7, %17#1) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!stream.resource<external>, index, !stream.timepoint) -> !stream.resource<external>
    %19 = "stream.tensor.export"(%18, %4, %7) <{affinity = #hal.device.affinity<@__device_0>, source_encoding = tensor<?x3xf32>}> : (!stream.resource<external>, index, index) -> !hal.buffer_view
    "util.return"(%19) : (!hal.buffer_view) -> ()
  }) {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @dyn_mlp(%input0: tensor<?x3xf32>, %input1: tensor<?x3xf32>, %input2: tensor<3x3xf32>) -> (%output0: tensor<?x3xf32>)"}} : () -> ()
}) {stream.affinity.default = #hal.device.affinity<@__device_0>} : () -> ()


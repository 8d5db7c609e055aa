// dyn_mlp (tests/data/iree_facts/README.md): IREE 3.13 Stream IR, stage 99_final, made by bench/iree_dumps.py from input.mlir
"builtin.module"() ({
  "util.global"() <{initial_value = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", cpu_features = "", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 16 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>]> : !hal.device, sym_name = "__device_0", sym_visibility = "private", type = !hal.device}> : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_0", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_0_elementwise_D_f32, sym_name = "dyn_mlp_dispatch_0_elementwise_D_f32"}> ({
    ^bb0(%arg57: index):
      %153:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg57) : (index) -> (index, index, index)
      "stream.return"(%153#0, %153#1, %153#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{arg_attrs = [{stream.alignment = 64 : index}, {stream.alignment = 64 : index}, {}, {}], function_type = (!stream.binding, !stream.binding, i32, i32) -> (), sym_name = "dyn_mlp_dispatch_0_elementwise_D_f32"}> ({
      ^bb0(%arg51: !stream.binding, %arg52: !stream.binding, %arg53: i32, %arg54: i32):
        %137 = "arith.constant"() <{value = 0 : index}> : () -> index
        %138 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %139 = "arith.constant"() <{value = 32 : i64}> : () -> i64
        %140 = "arith.extui"(%arg53) : (i32) -> i64
        %141 = "arith.extui"(%arg54) : (i32) -> i64
        %142 = "arith.shli"(%141, %139) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
        %143 = "arith.ori"(%140, %142) : (i64, i64) -> i64
        %144 = "arith.index_castui"(%143) : (i64) -> index
        %145 = "util.assume.int"(%144) <{assumptions = [[#util.int.assumption<umin = 0, umax = 27021597764222973, udiv = 3>]]}> : (index) -> index
        %146 = "iree_tensor_ext.dispatch.workload.ordinal"(%145) <{ordinal = 0 : index}> : (index) -> index
        %147 = "stream.binding.subspan"(%arg51, %137, %146) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>
        %148 = "stream.binding.subspan"(%arg52, %137, %146) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>
        %149 = "iree_tensor_ext.dispatch.tensor.load"(%147, %146, %146) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, index, index) -> tensor<?xf32>
        %150 = "tensor.empty"(%146) : (index) -> tensor<?xf32>
        %151 = "linalg.generic"(%149, %150) <{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg55: f32, %arg56: f32):
          %152 = "arith.maximumf"(%arg55, %138) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%152) : (f32) -> ()
        }) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%151, %148, %146, %146) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (tensor<?xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_1", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_1_elementwise_D_f32, sym_name = "dyn_mlp_dispatch_1_elementwise_D_f32"}> ({
    ^bb0(%arg49: index, %arg50: index):
      %136:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg49, %arg50) : (index, index) -> (index, index, index)
      "stream.return"(%136#0, %136#1, %136#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{arg_attrs = [{stream.alignment = 64 : index}, {stream.alignment = 64 : index}, {}, {}, {}, {}, {}, {}], function_type = (!stream.binding, !stream.binding, i32, i32, i32, i32, i32, i32) -> (), sym_name = "dyn_mlp_dispatch_1_elementwise_D_f32"}> ({
      ^bb0(%arg39: !stream.binding, %arg40: !stream.binding, %arg41: i32, %arg42: i32, %arg43: i32, %arg44: i32, %arg45: i32, %arg46: i32):
        %110 = "arith.constant"() <{value = 0 : index}> : () -> index
        %111 = "arith.constant"() <{value = 32 : i64}> : () -> i64
        %112 = "arith.extui"(%arg41) : (i32) -> i64
        %113 = "arith.extui"(%arg42) : (i32) -> i64
        %114 = "arith.shli"(%113, %111) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
        %115 = "arith.ori"(%112, %114) : (i64, i64) -> i64
        %116 = "arith.index_castui"(%115) {stream.alignment = 64 : index} : (i64) -> index
        %117 = "arith.extui"(%arg43) : (i32) -> i64
        %118 = "arith.extui"(%arg44) : (i32) -> i64
        %119 = "arith.shli"(%118, %111) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
        %120 = "arith.ori"(%117, %119) : (i64, i64) -> i64
        %121 = "arith.index_castui"(%120) : (i64) -> index
        %122 = "arith.extui"(%arg45) : (i32) -> i64
        %123 = "arith.extui"(%arg46) : (i32) -> i64
        %124 = "arith.shli"(%123, %111) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
        %125 = "arith.ori"(%122, %124) : (i64, i64) -> i64
        %126 = "arith.index_castui"(%125) : (i64) -> index
        %127:3 = "util.assume.int"(%116, %121, %126) <{assumptions = [[#util.int.assumption<umin = 0, umax = 108086391056891904, udiv = 64>], [#util.int.assumption<umin = 0, umax = 27021597764222973, udiv = 3>], [#util.int.assumption<umin = 0, umax = 27021597764222973, udiv = 3>]]}> : (index, index, index) -> (index, index, index)
        %128 = "iree_tensor_ext.dispatch.workload.ordinal"(%127#1) <{ordinal = 0 : index}> : (index) -> index
        %129 = "iree_tensor_ext.dispatch.workload.ordinal"(%127#2) <{ordinal = 1 : index}> : (index) -> index
        %130 = "stream.binding.subspan"(%arg39, %110, %129) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>
        %131 = "stream.binding.subspan"(%arg40, %127#0, %128) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>
        %132 = "iree_tensor_ext.dispatch.tensor.load"(%130, %129, %129) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, index, index) -> tensor<?xf32>
        %133 = "tensor.empty"(%128) : (index) -> tensor<?xf32>
        %134 = "linalg.generic"(%132, %133) <{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg47: f32, %arg48: f32):
          %135 = "math.exp"(%arg47) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
          "linalg.yield"(%135) : (f32) -> ()
        }) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%134, %131, %128, %128) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: -9223372036854775808>, static_strides = array<i64: 1>}> : (tensor<?xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_2", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_2_matmul_Dx3x3_f32, sym_name = "dyn_mlp_dispatch_2_matmul_Dx3x3_f32"}> ({
    ^bb0(%arg38: index):
      %109:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg38) : (index) -> (index, index, index)
      "stream.return"(%109#0, %109#1, %109#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{arg_attrs = [{stream.alignment = 64 : index}, {stream.alignment = 64 : index}, {stream.alignment = 64 : index}, {}, {}, {}, {}, {}, {}], function_type = (!stream.binding, !stream.binding, !stream.binding, i32, i32, i32, i32, i32, i32) -> (), sym_name = "dyn_mlp_dispatch_2_matmul_Dx3x3_f32"}> ({
      ^bb0(%arg24: !stream.binding, %arg25: !stream.binding, %arg26: !stream.binding, %arg27: i32, %arg28: i32, %arg29: i32, %arg30: i32, %arg31: i32, %arg32: i32):
        %79 = "arith.constant"() <{value = 0 : index}> : () -> index
        %80 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %81 = "arith.constant"() <{value = 32 : i64}> : () -> i64
        %82 = "arith.extui"(%arg27) : (i32) -> i64
        %83 = "arith.extui"(%arg28) : (i32) -> i64
        %84 = "arith.shli"(%83, %81) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
        %85 = "arith.ori"(%82, %84) : (i64, i64) -> i64
        %86 = "arith.index_castui"(%85) {stream.alignment = 64 : index} : (i64) -> index
        %87 = "arith.extui"(%arg29) : (i32) -> i64
        %88 = "arith.extui"(%arg30) : (i32) -> i64
        %89 = "arith.shli"(%88, %81) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
        %90 = "arith.ori"(%87, %89) : (i64, i64) -> i64
        %91 = "arith.index_castui"(%90) : (i64) -> index
        %92 = "arith.extui"(%arg31) : (i32) -> i64
        %93 = "arith.extui"(%arg32) : (i32) -> i64
        %94 = "arith.shli"(%93, %81) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
        %95 = "arith.ori"(%92, %94) : (i64, i64) -> i64
        %96 = "arith.index_castui"(%95) : (i64) -> index
        %97:3 = "util.assume.int"(%86, %91, %96) <{assumptions = [[#util.int.assumption<umin = 0, umax = 108086391056891904, udiv = 64>], [#util.int.assumption<umin = 0, umax = 216172782113783808, udiv = 64>], [#util.int.assumption<umin = 0, umax = 9007199254740991>]]}> : (index, index, index) -> (index, index, index)
        %98 = "stream.binding.subspan"(%arg25, %79) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>
        %99 = "iree_tensor_ext.dispatch.workload.ordinal"(%97#2) <{ordinal = 0 : index}> : (index) -> index
        %100 = "stream.binding.subspan"(%arg24, %97#0, %99) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %101 = "stream.binding.subspan"(%arg26, %97#1, %99) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>
        %102 = "iree_tensor_ext.dispatch.tensor.load"(%100, %99, %99) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %103 = "iree_tensor_ext.dispatch.tensor.load"(%98) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 3, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>) -> tensor<3x3xf32>
        %104 = "tensor.empty"(%99) : (index) -> tensor<?x3xf32>
        %105 = "linalg.fill"(%80, %104) <{operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg36: f32, %arg37: f32):
          "linalg.yield"(%arg36) : (f32) -> ()
        }) : (f32, tensor<?x3xf32>) -> tensor<?x3xf32>
        %106 = "linalg.matmul"(%102, %103, %105) <{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg33: f32, %arg34: f32, %arg35: f32):
          %107 = "arith.mulf"(%arg33, %arg34) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %108 = "arith.addf"(%arg35, %107) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%108) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<3x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%106, %101, %99, %99) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (tensor<?x3xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "dyn_mlp_dispatch_3", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @dyn_mlp_dispatch_3_matmul_Dx3x3_f32, sym_name = "dyn_mlp_dispatch_3_matmul_Dx3x3_f32"}> ({
    ^bb0(%arg23: index):
      %78:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"(%arg23) : (index) -> (index, index, index)
      "stream.return"(%78#0, %78#1, %78#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{arg_attrs = [{stream.alignment = 64 : index}, {stream.alignment = 64 : index}, {stream.alignment = 64 : index}, {}, {}, {}, {}], function_type = (!stream.binding, !stream.binding, !stream.binding, i32, i32, i32, i32) -> (), sym_name = "dyn_mlp_dispatch_3_matmul_Dx3x3_f32"}> ({
      ^bb0(%arg8: !stream.binding, %arg9: !stream.binding, %arg10: !stream.binding, %arg11: i32, %arg12: i32, %arg13: i32, %arg14: i32):
        %49 = "arith.constant"() <{value = 0 : index}> : () -> index
        %50 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %51 = "arith.constant"() <{value = 32 : i64}> : () -> i64
        %52 = "arith.extui"(%arg11) : (i32) -> i64
        %53 = "arith.extui"(%arg12) : (i32) -> i64
        %54 = "arith.shli"(%53, %51) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
        %55 = "arith.ori"(%52, %54) : (i64, i64) -> i64
        %56 = "arith.index_castui"(%55) : (i64) -> index
        %57 = "arith.extui"(%arg13) : (i32) -> i64
        %58 = "arith.extui"(%arg14) : (i32) -> i64
        %59 = "arith.shli"(%58, %51) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
        %60 = "arith.ori"(%57, %59) : (i64, i64) -> i64
        %61 = "arith.index_castui"(%60) : (i64) -> index
        %62:2 = "util.assume.int"(%56, %61) <{assumptions = [[#util.int.assumption<umin = 0, umax = 216172782113783808, udiv = 64>], [#util.int.assumption<umin = 0, umax = 9007199254740991>]]}> : (index, index) -> (index, index)
        %63 = "stream.binding.subspan"(%arg9, %49) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>
        %64 = "iree_tensor_ext.dispatch.workload.ordinal"(%62#1) <{ordinal = 0 : index}> : (index) -> index
        %65 = "stream.binding.subspan"(%arg8, %49, %64) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %66 = "stream.binding.subspan"(%arg8, %62#0, %64) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>
        %67 = "stream.binding.subspan"(%arg10, %49, %64) : (!stream.binding, index, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>
        %68 = "iree_tensor_ext.dispatch.tensor.load"(%65, %64, %64) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %69 = "iree_tensor_ext.dispatch.tensor.load"(%63) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 3, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<3x3xf32>>) -> tensor<3x3xf32>
        %70 = "iree_tensor_ext.dispatch.tensor.load"(%66, %64, %64) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<?x3xf32>>, index, index) -> tensor<?x3xf32>
        %71 = "tensor.empty"(%64) : (index) -> tensor<?x3xf32>
        %72 = "linalg.fill"(%50, %71) <{operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg21: f32, %arg22: f32):
          "linalg.yield"(%arg21) : (f32) -> ()
        }) : (f32, tensor<?x3xf32>) -> tensor<?x3xf32>
        %73 = "linalg.matmul"(%68, %69, %72) <{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg18: f32, %arg19: f32, %arg20: f32):
          %76 = "arith.mulf"(%arg18, %arg19) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %77 = "arith.addf"(%arg20, %76) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%77) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<3x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        %74 = "linalg.generic"(%73, %70, %71) <{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg15: f32, %arg16: f32, %arg17: f32):
          %75 = "arith.addf"(%arg15, %arg16) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%75) : (f32) -> ()
        }) : (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%74, %67, %64, %64) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: -9223372036854775808, 3>, static_strides = array<i64: 1, 1>}> : (tensor<?x3xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?x3xf32>>, index, index) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "util.func"() <{function_type = (!hal.buffer_view, !hal.buffer_view, !hal.buffer_view) -> !hal.buffer_view, sym_name = "dyn_mlp"}> ({
  ^bb0(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view):
    %0 = "arith.constant"() <{value = 32 : i64}> : () -> i64
    %1 = "arith.constant"() <{value = 64 : index}> : () -> index
    %2 = "arith.constant"() <{value = 36 : index}> : () -> index
    %3 = "arith.constant"() <{value = 12 : index}> : () -> index
    %4 = "arith.constant"() <{value = 3 : index}> : () -> index
    %5 = "arith.constant"() <{value = 0 : index}> : () -> index
    %6 = "hal.buffer_view.dim"(%arg0) <{index = 0 : index}> : (!hal.buffer_view) -> index
    %7 = "hal.element_type"() <{type = f32}> : () -> i32
    %8 = "hal.encoding_type"() : () -> i32
    "hal.buffer_view.assert"(%arg0, %7, %8, %6, %4) <{message = "input0"}> : (!hal.buffer_view, i32, i32, index, index) -> ()
    %9 = "arith.muli"(%6, %3) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
    %10 = "stream.tensor.import"(%arg0, %6, %9) <{affinity = #hal.device.affinity<@__device_0>, result_encoding = tensor<?x3xf32>}> : (!hal.buffer_view, index, index) -> !stream.resource<external>
    %11 = "hal.buffer_view.dim"(%arg1) <{index = 0 : index}> : (!hal.buffer_view) -> index
    "hal.buffer_view.assert"(%arg1, %7, %8, %11, %4) <{message = "input1"}> : (!hal.buffer_view, i32, i32, index, index) -> ()
    %12 = "arith.muli"(%11, %3) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
    %13 = "stream.tensor.import"(%arg1, %11, %12) <{affinity = #hal.device.affinity<@__device_0>, result_encoding = tensor<?x3xf32>}> : (!hal.buffer_view, index, index) -> !stream.resource<external>
    "hal.buffer_view.assert"(%arg2, %7, %8, %4, %4) <{message = "input2"}> : (!hal.buffer_view, i32, i32, index, index) -> ()
    %14 = "stream.tensor.import"(%arg2, %2) <{affinity = #hal.device.affinity<@__device_0>, result_encoding = tensor<3x3xf32>}> : (!hal.buffer_view, index) -> !stream.resource<external>
    %15 = "arith.cmpi"(%6, %11) <{predicate = 0 : i64}> : (index, index) -> i1
    "cf.assert"(%15) <{msg = "batch sizes match"}> : (i1) -> ()
    %16 = "arith.cmpi"(%6, %5) <{predicate = 4 : i64}> : (index, index) -> i1
    "cf.assert"(%16) <{msg = "batch size > 0"}> : (i1) -> ()
    %17 = "arith.muli"(%6, %4) <{overflowFlags = #arith.overflow<nsw>}> : (index, index) -> index
    %18 = "arith.muli"(%11, %4) <{overflowFlags = #arith.overflow<nsw>}> : (index, index) -> index
    %19:2 = "stream.resource.alloca"(%9) <{affinity = #hal.device.affinity<@__device_0>}> : (index) -> (!stream.resource<external>, !stream.timepoint)
    %20 = "util.align"(%9, %1) : (index, index) -> index
    %21 = "arith.addi"(%20, %20) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
    %22 = "arith.addi"(%21, %20) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
    %23:2 = "stream.resource.alloca"(%22) <{affinity = #hal.device.affinity<@__device_0>}> : (index) -> (!stream.resource<transient>, !stream.timepoint)
    %24 = "stream.timepoint.join"(%19#1, %23#1) : (!stream.timepoint, !stream.timepoint) -> !stream.timepoint
    %25 = "arith.index_castui"(%17) : (index) -> i64
    %26 = "arith.index_castui"(%17) : (index) -> i32
    %27 = "arith.shrui"(%25, %0) : (i64, i64) -> i64
    %28 = "arith.trunci"(%27) <{overflowFlags = #arith.overflow<none>}> : (i64) -> i32
    %29 = "arith.index_castui"(%20) : (index) -> i64
    %30 = "arith.index_castui"(%20) : (index) -> i32
    %31 = "arith.shrui"(%29, %0) : (i64, i64) -> i64
    %32 = "arith.trunci"(%31) <{overflowFlags = #arith.overflow<none>}> : (i64) -> i32
    %33 = "arith.index_castui"(%18) : (index) -> i64
    %34 = "arith.index_castui"(%18) : (index) -> i32
    %35 = "arith.shrui"(%33, %0) : (i64, i64) -> i64
    %36 = "arith.trunci"(%35) <{overflowFlags = #arith.overflow<none>}> : (i64) -> i32
    %37 = "arith.index_castui"(%21) : (index) -> i64
    %38 = "arith.index_castui"(%21) : (index) -> i32
    %39 = "arith.shrui"(%37, %0) : (i64, i64) -> i64
    %40 = "arith.trunci"(%39) <{overflowFlags = #arith.overflow<none>}> : (i64) -> i32
    %41 = "arith.index_castui"(%6) : (index) -> i64
    %42 = "arith.index_castui"(%6) : (index) -> i32
    %43 = "arith.shrui"(%41, %0) : (i64, i64) -> i64
    %44 = "arith.trunci"(%43) <{overflowFlags = #arith.overflow<none>}> : (i64) -> i32
    %45 = "stream.cmd.execute"(%10, %13, %14, %19#0, %23#0, %9, %12, %2, %9, %22, %24) <{affinity = #hal.device.affinity<@__device_0>, operandSegmentSizes = array<i32: 5, 5, 1>}> ({
    ^bb0(%arg3: !stream.resource<external>, %arg4: !stream.resource<external>, %arg5: !stream.resource<external>, %arg6: !stream.resource<external>, %arg7: !stream.resource<transient>):
      "stream.cmd.concurrent"() ({
        "stream.cmd.dispatch"(%17, %26, %28, %arg3, %arg7, %9, %22, %5, %5, %9, %22) <{entry_points = [@dyn_mlp_dispatch_0::@dyn_mlp_dispatch_0_elementwise_D_f32], operandSegmentSizes = array<i32: 1, 2, 2, 2, 2, 2>, resource_accesses = [1 : i32, 2 : i32]}> : (index, i32, i32, !stream.resource<external>, !stream.resource<transient>, index, index, index, index, index, index) -> ()
        "stream.cmd.dispatch"(%17, %18, %30, %32, %26, %28, %34, %36, %arg4, %arg7, %12, %22, %5, %5, %12, %22) <{entry_points = [@dyn_mlp_dispatch_1::@dyn_mlp_dispatch_1_elementwise_D_f32], operandSegmentSizes = array<i32: 2, 6, 2, 2, 2, 2>, resource_accesses = [1 : i32, 2 : i32]}> : (index, index, i32, i32, i32, i32, i32, i32, !stream.resource<external>, !stream.resource<transient>, index, index, index, index, index, index) -> ()
        "stream.yield"() : () -> ()
      }) : () -> ()
      "stream.cmd.dispatch"(%6, %30, %32, %38, %40, %42, %44, %arg7, %arg5, %arg7, %22, %2, %22, %5, %5, %5, %22, %2, %22) <{entry_points = [@dyn_mlp_dispatch_2::@dyn_mlp_dispatch_2_matmul_Dx3x3_f32], operandSegmentSizes = array<i32: 1, 6, 3, 3, 3, 3>, resource_accesses = [1 : i32, 1 : i32, 2 : i32]}> : (index, i32, i32, i32, i32, i32, i32, !stream.resource<transient>, !stream.resource<external>, !stream.resource<transient>, index, index, index, index, index, index, index, index, index) -> ()
      "stream.cmd.dispatch"(%6, %38, %40, %42, %44, %arg7, %arg5, %arg6, %22, %2, %9, %5, %5, %5, %22, %2, %9) <{entry_points = [@dyn_mlp_dispatch_3::@dyn_mlp_dispatch_3_matmul_Dx3x3_f32], operandSegmentSizes = array<i32: 1, 4, 3, 3, 3, 3>, resource_accesses = [1 : i32, 1 : i32, 2 : i32]}> : (index, i32, i32, i32, i32, !stream.resource<transient>, !stream.resource<external>, !stream.resource<external>, index, index, index, index, index, index, index, index, index) -> ()
      "stream.yield"() : () -> ()
    }) : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>, !stream.resource<external>, !stream.resource<transient>, index, index, index, index, index, !stream.timepoint) -> !stream.timepoint
    %46 = "stream.resource.dealloca"(%23#0, %22, %45) <{affinity = #hal.device.affinity<@__device_0>}> : (!stream.resource<transient>, index, !stream.timepoint) -> !stream.timepoint
    %47 = "stream.timepoint.await"(%19#0, %9, %46) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!stream.resource<external>, index, !stream.timepoint) -> !stream.resource<external>
    %48 = "stream.tensor.export"(%47, %6, %9) <{affinity = #hal.device.affinity<@__device_0>, source_encoding = tensor<?x3xf32>}> : (!stream.resource<external>, index, index) -> !hal.buffer_view
    "util.return"(%48) : (!hal.buffer_view) -> ()
  }) {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @dyn_mlp(%input0: tensor<?x3xf32>, %input1: tensor<?x3xf32>, %input2: tensor<3x3xf32>) -> (%output0: tensor<?x3xf32>)"}} : () -> ()
}) {stream.affinity.default = #hal.device.affinity<@__device_0>} : () -> ()
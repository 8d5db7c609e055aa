// IREE 3.13.0 (iree-base-compiler 3.13.0); model: nested_loops (bench/cf_models.py, an ONNX model built with onnx.helper)
// flags: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu
// stage: 03_schedule_execution (bench/iree_dumps.py), module scope, generic form
#executable_target_embedded_elf_x86_64 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", cpu_features = "", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 16 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#device_target_local = #hal.device.target<"local", [#executable_target_embedded_elf_x86_64]> : !hal.device
"builtin.module"() ({
  "util.global"() <{initial_value = #device_target_local, sym_name = "__device_0", sym_visibility = "private", type = !hal.device}> : () -> ()
  "util.global"() <{sym_name = "__constant_tensor_16x16xf32", sym_visibility = "private", type = !stream.resource<constant>}> : () -> ()
  "util.initializer"() <{function_type = () -> ()}> ({
    %50 = "arith.constant"() <{value = 1024 : index}> : () -> index
    %51:2 = "stream.async.execute"(%50) <{affinity = #hal.device.affinity<@__device_0>, operandSegmentSizes = array<i32: 0, 0, 1, 0>, tied_operands = []}> ({
      %53 = "stream.async.constant"(%50) <{value = dense<"0xAEFD00397BBBF43CE092E0BCAA64B6BDB03B3ABDD716CBBD1C14C53BF03C093E989B49BD82257EBDAAA3483D512E123DF1B52C3C538FBEBD6BB43FBBEA658E3DC7A509BE7E703BBD6AAF42BE760C04BEFB973CBE2F96C0BC5AC901BE4238DE3C1669803C432299BCACDB80BE0BA65CBD8BED9EBB3CA5393C97AF1CBE10B043BD9566C8BD5EA6A5BDA545D93D1362A5BD5F2255BB801FB53DF20A6FBD320337BC05FC343C0800D13B35E4FABD0F7FF93BBE240B3E786D1EBE6700B03DB58C433C865F83BDB8D74C3E5D1C9C3D479DF5BDBF2CF43B4A366C3D7BA69ABC2BDC8B3DC7F6D9BBFDA6883D024E133E2A608ABD4169A63C53C53DBD3F84503C3023F3BD2D486DBD47B9A0BC1D11B83D9D8AEA3D7D8707BE26BEA2BD5F7C843D17064CBEE2B63DBD18651FBCE5B7003E9F308D3DD00606BDFCF716BDC8F5CCBC69021C3EAB512FBD65C6F8BCA56B103DCCDE45BC809DA1BC3529E4BDA20397BADDB035BDAFD2EE3DA6C0853D433A1EBB6BE2883DE8350BBDBA79D73DD78B0DBA13F46E3DFE2F04BE0A000E3D43DF2CBEED6A50BE6F6DF9BC204EB8BD5E64863CF3DC653E3F56AABD3A917FBD5444A83C31F0493D098390BCB9B2A8BC4BDD8F3D45F4543D62B2D3BD0EBB01BC8241673B5DF5D7BD35DCD43CA1B5AFBD4B14C73DBFE59D3CDB51123CD01572BD915442BCB9914CBE57B6E7BD839E143D1BF759BEAB62AD3DDFCC32BEE4FA9A3D6528ADBD92899F3DEB8C563C355F1DBE5FD3FF3D7DA1133E28A1D7BB6864E0BC88F682BC11B6C7BD97FDE03D585E5EBDA2BDA7BB9477A2BD433880BDCCD602BE52B9003E03757CBC1DD2C53DEEA5AE3ABF368EBD6FCF05BD7B7865BD9DA4503A95B519BD25B2F5BC832A0DBEF73DA5BD2060293EF47789BDE0E0D7BD3B2B0A3DCC1A103E60E414BE33D2AABCC27181BD125434BE5383963D5FA419BBC319EA3BCA129ABD93473A3D6DE55CBDF3216ABCC8F8E2BDCF0EF9BD2BC2083EC8B54FBDCFF1EE3CF2725DBB6EB134BD920F50BD7A0A813D3A4AF7BC122078BC97A1113BEBF2F03D605E8B3D8CB61C3DBFD666BD7B830DBEB776C23DAAEDC53D628966BCA3F45D3D1F0AA03D013AAA3D08B3BC3DF99E3ABD1B221B3E624DFFBD1B7BB03D88504A3DCEEAB23D1369403ED901183E4088EABD83EB2CBE834CA73DE2DFCFBD9499A2BAE7F9AB3D2A5328BEDF0F58BEF26AD43C9671913BA45CC9BC9B8A7C3BCD3BB0BD59FB1ABE0F8688BC8601C7BDE14A28BE82204F3DE730C9BB9B83263D8C9BCABD3BC586BDA19ACCBD9295B5BD0314A03C6B5AA0BD42D8113DFE290B3D62604F3E219F0EBEA8D7B53DF99D12BCF7E3B7BA4F7714BED27E3CBDF134983DF02107BCABCC043CB527EEBCB574EC3DFEB80CBB935261BE89BC8DBDD39A49BE4179A6BEA02259BD798E083E0B679A3B2A23F0BDC4A7C0BD"> : tensor<16x16xf32>}> : (index) -> !stream.resource<constant>
      "stream.yield"(%53, %50) : (!stream.resource<constant>, index) -> ()
    }) : (index) -> (!stream.resource<constant>, !stream.timepoint)
    %52 = "stream.timepoint.await"(%51#0, %50, %51#1) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!stream.resource<constant>, index, !stream.timepoint) -> !stream.resource<constant>
    "util.global.store"(%52) <{global = @__constant_tensor_16x16xf32}> : (!stream.resource<constant>) -> ()
    "util.return"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "nested_loops$async_dispatch_0", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @nested_loops$async_dispatch_0_matmul_4x16x16_f32, sym_name = "nested_loops$async_dispatch_0_matmul_4x16x16_f32"}> ({
      %49:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"() : () -> (index, index, index)
      "stream.return"(%49#0, %49#1, %49#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{function_type = (!stream.binding, !stream.binding, !stream.binding) -> (), sym_name = "nested_loops$async_dispatch_0_matmul_4x16x16_f32"}> ({
      ^bb0(%arg15: !stream.binding, %arg16: !stream.binding, %arg17: !stream.binding):
        %35 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %36 = "arith.constant"() <{value = 0 : index}> : () -> index
        %37 = "stream.binding.subspan"(%arg15, %36) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x16xf32>>
        %38 = "stream.binding.subspan"(%arg16, %36) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x16xf32>>
        %39 = "stream.binding.subspan"(%arg17, %36) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x16xf32>>
        %40 = "iree_tensor_ext.dispatch.tensor.load"(%37) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 16>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<4x16xf32>>) -> tensor<4x16xf32>
        %41 = "iree_tensor_ext.dispatch.tensor.load"(%38) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 16, 16>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<16x16xf32>>) -> tensor<16x16xf32>
        %42 = "tensor.empty"() : () -> tensor<4x16xf32>
        %43 = "linalg.fill"(%35, %42) <{operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg23: f32, %arg24: f32):
          "linalg.yield"(%arg23) : (f32) -> ()
        }) : (f32, tensor<4x16xf32>) -> tensor<4x16xf32>
        %44 = "linalg.matmul"(%40, %41, %43) <{indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg20: f32, %arg21: f32, %arg22: f32):
          %47 = "arith.mulf"(%arg20, %arg21) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %48 = "arith.addf"(%arg22, %47) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%48) : (f32) -> ()
        }) : (tensor<4x16xf32>, tensor<16x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
        %45 = "linalg.generic"(%44, %42) <{indexing_maps = [#map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg18: f32, %arg19: f32):
          %46 = "math.tanh"(%arg18) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
          "linalg.yield"(%46) : (f32) -> ()
        }) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%45, %39) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 16>, static_strides = array<i64: 1, 1>}> : (tensor<4x16xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x16xf32>>) -> ()
        "func.return"() : () -> ()
      }) : () -> ()
    }) : () -> ()
    "stream.executable.end"() : () -> ()
  }) : () -> ()
  "util.func"() <{function_type = (!hal.buffer_view, !hal.buffer_view, !hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view, inlining_policy = #util.inline.never, sym_name = "nested_loops$async"}> ({
  ^bb0(%arg3: !hal.buffer_view, %arg4: !hal.buffer_view, %arg5: !hal.buffer_view, %arg6: !hal.fence, %arg7: !hal.fence):
    %7 = "arith.constant"() <{value = 256 : index}> : () -> index
    %8 = "arith.constant"() <{value = 8 : index}> : () -> index
    %9 = "arith.constant"() <{value = 16 : index}> : () -> index
    %10 = "arith.constant"() <{value = 4 : index}> : () -> index
    %11 = "arith.constant"() <{value = 0 : index}> : () -> index
    %12 = "arith.constant"() <{value = 1 : index}> : () -> index
    %13 = "arith.constant"() <{value = 1024 : index}> : () -> index
    %14 = "util.global.load"() <{global = @__constant_tensor_16x16xf32, is_immutable}> : () -> !stream.resource<constant>
    %15 = "hal.element_type"() <{type = i64}> : () -> i32
    %16 = "hal.encoding_type"() : () -> i32
    "hal.buffer_view.assert"(%arg3, %15, %16) <{message = "tensor"}> : (!hal.buffer_view, i32, i32) -> ()
    %17 = "stream.tensor.import"(%arg3, %8) <{affinity = #hal.device.affinity<@__device_0>, result_encoding = tensor<i64>}> : (!hal.buffer_view, index) -> !stream.resource<external>
    %18 = "stream.timepoint.import"(%arg6) <{affinity = #hal.device.affinity<@__device_0>}> : (!hal.fence) -> !stream.timepoint
    %19 = "hal.element_type"() <{type = f32}> : () -> i32
    "hal.buffer_view.assert"(%arg5, %19, %16, %10, %9) <{message = "tensor"}> : (!hal.buffer_view, i32, i32, index, index) -> ()
    %20 = "stream.tensor.import"(%arg5, %7) <{affinity = #hal.device.affinity<@__device_0>, result_encoding = tensor<4x16xf32>}> : (!hal.buffer_view, index) -> !stream.resource<external>
    %21:2 = "stream.async.execute"(%17, %8, %8, %18) <{affinity = #hal.device.affinity<@__device_0>, operandSegmentSizes = array<i32: 1, 1, 1, 1>, tied_operands = []}> ({
    ^bb0(%arg14: !stream.resource<external>):
      %34 = "stream.async.transfer"(%arg14, %8, %8) : (!stream.resource<external>, index, index) -> !stream.resource<staging>
      "stream.yield"(%34, %8) : (!stream.resource<staging>, index) -> ()
    }) : (!stream.resource<external>, index, index, !stream.timepoint) -> (!stream.resource<staging>, !stream.timepoint)
    %22 = "stream.timepoint.await"(%21#0, %8, %21#1) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!stream.resource<staging>, index, !stream.timepoint) -> !stream.resource<staging>
    %23 = "stream.async.load"(%22, %8, %11) : (!stream.resource<staging>, index, index) -> i64
    %24 = "arith.index_cast"(%23) : (i64) -> index
    %25:2 = "stream.timepoint.await"(%17, %20, %8, %7, %18) <{operandSegmentSizes = array<i32: 2, 2, 1>}> : (!stream.resource<external>, !stream.resource<external>, index, index, !stream.timepoint) -> (!stream.resource<external>, !stream.resource<external>)
    %26 = "scf.for"(%11, %24, %12, %25#1) ({
    ^bb0(%arg8: index, %arg9: !stream.resource<external>):
      %29 = "scf.for"(%11, %24, %12, %arg9) ({
      ^bb0(%arg10: index, %arg11: !stream.resource<external>):
        %30:2 = "stream.async.execute"(%arg11, %14, %7, %13, %7) <{affinity = #hal.device.affinity<@__device_0>, operandSegmentSizes = array<i32: 2, 2, 1, 0>, tied_operands = []}> ({
        ^bb0(%arg12: !stream.resource<external>, %arg13: !stream.resource<constant>):
          %32 = "stream.async.clone"(%arg12, %7, %7) : (!stream.resource<external>, index, index) -> !stream.resource<transient>
          %33 = "stream.async.dispatch"(%32, %arg13, %7, %13, %11, %11, %7, %13, %7, %13, %7) <{entry_points = [@nested_loops$async_dispatch_0::@nested_loops$async_dispatch_0_matmul_4x16x16_f32], operandSegmentSizes = array<i32: 0, 2, 2, 2, 2, 2, 1>, tied_operands = [-1 : index]}> : (!stream.resource<transient>, !stream.resource<constant>, index, index, index, index, index, index, index, index, index) -> !stream.resource<external>
          "stream.yield"(%33, %7) : (!stream.resource<external>, index) -> ()
        }) : (!stream.resource<external>, !stream.resource<constant>, index, index, index) -> (!stream.resource<external>, !stream.timepoint)
        %31 = "stream.timepoint.await"(%30#0, %7, %30#1) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!stream.resource<external>, index, !stream.timepoint) -> !stream.resource<external>
        "scf.yield"(%31) : (!stream.resource<external>) -> ()
      }) : (index, index, index, !stream.resource<external>) -> !stream.resource<external>
      "scf.yield"(%29) : (!stream.resource<external>) -> ()
    }) : (index, index, index, !stream.resource<external>) -> !stream.resource<external>
    %27:2 = "stream.timepoint.barrier"(%26, %7) <{affinity = #hal.device.affinity<@__device_0>}> : (!stream.resource<external>, index) -> (!stream.resource<external>, !stream.timepoint)
    "stream.timepoint.chain_external"(%27#1, %arg7) <{affinity = #hal.device.affinity<@__device_0>}> : (!stream.timepoint, !hal.fence) -> ()
    %28 = "stream.tensor.export"(%27#0, %7) <{affinity = #hal.device.affinity<@__device_0>, source_encoding = tensor<4x16xf32>}> : (!stream.resource<external>, index) -> !hal.buffer_view
    "util.return"(%28) : (!hal.buffer_view) -> ()
  }) {iree.abi.model = "coarse-fences", iree.abi.stub} : () -> ()
  "util.func"() <{function_type = (!hal.buffer_view, !hal.buffer_view, !hal.buffer_view) -> !hal.buffer_view, sym_name = "nested_loops"}> ({
  ^bb0(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view):
    %0 = "util.null"() : () -> !hal.fence
    %1 = "arith.constant"() <{value = -1 : i32}> : () -> i32
    %2 = "arith.constant"() <{value = 0 : index}> : () -> index
    %3 = "hal.devices.get"(%2) : (index) -> !hal.device
    %4 = "hal.fence.create"(%3) <{flags = 0 : i64}> : (!hal.device) -> !hal.fence
    %5 = "util.call"(%arg0, %arg1, %arg2, %0, %4) <{callee = @nested_loops$async}> : (!hal.buffer_view, !hal.buffer_view, !hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view
    %6 = "hal.fence.await"(%1, %4) <{flags = 0 : i64}> : (i32, !hal.fence) -> i32
    "util.return"(%5) : (!hal.buffer_view) -> ()
  }) {iree.abi.stub} : () -> ()
}) {stream.affinity.default = #hal.device.affinity<@__device_0>} : () -> ()


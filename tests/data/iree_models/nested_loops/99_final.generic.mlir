// IREE 3.13.0 (iree-base-compiler 3.13.0); model: nested_loops (bench/cf_models.py, an ONNX model built with onnx.helper)
// flags: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu
// stage: 99_final (bench/iree_dumps.py), module scope, generic form
"builtin.module"() ({
  "util.global"() <{initial_value = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "", cpu_features = "", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 16 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>]> : !hal.device, sym_name = "__device_0", sym_visibility = "private", type = !hal.device}> : () -> ()
  "util.global"() <{sym_name = "__constant_tensor_16x16xf32", sym_visibility = "private", type = !stream.resource<constant>}> : () -> ()
  "util.initializer"() <{function_type = () -> ()}> ({
    %57 = "arith.constant"() <{value = 0 : index}> : () -> index
    %58 = "arith.constant"() <{value = 0 : i64}> : () -> i64
    %59 = "stream.timepoint.immediate"() : () -> !stream.timepoint
    %60 = "arith.constant"() <{value = 1024 : index}> : () -> index
    %61 = "util.buffer.constant"() <{alignment = 64 : index, value = #util.composite<1024xi8, [
    dense<"0xAEFD00397BBBF43CE092E0BCAA64B6BDB03B3ABDD716CBBD1C14C53BF03C093E989B49BD82257EBDAAA3483D512E123DF1B52C3C538FBEBD6BB43FBBEA658E3DC7A509BE7E703BBD6AAF42BE760C04BEFB973CBE2F96C0BC5AC901BE4238DE3C1669803C432299BCACDB80BE0BA65CBD8BED9EBB3CA5393C97AF1CBE10B043BD9566C8BD5EA6A5BDA545D93D1362A5BD5F2255BB801FB53DF20A6FBD320337BC05FC343C0800D13B35E4FABD0F7FF93BBE240B3E786D1EBE6700B03DB58C433C865F83BDB8D74C3E5D1C9C3D479DF5BDBF2CF43B4A366C3D7BA69ABC2BDC8B3DC7F6D9BBFDA6883D024E133E2A608ABD4169A63C53C53DBD3F84503C3023F3BD2D486DBD47B9A0BC1D11B83D9D8AEA3D7D8707BE26BEA2BD5F7C843D17064CBEE2B63DBD18651FBCE5B7003E9F308D3DD00606BDFCF716BDC8F5CCBC69021C3EAB512FBD65C6F8BCA56B103DCCDE45BC809DA1BC3529E4BDA20397BADDB035BDAFD2EE3DA6C0853D433A1EBB6BE2883DE8350BBDBA79D73DD78B0DBA13F46E3DFE2F04BE0A000E3D43DF2CBEED6A50BE6F6DF9BC204EB8BD5E64863CF3DC653E3F56AABD3A917FBD5444A83C31F0493D098390BCB9B2A8BC4BDD8F3D45F4543D62B2D3BD0EBB01BC8241673B5DF5D7BD35DCD43CA1B5AFBD4B14C73DBFE59D3CDB51123CD01572BD915442BCB9914CBE57B6E7BD839E143D1BF759BEAB62AD3DDFCC32BEE4FA9A3D6528ADBD92899F3DEB8C563C355F1DBE5FD3FF3D7DA1133E28A1D7BB6864E0BC88F682BC11B6C7BD97FDE03D585E5EBDA2BDA7BB9477A2BD433880BDCCD602BE52B9003E03757CBC1DD2C53DEEA5AE3ABF368EBD6FCF05BD7B7865BD9DA4503A95B519BD25B2F5BC832A0DBEF73DA5BD2060293EF47789BDE0E0D7BD3B2B0A3DCC1A103E60E414BE33D2AABCC27181BD125434BE5383963D5FA419BBC319EA3BCA129ABD93473A3D6DE55CBDF3216ABCC8F8E2BDCF0EF9BD2BC2083EC8B54FBDCFF1EE3CF2725DBB6EB134BD920F50BD7A0A813D3A4AF7BC122078BC97A1113BEBF2F03D605E8B3D8CB61C3DBFD666BD7B830DBEB776C23DAAEDC53D628966BCA3F45D3D1F0AA03D013AAA3D08B3BC3DF99E3ABD1B221B3E624DFFBD1B7BB03D88504A3DCEEAB23D1369403ED901183E4088EABD83EB2CBE834CA73DE2DFCFBD9499A2BAE7F9AB3D2A5328BEDF0F58BEF26AD43C9671913BA45CC9BC9B8A7C3BCD3BB0BD59FB1ABE0F8688BC8601C7BDE14A28BE82204F3DE730C9BB9B83263D8C9BCABD3BC586BDA19ACCBD9295B5BD0314A03C6B5AA0BD42D8113DFE290B3D62604F3E219F0EBEA8D7B53DF99D12BCF7E3B7BA4F7714BED27E3CBDF134983DF02107BCABCC043CB527EEBCB574EC3DFEB80CBB935261BE89BC8DBDD39A49BE4179A6BEA02259BD798E083E0B679A3B2A23F0BDC4A7C0BD"> : tensor<16x16xf32>,
]>}> : () -> !util.buffer
    %62:2 = "stream.resource.try_map"(%61, %57, %60) <{affinity = #hal.device.affinity<@__device_0>}> : (!util.buffer, index, index) -> (i1, !stream.resource<constant>)
    "cf.cond_br"(%62#0, %59, %62#1)[^bb2, ^bb1] <{operandSegmentSizes = array<i32: 1, 2, 0>}> : (i1, !stream.timepoint, !stream.resource<constant>) -> ()
  ^bb1:  // pred: ^bb0
    %63 = "stream.resource.alloc"(%60) <{affinity = #hal.device.affinity<@__device_0>, uninitialized}> : (index) -> !stream.resource<constant>
    %64 = "stream.file.constant"(%61, %60, %57, %60) <{affinity = #hal.device.affinity<@__device_0>}> : (!util.buffer, index, index, index) -> !stream.file
    %65 = "stream.file.read"(%64, %58, %63, %60, %57, %60, %59) <{affinity = #hal.device.affinity<@__device_0>}> : (!stream.file, i64, !stream.resource<constant>, index, index, index, !stream.timepoint) -> !stream.timepoint
    "cf.br"(%65, %63)[^bb2] : (!stream.timepoint, !stream.resource<constant>) -> ()
  ^bb2(%66: !stream.timepoint, %67: !stream.resource<constant>):  // 2 preds: ^bb0, ^bb1
    %68 = "stream.timepoint.await"(%67, %60, %66) <{operandSegmentSizes = array<i32: 1, 1, 1>, sync}> : (!stream.resource<constant>, index, !stream.timepoint) -> !stream.resource<constant>
    "util.global.store"(%68) <{global = @__constant_tensor_16x16xf32}> : (!stream.resource<constant>) -> ()
    "util.return"() : () -> ()
  }) : () -> ()
  "stream.executable"() <{sym_name = "nested_loops$async_dispatch_0", sym_visibility = "private"}> ({
    "stream.executable.export"() <{function_ref = @nested_loops$async_dispatch_0_matmul_4x16x16_f32, sym_name = "nested_loops$async_dispatch_0_matmul_4x16x16_f32"}> ({
      %56:3 = "iree_tensor_ext.dispatch.workgroup_count_from_slice"() : () -> (index, index, index)
      "stream.return"(%56#0, %56#1, %56#2) : (index, index, index) -> ()
    }) : () -> ()
    "builtin.module"() ({
      "func.func"() <{arg_attrs = [{stream.alignment = 64 : index}, {stream.alignment = 64 : index}, {stream.alignment = 64 : index}], function_type = (!stream.binding, !stream.binding, !stream.binding) -> (), sym_name = "nested_loops$async_dispatch_0_matmul_4x16x16_f32"}> ({
      ^bb0(%arg14: !stream.binding, %arg15: !stream.binding, %arg16: !stream.binding):
        %42 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %43 = "arith.constant"() <{value = 0 : index}> : () -> index
        %44 = "stream.binding.subspan"(%arg14, %43) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<4x16xf32>>
        %45 = "stream.binding.subspan"(%arg15, %43) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x16xf32>>
        %46 = "stream.binding.subspan"(%arg16, %43) : (!stream.binding, index) -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x16xf32>>
        %47 = "iree_tensor_ext.dispatch.tensor.load"(%44) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 16>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<4x16xf32>>) -> tensor<4x16xf32>
        %48 = "iree_tensor_ext.dispatch.tensor.load"(%45) <{operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 16, 16>, static_strides = array<i64: 1, 1>}> : (!iree_tensor_ext.dispatch.tensor<readonly:tensor<16x16xf32>>) -> tensor<16x16xf32>
        %49 = "tensor.empty"() : () -> tensor<4x16xf32>
        %50 = "linalg.fill"(%42, %49) <{operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg22: f32, %arg23: f32):
          "linalg.yield"(%arg22) : (f32) -> ()
        }) : (f32, tensor<4x16xf32>) -> tensor<4x16xf32>
        %51 = "linalg.matmul"(%47, %48, %50) <{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg19: f32, %arg20: f32, %arg21: f32):
          %54 = "arith.mulf"(%arg19, %arg20) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %55 = "arith.addf"(%arg21, %54) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%55) : (f32) -> ()
        }) : (tensor<4x16xf32>, tensor<16x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
        %52 = "linalg.generic"(%51, %49) <{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
        ^bb0(%arg17: f32, %arg18: f32):
          %53 = "math.tanh"(%arg17) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
          "linalg.yield"(%53) : (f32) -> ()
        }) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
        "iree_tensor_ext.dispatch.tensor.store"(%52, %46) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 16>, static_strides = array<i64: 1, 1>}> : (tensor<4x16xf32>, !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4x16xf32>>) -> ()
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
    %11 = "arith.constant"() <{value = 1 : index}> : () -> index
    %12 = "arith.constant"() <{value = 1024 : index}> : () -> index
    %13 = "arith.constant"() <{value = 0 : index}> : () -> index
    %14 = "util.global.load"() <{global = @__constant_tensor_16x16xf32, is_immutable}> : () -> !stream.resource<constant>
    %15 = "hal.element_type"() <{type = i64}> : () -> i32
    %16 = "hal.encoding_type"() : () -> i32
    "hal.buffer_view.assert"(%arg3, %15, %16) <{message = "tensor"}> : (!hal.buffer_view, i32, i32) -> ()
    %17 = "stream.tensor.import"(%arg3, %8) <{affinity = #hal.device.affinity<@__device_0>, result_encoding = tensor<i64>}> : (!hal.buffer_view, index) -> !stream.resource<external>
    %18 = "stream.timepoint.import"(%arg6) <{affinity = #hal.device.affinity<@__device_0>}> : (!hal.fence) -> !stream.timepoint
    %19 = "hal.element_type"() <{type = f32}> : () -> i32
    "hal.buffer_view.assert"(%arg5, %19, %16, %10, %9) <{message = "tensor"}> : (!hal.buffer_view, i32, i32, index, index) -> ()
    %20 = "stream.tensor.import"(%arg5, %7) <{affinity = #hal.device.affinity<@__device_0>, result_encoding = tensor<4x16xf32>}> : (!hal.buffer_view, index) -> !stream.resource<external>
    %21:2 = "stream.resource.alloca"(%8, %18) <{affinity = #hal.device.affinity<@__device_0>}> : (index, !stream.timepoint) -> (!stream.resource<staging>, !stream.timepoint)
    %22 = "stream.cmd.execute"(%17, %21#0, %8, %8, %21#1) <{affinity = #hal.device.affinity<@__device_0>, operandSegmentSizes = array<i32: 2, 2, 1>}> ({
    ^bb0(%arg12: !stream.resource<external>, %arg13: !stream.resource<staging>):
      "stream.cmd.copy"(%arg12, %8, %13, %arg13, %8, %13, %8) : (!stream.resource<external>, index, index, !stream.resource<staging>, index, index, index) -> ()
      "stream.cmd.flush"(%arg13, %8, %13, %8) : (!stream.resource<staging>, index, index, index) -> ()
      "stream.yield"() : () -> ()
    }) : (!stream.resource<external>, !stream.resource<staging>, index, index, !stream.timepoint) -> !stream.timepoint
    %23 = "stream.timepoint.await"(%21#0, %8, %22) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!stream.resource<staging>, index, !stream.timepoint) -> !stream.resource<staging>
    %24 = "stream.resource.load"(%23, %8, %13) : (!stream.resource<staging>, index, index) -> i64
    %25 = "arith.index_cast"(%24) : (i64) -> index
    "cf.br"(%13, %20, %18)[^bb1] : (index, !stream.resource<external>, !stream.timepoint) -> ()
  ^bb1(%26: index, %27: !stream.resource<external>, %28: !stream.timepoint):  // 2 preds: ^bb0, ^bb4
    %29 = "arith.cmpi"(%26, %25) <{predicate = 2 : i64}> : (index, index) -> i1
    "cf.cond_br"(%29, %13, %27, %28)[^bb2, ^bb5] <{operandSegmentSizes = array<i32: 1, 3, 0>}> : (i1, index, !stream.resource<external>, !stream.timepoint) -> ()
  ^bb2(%30: index, %31: !stream.resource<external>, %32: !stream.timepoint):  // 2 preds: ^bb1, ^bb3
    %33 = "arith.cmpi"(%30, %25) <{predicate = 2 : i64}> : (index, index) -> i1
    "cf.cond_br"(%33)[^bb3, ^bb4] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
  ^bb3:  // pred: ^bb2
    %34:2 = "stream.resource.alloca"(%7, %32) <{affinity = #hal.device.affinity<@__device_0>}> : (index, !stream.timepoint) -> (!stream.resource<external>, !stream.timepoint)
    %35:2 = "stream.resource.alloca"(%7, %32) <{affinity = #hal.device.affinity<@__device_0>}> : (index, !stream.timepoint) -> (!stream.resource<transient>, !stream.timepoint)
    %36 = "stream.timepoint.join"(%34#1, %35#1) : (!stream.timepoint, !stream.timepoint) -> !stream.timepoint
    %37 = "stream.cmd.execute"(%31, %14, %34#0, %35#0, %7, %12, %7, %7, %36) <{affinity = #hal.device.affinity<@__device_0>, operandSegmentSizes = array<i32: 4, 4, 1>}> ({
    ^bb0(%arg8: !stream.resource<external>, %arg9: !stream.resource<constant>, %arg10: !stream.resource<external>, %arg11: !stream.resource<transient>):
      "stream.cmd.copy"(%arg8, %7, %13, %arg11, %7, %13, %7) : (!stream.resource<external>, index, index, !stream.resource<transient>, index, index, index) -> ()
      "stream.cmd.dispatch"(%arg11, %arg9, %arg10, %7, %12, %7, %13, %13, %13, %7, %12, %7) <{entry_points = [@nested_loops$async_dispatch_0::@nested_loops$async_dispatch_0_matmul_4x16x16_f32], operandSegmentSizes = array<i32: 0, 0, 3, 3, 3, 3>, resource_accesses = [1 : i32, 1 : i32, 2 : i32]}> : (!stream.resource<transient>, !stream.resource<constant>, !stream.resource<external>, index, index, index, index, index, index, index, index, index) -> ()
      "stream.yield"() : () -> ()
    }) : (!stream.resource<external>, !stream.resource<constant>, !stream.resource<external>, !stream.resource<transient>, index, index, index, index, !stream.timepoint) -> !stream.timepoint
    %38 = "stream.resource.dealloca"(%35#0, %7, %37) <{affinity = #hal.device.affinity<@__device_0>}> : (!stream.resource<transient>, index, !stream.timepoint) -> !stream.timepoint
    %39 = "arith.addi"(%30, %11) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
    "cf.br"(%39, %34#0, %38)[^bb2] : (index, !stream.resource<external>, !stream.timepoint) -> ()
  ^bb4:  // pred: ^bb2
    %40 = "arith.addi"(%26, %11) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
    "cf.br"(%40, %31, %32)[^bb1] : (index, !stream.resource<external>, !stream.timepoint) -> ()
  ^bb5:  // pred: ^bb1
    "stream.timepoint.chain_external"(%28, %arg7) <{affinity = #hal.device.affinity<@__device_0>}> : (!stream.timepoint, !hal.fence) -> ()
    %41 = "stream.tensor.export"(%27, %7) <{affinity = #hal.device.affinity<@__device_0>, source_encoding = tensor<4x16xf32>}> : (!stream.resource<external>, index) -> !hal.buffer_view
    "util.return"(%41) : (!hal.buffer_view) -> ()
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
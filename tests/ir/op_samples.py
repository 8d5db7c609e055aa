"""One module per op family, written in IREE's pretty syntax as IREE 3.13 prints it.

Each sample is the exact text streamproof must print back (a fixed point of parse + print), so
every line here is also a byte-level test of the printer. Together the samples use every op the
op tables define (`test_ops.py` checks that), at every level: input (flow), tensor, async,
timepoint, cmd, resource, executables and host ops. Values keep their source names in pretty
form, so the names below are arbitrary but stable.
"""

from __future__ import annotations

SAMPLES: dict[str, str] = {}

SAMPLES["flow"] = """\
module {
  func.func @flow_ops(%x: tensor<4x?xf32>, %n: index, %w: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<4x?xf32>) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %cst = arith.constant 1.000000e+00 : f32
    %empty = flow.tensor.empty : tensor<4x?xf32>{%n}
    %splat = flow.tensor.splat %cst : tensor<8x8xf32>
    %dyn_splat = flow.tensor.splat %cst : tensor<4x?xf32>{%n}
    %clone = flow.tensor.clone %x : tensor<4x?xf32>{%n}
    %slice = flow.tensor.slice %w[%c0, %c0 for %c2, %c2] : tensor<8x8xf32> -> tensor<2x2xf32>
    %dyn_slice = flow.tensor.slice %x[%c0, %c0 for %c2, %n] : tensor<4x?xf32>{%n} -> tensor<2x?xf32>{%n}
    %update = flow.tensor.update %slice, %splat[%c2, %c2] : tensor<2x2xf32> -> %splat as tensor<8x8xf32>
    %load = flow.tensor.load %update[%c0, %c0] : tensor<8x8xf32>
    %store = flow.tensor.store %load, %update[%c0, %c2] : tensor<8x8xf32>
    %moved = flow.tensor.transfer %store : tensor<8x8xf32> to #hal.device.affinity<@dev1>
    %mm = flow.dispatch @matmul(%moved, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %sum = flow.dispatch @add(%mm, %w) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<8x8xf32>, tensor<8x8xf32>) -> %mm
    %pair:2 = flow.dispatch @ex::@entry[%c2, %n](%clone, %n) : (tensor<4x?xf32>{%n}, index) -> (tensor<4x?xf32>{%n}, %clone{%n})
    return %sum, %pair#1 : tensor<8x8xf32>, tensor<4x?xf32>
  }
}
"""

SAMPLES["tensor"] = """\
module {
  util.func public @tensor_ops(%arg0: !hal.buffer_view, %n: index) -> !hal.buffer_view {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %c0_i32 = arith.constant 0 : i32
    %size = stream.tensor.sizeof on(#hal.device.affinity<@dev0>) tensor<4x?xf32>{%n} : index
    %static = stream.tensor.sizeof tensor<8x8xf32> : index
    %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4x?xf32>{%n} in !stream.resource<external>{%size}
    %1 = stream.tensor.import consume %arg0 : !hal.buffer_view -> tensor<8x8xf32> in !stream.resource<external>{%c256}
    %empty = stream.tensor.empty on(#hal.device.affinity<@dev0>) : tensor<4x?xf32>{%n} in !stream.resource<*>{%size}
    %cst = stream.tensor.constant on(#hal.device.affinity<@dev0>) : tensor<2xi32> in !stream.resource<constant> = dense<[1, 2]> : tensor<2xi32>
    %dyn_cst = stream.tensor.constant : tensor<?xf32>{%c1} in !stream.resource<*> = dense<1.000000e+00> : tensor<1xf32>
    %splat = stream.tensor.splat on(#hal.device.affinity<@dev0>) %c0_i32 : i32 -> tensor<8x8xi32> in !stream.resource<*>{%c256}
    %clone = stream.tensor.clone on(#hal.device.affinity<@dev0>) %0 : tensor<4x?xf32>{%n} in !stream.resource<external>{%size} -> tensor<4x?xf32>{%n} in !stream.resource<*>{%size}
    %slice = stream.tensor.slice %1[%c0, %c0 for %c1, %c1] : tensor<8x8xf32> in !stream.resource<external>{%c256} -> tensor<1x1xf32> in !stream.resource<*>{%c64}
    %fill = stream.tensor.fill on(#hal.device.affinity<@dev0>) %c0_i32, %splat[%c0, %c0 for %c1, %c1] : i32 -> tensor<8x8xi32> in %splat as !stream.resource<*>{%c256}
    %fill_all = stream.tensor.fill %c0_i32, %fill : i32 -> tensor<8x8xi32> in %fill as !stream.resource<*>{%c256}
    %update = stream.tensor.update on(#hal.device.affinity<@dev0>) %slice, %clone[%c0, %c0] : tensor<1x1xf32> in !stream.resource<*>{%c64} -> tensor<4x?xf32>{%n} in %clone as !stream.resource<*>{%size}
    %staging = stream.tensor.import %arg0 : !hal.buffer_view -> tensor<8x8xf32> in !stream.resource<staging>{%c256}
    %load = stream.tensor.load %staging[%c0, %c1] : tensor<8x8xf32> in !stream.resource<staging>{%c256} -> f32
    %store = stream.tensor.store %load, %staging[%c1, %c0] : f32 -> tensor<8x8xf32> in %staging as !stream.resource<staging>{%c256}
    %2 = stream.tensor.dispatch on(#hal.device.affinity<@dev0>) @ex::@entry[%c1](%update, %n) : (tensor<4x?xf32>{%n} in !stream.resource<*>{%size}, index) -> tensor<4x?xf32>{%n} in !stream.resource<*>{%size}
    %3:2 = stream.tensor.dispatch @ex::@entry2(%2, %1) : (tensor<4x?xf32>{%n} in !stream.resource<*>{%size}, tensor<8x8xf32> in !stream.resource<external>{%c256}) -> (tensor<8x8xf32> in %1{%c256}, tensor<4x?xf32>{%n} in !stream.resource<*>{%size})
    %4 = stream.tensor.export on(#hal.device.affinity<@dev0>) %3#0 : tensor<8x8xf32> in !stream.resource<external>{%c256} -> !hal.buffer_view
    util.return %4 : !hal.buffer_view
  }
}
"""

SAMPLES["async"] = """\
module {
  util.func public @async_ops(%arg0: !stream.resource<external>, %arg1: index, %arg2: !stream.resource<staging>) -> !stream.resource<external> {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c0_i32 = arith.constant 0 : i32
    %c1_i8 = arith.constant 1 : i8
    %cst = arith.constant 2.500000e+00 : f32
    %0 = stream.async.alloca on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c16}
    %1 = stream.async.alloca : !stream.resource<transient>{%arg1}
    %cst_0 = stream.async.constant on(#hal.device.affinity<@dev0>) : !stream.resource<constant>{%c16} = dense<[1, 2, 3, 4]> : tensor<4xi32>
    %2 = stream.async.splat on(#hal.device.affinity<@dev0>) %c0_i32 : i32 -> !stream.resource<transient>{%c16}
    %3 = stream.async.splat %c1_i8 : i8 -> !stream.resource<transient>{%arg1}
    %4 = stream.async.clone on(#hal.device.affinity<@dev0>) %cst_0 : !stream.resource<constant>{%c16} -> !stream.resource<transient>{%c16}
    %5 = stream.async.slice on(#hal.device.affinity<@dev0>) %4[%c0 to %c8] : !stream.resource<transient>{%c16} -> !stream.resource<transient>{%c8}
    %6 = stream.async.fill on(#hal.device.affinity<@dev0>) %c0_i32, %2[%c0 to %c8 for %c8] : i32 -> %2 as !stream.resource<transient>{%c16}
    %7 = stream.async.update on(#hal.device.affinity<@dev0>) %5, %6[%c8 to %c16] : !stream.resource<transient>{%c8} -> %6 as !stream.resource<transient>{%c16}
    %8 = stream.async.copy on(#hal.device.affinity<@dev0>) %7[%c0 to %c8], %0[%c8 to %c16], %c8 : !stream.resource<transient>{%c16} -> %0 as !stream.resource<transient>{%c16}
    %9 = stream.async.barrier on(#hal.device.affinity<@dev0>) %8 : !stream.resource<transient>{%c16}
    %10 = stream.async.transfer %9 : !stream.resource<transient>{%c16} from(#hal.device.affinity<@dev0>) -> to(#hal.device.affinity<@dev1>) !stream.resource<transient>{%c16}
    %11 = stream.async.transfer on(#hal.device.affinity<@dev1>) %10 : !stream.resource<transient>{%c16} -> !stream.resource<external>{%c16}
    %12 = stream.async.cast on(#hal.device.affinity<@dev1>) %11 : !stream.resource<external>{%c16} -> !stream.resource<transient>{%c16}
    %13 = stream.async.load %arg2[%c4] : !stream.resource<staging>{%c16} -> f32
    %14 = stream.async.store %cst, %arg2[%c8] : f32 -> %arg2 as !stream.resource<staging>{%c16}
    %15 = stream.async.dispatch on(#hal.device.affinity<@dev0>) @ex::@entry[%c4, %c8](%7[%c0 to %c16 for %c16], %c4) : (!stream.resource<transient>{%c16}, index) -> !stream.resource<transient>{%c16}
    %16:2 = stream.async.dispatch @ex::@entry(%15[%c0 to %c8 for %c8], %arg0[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}, !stream.resource<external>{%c16}) -> (%arg0{%c16}, !stream.resource<transient>{%c4})
    stream.async.dispatch {@ex::@a, @ex::@b}(%c4) : (index) -> ()
    %results:2, %result_timepoint = stream.async.execute on(#hal.device.affinity<@dev0>) with(%16#0 as %arg3: !stream.resource<external>{%c16}, %15 as %arg4: !stream.resource<transient>{%c16}) -> (%16#0{%c16}, !stream.resource<transient>{%c16}) {
      %18:2 = stream.async.concurrent with(%arg3 as %arg5: !stream.resource<external>{%c16}, %arg4 as %arg6: !stream.resource<transient>{%c16}) -> (%arg3{%c16}, !stream.resource<transient>{%c16}) {
        %19 = stream.async.dispatch @ex::@entry(%arg5[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> %arg5{%c16}
        %20 = stream.async.clone %arg6 : !stream.resource<transient>{%c16} -> !stream.resource<transient>{%c16}
        stream.yield %19, %20 : !stream.resource<external>{%c16}, !stream.resource<transient>{%c16}
      }
      stream.yield %18#0, %18#1 : !stream.resource<external>{%c16}, !stream.resource<transient>{%c16}
    } => !stream.timepoint
    %result_timepoint_0 = stream.async.execute await(%result_timepoint) => with(%results#1 as %arg3: !stream.resource<transient>{%c16}) {
      stream.async.dispatch @ex::@entry(%arg3[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> ()
      stream.yield
    } => !stream.timepoint
    %17 = stream.timepoint.await %result_timepoint_0 => %results#0 : !stream.resource<external>{%c16}
    util.return %17 : !stream.resource<external>
  }
}
"""

SAMPLES["timepoint"] = """\
module {
  util.func public @timepoint_ops(%arg0: !hal.semaphore, %arg1: index, %arg2: !stream.resource<external>, %arg3: !hal.fence) -> !stream.resource<external> {
    %c64 = arith.constant 64 : index
    %0 = stream.timepoint.immediate => !stream.timepoint
    %1 = stream.timepoint.import on(#hal.device.affinity<@dev0>) %arg0, %arg1 : (!hal.semaphore, index) => !stream.timepoint
    %2 = stream.timepoint.join max(%0, %1) => !stream.timepoint
    %barrier:2 = stream.timepoint.barrier on(#hal.device.affinity<@dev0>) %arg2 : !stream.resource<external>{%c64} => !stream.timepoint
    %3 = stream.timepoint.join max(%2, %barrier#1) => !stream.timepoint
    %4:2 = stream.timepoint.export on(#hal.device.affinity<@dev0>) %3 => (!hal.semaphore, index)
    stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %3 => (%arg3 : !hal.fence)
    %5 = stream.timepoint.await sync %3 => %barrier#0 : !stream.resource<external>{%c64}
    %6:2 = stream.timepoint.await %2 => %5, %arg2 : !stream.resource<external>{%c64}, !stream.resource<external>{%c64}
    util.return %6#1 : !stream.resource<external>
  }
}
"""

SAMPLES["cmd"] = """\
module {
  util.func public @cmd_ops(%arg0: !stream.resource<external>, %arg1: !stream.resource<staging>, %arg2: index) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %c255_i32 = arith.constant 255 : i32
    %0 = stream.resource.alloc uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c128}
    %1 = stream.resource.alloc : !stream.resource<external>{%arg2}
    %result, %result_timepoint = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c128} => !stream.timepoint
    %result_0, %result_timepoint_1 = stream.resource.alloca uninitialized indeterminate await(%result_timepoint) => !stream.resource<transient>{%arg2} => !stream.timepoint
    %2:3 = stream.resource.pack on(#hal.device.affinity<@dev0>) slices({
      [0, 1] = %c16,
      [1, 2] = %arg2
    }) : index
    %3:2 = stream.resource.pack offset(%c16) slices({
      [0, 0] = %c8
    }) : index
    %4 = stream.cmd.execute once on(#hal.device.affinity<@dev0>) await(%result_timepoint_1) => with(%arg0 as %arg3: !stream.resource<external>{%c128}, %result as %arg4: !stream.resource<transient>{%c128}, %result_0 as %arg5: !stream.resource<transient>{%arg2}) {
      stream.cmd.fill %c255_i32, %arg4[%c0 for %c128] : i32 -> !stream.resource<transient>{%c128}
      stream.cmd.copy %arg4[%c0], %arg3[%c16], %c16 : !stream.resource<transient>{%c128} -> !stream.resource<external>{%c128}
      stream.cmd.concurrent {
        stream.cmd.dispatch @ex::@entry[%c4, %c8](%c4, %arg2 : index, index) {
          ro %arg3[%c0 for %c16] : !stream.resource<external>{%c128},
          rw %arg4[%c16 for %c16] : !stream.resource<transient>{%c128},
          wo %arg5[%c0 for %arg2] : !stream.resource<transient>{%arg2}
        }
        stream.cmd.serial {
          stream.cmd.dispatch {@ex::@a, @ex::@b} {
            wo %arg4[%c0 for %c16] : !stream.resource<transient>{%c128}
          }
          stream.cmd.flush to(#hal.device.affinity<@dev1>) %arg4[%c0 for %c16] : !stream.resource<transient>{%c128}
        }
      }
      stream.cmd.invalidate from(#hal.device.affinity<@dev1>) %arg3[%c0 for %c16] : !stream.resource<external>{%c128}
      stream.cmd.flush %arg3[%c0 for %c16] : !stream.resource<external>{%c128}
      stream.cmd.invalidate %arg3[%c0 for %c16] : !stream.resource<external>{%c128}
      stream.cmd.discard %arg4[%c0 for %c128] : !stream.resource<transient>{%c128}
    } => !stream.timepoint
    %5 = stream.resource.dealloca origin on(#hal.device.affinity<@dev0>) await(%4) => %result : !stream.resource<transient>{%c128} => !stream.timepoint
    %6 = stream.resource.dealloca %result_0 : !stream.resource<transient>{%arg2} => !stream.timepoint
    stream.resource.retain %arg0 : !stream.resource<external>{%c128}
    %7 = stream.resource.release %arg0 : !stream.resource<external>{%c128}
    %8 = stream.resource.is_terminal %arg0 : !stream.resource<external>{%c128}
    %9 = stream.resource.size %1 : !stream.resource<external>
    %10 = stream.resource.subview %arg0[%c16] : !stream.resource<external>{%c128} -> !stream.resource<external>{%c16}
    %11 = stream.resource.load %arg1[%c4] : !stream.resource<staging>{%c16} -> i32
    stream.resource.store %11, %arg1[%c8] : i32 -> !stream.resource<staging>{%c16}
    %results:2, %result_timepoint_2 = stream.resource.constants on(#hal.device.affinity<@dev0>) :\x20
      !stream.resource<constant>{%c16} = dense<[1, 2, 3, 4]> : tensor<4xi32>,
      !stream.resource<constant>{%c4} = dense<1.000000e+00> : tensor<1xf32>
      => !stream.timepoint
    %12 = stream.timepoint.join max(%5, %6, %result_timepoint_2) => !stream.timepoint
    util.return %12 : !stream.timepoint
  }
}
"""

SAMPLES["executable"] = """\
module {
  stream.executable private @ex {
    stream.executable.export public @entry workgroups(%arg0: index, %arg1: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %arg0, %arg1, %c1 : index, index, index
    }
    stream.executable.export public @alias as(@entry_impl)\x20
    builtin.module {
      func.func @entry(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: index) {
        %c0 = arith.constant 0 : index
        %c64 = arith.constant 64 : index
        %id = stream.dispatch.workgroup.id[0] : index
        %count = stream.dispatch.workgroup.count[1] : index
        %size = stream.dispatch.workgroup.size[2] : index
        %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>{%arg2}
        %1 = stream.binding.subspan %arg1[%c64] : !stream.binding -> memref<4xf32>
        return
      }
    }
  }
  stream.executable public @ex2 {
  }
}
"""

SAMPLES["host"] = """\
#map = affine_map<(d0) -> (d0)>
!buffer = !hal.buffer_view
module @host attributes {stream.affinity.default = #hal.device.affinity<@dev0>} {
  util.global private @device = #hal.device.target<"local"> : !hal.device
  util.global private mutable @counter : index
  util.global public @weights = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  util.global private @timepoint = #stream.timepoint<immediate> : !stream.timepoint
  util.initializer {
    %c0 = arith.constant 0 : index
    util.return
  }
  func.func private @declared(tensor<4xf32>, index) -> tensor<4xf32>
  util.func private @callee(%arg0: index {iree.abi.note = "first"}) -> (index {iree.abi.result}) {
    util.return %arg0 : index
  }
  util.func public @caller(%arg0: index, %arg1: !buffer) -> !buffer attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @caller"}} {
    %0 = util.call @callee(%arg0) : (index) -> index
    %1 = func.call @declared2(%0) {note = #map} : (index) -> i32
    %2:2 = util.optimization_barrier %0, %arg1 : index, !buffer
    util.return %arg1 : !buffer
  }
  func.func @declared2(%arg0: index) -> i32 attributes {stream.affinity = #hal.device.affinity<@dev1, [0, 1]>} {
    %c7_i32 = arith.constant 7 : i32
    return %c7_i32 : i32
  }
}
"""

# util/hal/cf host ops around Stream IR, checked with iree-opt (IREE 3.13) to print identically up
# to value names (util.assume.int prints a trailing blank after its op name and each list but the
# last: `~` marks them here).
SAMPLES["util_hal"] = """\
module {
  util.global private mutable @state : !stream.resource<variable>
  util.global private @constant__timepoint = #stream.timepoint<immediate> : !stream.timepoint
  util.global private mutable @state__timepoint = #stream.timepoint<immediate> : !stream.timepoint
  util.func public @host_ops(%arg0: !hal.buffer_view, %arg1: !hal.fence, %n: index, %buffer: !util.buffer) -> (!hal.fence, index) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c0_i64 = arith.constant 0 : i64
    %c-1_i32 = arith.constant -1 : i32
    %null = util.null : !hal.fence
    %state = util.global.load @state : !stream.resource<variable>
    %constant__timepoint = util.global.load immutable @constant__timepoint : !stream.timepoint
    util.global.store %state, @state : !stream.resource<variable>
    util.global.store %constant__timepoint, @state__timepoint : !stream.timepoint
    %aligned = util.align %n, %c64 : index
    %one = util.assume.int %n<umin = 0, umax = 1024> : index
    %two:2 = util.assume.int~
        %n[<umin = 64, umax = 64, udiv = 64>, <umin = 128, umax = 128, udiv = 128>],~
        %aligned<udiv = 64>
      : index, index
    %dim = hal.buffer_view.dim<%arg0 : !hal.buffer_view>[0] : index
    %ok = arith.cmpi sgt, %dim, %c0 : index
    cf.assert %ok, "Expected dim size > 0."
    %cst = arith.constant 1.000000e+00 : f32
    %gt = arith.cmpf ugt, %cst, %cst : f32
    %device_count = hal.devices.count : index
    %device_0 = hal.devices.get %c0 : !hal.device
    %fence = hal.fence.create device(%device_0 : !hal.device) flags("None") : !hal.fence
    %fence_0 = hal.fence.join at([%fence, %arg1]) flags("None") -> !hal.fence
    %status = hal.fence.query<%fence_0 : !hal.fence> : i32
    hal.fence.signal<%fence : !hal.fence>
    hal.fence.fail<%fence : !hal.fence> status(%status)
    %status_1 = hal.fence.await until([%fence, %arg1]) timeout_millis(%c-1_i32) flags("None") : i32
    %did_map, %result = stream.resource.try_map on(#hal.device.affinity<@dev0>) %buffer[%c0] : !util.buffer -> i1, !stream.resource<constant>{%c64}
    %file = stream.file.constant on(#hal.device.affinity<@dev0>) %buffer[%c0 for %c64] : !util.buffer{%c64} -> !stream.file
    %0 = stream.file.read on(#hal.device.affinity<@dev0>) await(%constant__timepoint) => %file[%c0_i64], %state[%c0], %c64 : !stream.file -> !stream.resource<variable>{%c64} => !stream.timepoint
    %1 = stream.file.write : %state[%c0], %file[%c0_i64], %c64 : !stream.resource<variable>{%c64} -> !stream.file => !stream.timepoint
    util.return %null, %device_count : !hal.fence, index
  }
}
""".replace("~\n", " \n")

SAMPLES["arith_hal"] = """\
module {
  util.func public @arith_ops(%arg0: index, %arg1: i32, %arg2: f32, %arg3: i1, %arg4: !hal.buffer_view) -> index {
    %c4 = arith.constant 4 : index
    %c-1_i64 = arith.constant -1 : i64
    %true = arith.constant true
    %cst = arith.constant 0x7FC00000 : f32
    %cst_0 = arith.constant 1.500000e+00 : f64
    %cst_1 = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<4xf16>
    %0 = arith.addi %arg0, %c4 : index
    %1 = arith.subi %0, %c4 : index
    %2 = arith.muli %1, %c4 : index
    %3 = arith.divui %2, %c4 : index
    %4 = arith.divsi %3, %c4 : index
    %5 = arith.ceildivui %4, %c4 : index
    %6 = arith.ceildivsi %5, %c4 : index
    %7 = arith.floordivsi %6, %c4 : index
    %8 = arith.remui %7, %c4 : index
    %9 = arith.remsi %8, %c4 : index
    %10 = arith.andi %9, %c4 : index
    %11 = arith.ori %10, %c4 : index
    %12 = arith.xori %11, %c4 : index
    %13 = arith.shli %12, %c4 : index
    %14 = arith.shrui %13, %c4 : index
    %15 = arith.shrsi %14, %c4 : index
    %16 = arith.maxui %15, %c4 : index
    %17 = arith.maxsi %16, %c4 : index
    %18 = arith.minui %17, %c4 : index
    %19 = arith.minsi %18, %c4 : index
    %20 = arith.addi %19, %c4 overflow<nsw> : index
    %21 = arith.addf %arg2, %arg2 : f32
    %22 = arith.subf %21, %arg2 : f32
    %23 = arith.mulf %22, %arg2 fastmath<fast> : f32
    %24 = arith.divf %23, %arg2 : f32
    %25 = arith.maximumf %24, %arg2 : f32
    %26 = arith.minimumf %25, %arg2 : f32
    %27 = arith.maxnumf %26, %arg2 : f32
    %28 = arith.minnumf %27, %arg2 : f32
    %29 = arith.index_cast %20 : index to i32
    %30 = arith.index_castui %29 : i32 to index
    %31 = arith.extui %arg3 : i1 to i32
    %32 = arith.extsi %31 : i32 to i64
    %33 = arith.trunci %32 : i64 to i8
    %34 = arith.bitcast %arg1 : i32 to f32
    %35 = arith.sitofp %arg1 : i32 to f32
    %36 = arith.uitofp %arg1 : i32 to f64
    %37 = arith.fptosi %28 : f32 to i32
    %38 = arith.fptoui %28 : f32 to i32
    %39 = arith.extf %28 : f32 to f64
    %40 = arith.truncf %39 : f64 to f16
    %41 = arith.select %arg3, %30, %c4 : index
    %element_type_f32 = hal.element_type<f32> : i32
    %dense_row_major = hal.encoding_type<dense_row_major> : i32
    hal.buffer_view.assert<%arg4 : !hal.buffer_view> message("input0") shape([%c4, %41]) type(%element_type_f32) encoding(%dense_row_major)
    util.return %41 : index
  }
}
"""

# The complex ops a host function makes a complex splat or fill value with (IREE's spelling).
SAMPLES["complex"] = """\
module {
  util.func public @complex_pattern(%arg0: f32, %arg1: f32, %arg2: i64) -> (i64, complex<f32>, complex<f32>) {
    %cst = complex.constant [3.000000e+00 : f32, 1.000000e+01 : f32] : complex<f32>
    %0 = complex.bitcast %cst : complex<f32> to i64
    %1 = complex.create %arg0, %arg1 : complex<f32>
    %2 = complex.bitcast %arg2 : i64 to complex<f32>
    util.return %0, %1, %2 : i64, complex<f32>, complex<f32>
  }
}
"""

# Written in pretty form with ops that have no pretty syntax in streamproof (unknown dialects),
# which print in generic form inside a pretty module, as MLIR does for unregistered ops. Covers
# multi-block functions, successors with block arguments, `scf` regions, properties, opaque
# dialect types and attributes, `loc(...)` trailers, location aliases and strings with escapes.
SAMPLES["generic_constructs"] = """\
module {
  func.func @control_flow(%arg0: i1, %arg1: index, %arg2: tensor<4xf32>) -> index {
    %c1 = arith.constant 1 : index
    %0 = scf.if %arg0 -> (index) {
      %5 = arith.addi %arg1, %c1 : index
      scf.yield %5 : index
    } else {
      scf.yield %arg1 : index
    }
    %1 = scf.for %arg3 = %c1 to %arg1 step %c1 iter_args(%arg4 = %0) -> (index) {
      %5 = arith.muli %arg3, %arg4 : index
      scf.yield %5 : index
    }
    cf.cond_br %arg0, ^bb1(%1 : index), ^bb2(%0 : index)
  ^bb1(%2: index):  // pred: ^bb0
    cf.br ^bb2(%2 : index)
  ^bb2(%3: index):  // 2 preds: ^bb0, ^bb1
    %4:2 = "test.multi"(%arg2) <{note = "tab\\09quote\\22 back\\\\slash \\E2\\82\\AC"}> {extra = #test.opaque<{nested = [1, 2]}>, flag} : (tensor<4xf32>) -> (!test.type<"x">, index) loc(#loc)
    "test.use"(%4#0, %4#1) : (!test.type<"x">, index) -> () loc("file.mlir":3:4)
    return %3 : index
  }
}
#loc = loc("model.py":12:3)
"""

# Host control flow in the pretty syntax of MLIR (stream.dialect.scf_cf), exactly as iree-opt 3.13
# printed it: scf.for with and without iter_args, with an i32 induction variable (`step %s  :
# i32`), scf.if with and without results, scf.while, scf.execute_region, cf.cond_br and cf.br
# with block arguments.
SAMPLES["scf_cf"] = """\
module {
  util.func public @f(%arg0: i1, %arg1: index, %arg2: i32, %arg3: i32) -> (i32, index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %0:2 = scf.for %arg4 = %c0 to %arg1 step %c1 iter_args(%arg5 = %arg2, %arg6 = %c0) -> (i32, index) {
      %6 = arith.addi %arg5, %arg2 : i32
      scf.yield %6, %arg4 : i32, index
    }
    scf.for %arg4 = %c0 to %arg1 step %c1 {
      "test.op"() : () -> ()
    }
    scf.for unsigned %arg4 = %arg2 to %arg2 step %arg2  : i32 {
      "test.op"() : () -> ()
    }
    %1 = scf.if %arg0 -> (i32) {
      scf.yield %arg2 : i32
    } else {
      scf.yield %arg3 : i32
    }
    scf.if %arg0 {
      "test.op"() : () -> ()
    }
    %2 = scf.while (%arg4 = %arg2) : (i32) -> i32 {
      %6 = arith.cmpi slt, %arg4, %arg3 : i32
      scf.condition(%6) %arg4 : i32
    } do {
    ^bb0(%arg4: i32):
      scf.yield %arg4 : i32
    }
    %3 = scf.execute_region -> i32 {
      scf.yield %arg2 : i32
    }
    cf.cond_br %arg0, ^bb1(%arg2 : i32), ^bb2
  ^bb1(%4: i32):  // pred: ^bb0
    cf.br ^bb2
  ^bb2:  // 2 preds: ^bb0, ^bb1
    cf.cond_br %arg0, ^bb3(%c0 : index), ^bb4
  ^bb3(%5: index):  // pred: ^bb2
    util.return %1, %5 : i32, index
  ^bb4:  // pred: ^bb2
    util.return %2, %arg1 : i32, index
  }
}
"""

# Switches in MLIR's pretty syntax, exactly as iree-opt 3.13 printed them: scf.index_switch with
# and without results (a space after the types, spelled `\x20` here; a region holding only an
# empty `scf.yield` prints as `{}`), cf.switch with cases and with a default only (`]` on the default's line).
SAMPLES["scf_cf_switches"] = """\
module {
  util.func public @f(%arg0: index, %arg1: i32) {
    %c0 = arith.constant 0 : index
    scf.index_switch %arg0\x20
    case 2 {
      "test.op"() : () -> ()
      scf.yield
    }
    default {
    }
    %0:2 = scf.index_switch %arg0 -> i32, index\x20
    case 2 {
      scf.yield %arg1, %arg0 : i32, index
    }
    case 5 {
      scf.yield %arg1, %c0 : i32, index
    }
    default {
      scf.yield %arg1, %arg0 : i32, index
    }
    cf.switch %arg1 : i32, [
      default: ^bb1,
      1: ^bb2(%arg0 : index)
    ]
  ^bb1:  // pred: ^bb0
    cf.switch %arg1 : i32, [
      default: ^bb2(%c0 : index)]
  ^bb2(%1: index):  // 2 preds: ^bb0, ^bb1
    util.return
  }
}
"""

# IREE 3.13's parameter ops exactly as its iree-opt printed them (tests/data/iree_parameters/).
SAMPLES["async_parameters"] = """\
module {
  util.func public @params(%arg0: !stream.resource<transient>, %arg1: !stream.timepoint) -> (!stream.resource<constant>, !stream.resource<transient>, !stream.timepoint) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c0_i64 = arith.constant 0 : i64
    %c8_i64 = arith.constant 8 : i64
    %buffer_cst = util.buffer.constant : !util.buffer = "model"
    %buffer_cst_0 = util.buffer.constant : !util.buffer = "w0"
    %buffer_cst_1 = util.buffer.constant : !util.buffer = "w1"
    %result, %result_timepoint = stream.async.parameter.load %buffer_cst::%buffer_cst_0[%c0_i64] : !stream.resource<constant>{%c64} => !stream.timepoint
    %result_2, %result_timepoint_3 = stream.async.parameter.load on(#hal.device.promise<@dev>) await(%arg1) %buffer_cst_0[%c8_i64] : !stream.resource<constant>{%c16} => !stream.timepoint
    %result_4, %result_timepoint_5 = stream.async.parameter.read await(%result_timepoint) %buffer_cst::%buffer_cst_0[%c0_i64] -> %arg0[%c0 to %c16 for %c16] : !stream.resource<transient>{%c64} => !stream.timepoint
    %result_6, %result_timepoint_7 = stream.async.parameter.write await(%result_timepoint_5) %result_4[%c0 to %c16 for %c16] -> %buffer_cst::%buffer_cst_1[%c8_i64] : !stream.resource<transient>{%c64} => !stream.timepoint
    %result_8, %result_timepoint_9 = stream.async.parameter.gather await(%result_timepoint_7) {
      %buffer_cst::%buffer_cst_0[%c0_i64] -> %result_6[%c0 to %c16 for %c16] : !stream.resource<transient>{%c64},
      %buffer_cst::%buffer_cst_1[%c8_i64] -> %result_6[%c32 to %c64 for %c32] : !stream.resource<transient>{%c64}
    } : !stream.resource<transient> => !stream.timepoint
    %result_10, %result_timepoint_11 = stream.async.parameter.scatter await(%result_timepoint_9) {
      %result_8[%c0 to %c16 for %c16] : !stream.resource<transient>{%c64} -> %buffer_cst::%buffer_cst_0[%c0_i64],
      %result_8[%c32 to %c64 for %c32] : !stream.resource<transient>{%c64} -> %buffer_cst::%buffer_cst_1[%c8_i64]
    } : !stream.resource<transient> => !stream.timepoint
    util.return %result, %result_10, %result_timepoint_11 : !stream.resource<constant>, !stream.resource<transient>, !stream.timepoint
  }
}
"""

SAMPLES["cmd_parameters"] = """\
module {
  util.func public @params(%arg0: !stream.resource<transient>, %arg1: !stream.timepoint) -> (!stream.resource<constant>, !stream.timepoint) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c0_i64 = arith.constant 0 : i64
    %c8_i64 = arith.constant 8 : i64
    %buffer_cst = util.buffer.constant : !util.buffer = "model"
    %buffer_cst_0 = util.buffer.constant : !util.buffer = "w0"
    %buffer_cst_1 = util.buffer.constant : !util.buffer = "w1"
    %results:2, %result_timepoint = stream.cmd.parameter.load on(#hal.device.promise<@dev>) await(%arg1) => {
      %buffer_cst::%buffer_cst_0[%c0_i64] : !stream.resource<constant>{%c64},
      %buffer_cst::%buffer_cst_1[%c8_i64] : !stream.resource<constant>{%c16}
    } => !stream.timepoint
    %0 = stream.cmd.parameter.read await(%result_timepoint) => %buffer_cst::%buffer_cst_0[%c0_i64] -> %arg0[%c0 for %c16] : !stream.resource<transient>{%c64} => !stream.timepoint
    %1 = stream.cmd.parameter.write await(%0) => %arg0[%c0 for %c16] : !stream.resource<transient>{%c64} -> %buffer_cst_1[%c8_i64] => !stream.timepoint
    %2 = stream.cmd.parameter.gather await(%1) => {
      %buffer_cst::%buffer_cst_0[%c0_i64] -> %arg0[%c0 for %c16] : !stream.resource<transient>{%c64},
      %buffer_cst::%buffer_cst_1[%c8_i64] -> %arg0[%c32 for %c32] : !stream.resource<transient>{%c64}
    } => !stream.timepoint
    %3 = stream.cmd.parameter.scatter await(%2) => {
      %arg0[%c0 for %c16] : !stream.resource<transient>{%c64} -> %buffer_cst::%buffer_cst_0[%c0_i64],
      %arg0[%c32 for %c32] : !stream.resource<transient>{%c64} -> %buffer_cst::%buffer_cst_1[%c8_i64]
    } => !stream.timepoint
    %4 = stream.cmd.parameter.read %buffer_cst_0[%c0_i64] -> %arg0[%c0 for %c16] : !stream.resource<transient>{%c64} => !stream.timepoint
    %5 = stream.timepoint.join max(%3, %4) => !stream.timepoint
    util.return %results#0, %5 : !stream.resource<constant>, !stream.timepoint
  }
}
"""

# Declarations of stream-level functions (bodies are not printed by IREE 3.13 either).
SAMPLES["stream_funcs"] = """\
module {
  stream.async.func private @inplace(%arg0: !stream.resource<*>, %arg1: index) -> %arg0
  stream.cmd.func private @ranged(%arg0[%arg1 for %arg2]: !stream.resource<*>, %arg3: i32) -> (i32 {x.y}, i64)
}
"""

"""Programs with host control flow for tests/runtime/test_control_flow.py, as MLIR text.

Each `Pair` is an input-level program (the meaning, run by the reference interpreter) and a
cmd-level program written by hand in the shape IREE's stage-07/10 output has (run by the
executor), with the same function name and arguments. `scf` ops and branches are in MLIR's generic
form (streamproof reads only that for them); `$ON` stands for `on(#hal.device.affinity<@dev0>)`,
`$EXT`/`$TRA`/`$STG` for `!stream.resource<external|transient|staging>`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Pair", "expand", "COUNT", "NESTED", "PICK", "RNN", "SIGN", "SWITCH", "WHILE", "REGION", "CARRIED_AWAIT", "ADD_LOOP_SOURCE",
           "add_loop", "carried_await", "INITIALIZER"]


def expand(text: str) -> str:
    return (text.replace("$ON", "on(#hal.device.affinity<@dev0>)").replace("$EXT", "!stream.resource<external>")
            .replace("$TRA", "!stream.resource<transient>").replace("$STG", "!stream.resource<staging>"))


@dataclass(frozen=True)
class Pair:
    name: str
    source: str  # input level
    cmd: str  # cmd level


# acc = y; for i in range(lb, ub, step): acc += x * i. Per iteration: an alloca awaiting the carried
# timepoint, an execute (scale into the transient, add into the carried resource), a dealloca;
# the loop yields the resource and the join of the execute and the dealloca.
COUNT = Pair("count", """
func.func @count(%x: tensor<4xf32>, %y: tensor<4xf32>, %lb: index, %ub: index, %step: index) -> tensor<4xf32> {
  %r = "scf.for"(%lb, %ub, %step, %y) ({
  ^bb0(%i: index, %acc: tensor<4xf32>):
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %t = flow.dispatch @scale(%x, %f) : (tensor<4xf32>, f32) -> tensor<4xf32>
    %s = flow.dispatch @add(%acc, %t) : (tensor<4xf32>, tensor<4xf32>) -> %acc
    "scf.yield"(%s) : (tensor<4xf32>) -> ()
  }) : (index, index, index, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
""", expand("""
util.func public @count(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %lb: index, %ub: index, %step: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %x = stream.tensor.import $ON %arg0 : !hal.buffer_view -> tensor<4xf32> in $EXT{%c16}
  %y = stream.tensor.import $ON consume %arg1 : !hal.buffer_view -> tensor<4xf32> in $EXT{%c16}
  %t0 = stream.timepoint.immediate => !stream.timepoint
  %r:2 = "scf.for"(%lb, %ub, %step, %y, %t0) ({
  ^bb0(%i: index, %acc: $EXT, %t: !stream.timepoint):
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %tmp, %ta = stream.resource.alloca uninitialized $ON await(%t) => $TRA{%c16} => !stream.timepoint
    %e = stream.cmd.execute $ON await(%ta) => with(%x as %a: $EXT{%c16}, %acc as %b: $EXT{%c16}, %tmp as %s: $TRA{%c16}) {
      stream.cmd.dispatch @scale(%f : f32) {
        ro %a[%c0 for %c16] : $EXT{%c16},
        wo %s[%c0 for %c16] : $TRA{%c16}
      } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
      stream.cmd.dispatch @add {
        rw %b[%c0 for %c16] : $EXT{%c16},
        ro %s[%c0 for %c16] : $TRA{%c16}
      } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
    } => !stream.timepoint
    %d = stream.resource.dealloca $ON await(%e) => %tmp : $TRA{%c16} => !stream.timepoint
    %j = stream.timepoint.join max(%e, %d) => !stream.timepoint
    "scf.yield"(%acc, %j) : ($EXT, !stream.timepoint) -> ()
  }) : (index, index, index, $EXT, !stream.timepoint) -> ($EXT, !stream.timepoint)
  %w = stream.timepoint.await %r#1 => %r#0 : $EXT{%c16}
  %o = stream.tensor.export $ON %w : tensor<4xf32> in $EXT{%c16} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
"""))


def add_loop(await_carried: bool = True) -> str:
    """acc = y; n times acc += x: each iteration awaits the carried timepoint (or, racy, does not)."""
    waits = "await(%t) => " if await_carried else ""
    return expand(f"""
util.func public @loop(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %n: index) -> !hal.buffer_view {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %x = stream.tensor.import $ON %arg0 : !hal.buffer_view -> tensor<4xf32> in $EXT{{%c16}}
  %y = stream.tensor.import $ON consume %arg1 : !hal.buffer_view -> tensor<4xf32> in $EXT{{%c16}}
  %t0 = stream.timepoint.immediate => !stream.timepoint
  %r:2 = "scf.for"(%c0, %n, %c1, %y, %t0) ({{
  ^bb0(%i: index, %a: $EXT, %t: !stream.timepoint):
    %t2 = stream.cmd.execute $ON {waits}with(%a as %b: $EXT{{%c16}}, %x as %xx: $EXT{{%c16}}) {{
      stream.cmd.dispatch @add {{
        rw %b[%c0 for %c16] : $EXT{{%c16}},
        ro %xx[%c0 for %c16] : $EXT{{%c16}}
      }} attributes {{streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}}
    }} => !stream.timepoint
    "scf.yield"(%a, %t2) : ($EXT, !stream.timepoint) -> ()
  }}) : (index, index, index, $EXT, !stream.timepoint) -> ($EXT, !stream.timepoint)
  %done = stream.timepoint.await %r#1 => %r#0 : $EXT{{%c16}}
  %out = stream.tensor.export $ON %done : tensor<4xf32> in $EXT{{%c16}} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}}
""")


ADD_LOOP_SOURCE = """
func.func @loop(%x: tensor<4xf32>, %y: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = "scf.for"(%c0, %n, %c1, %y) ({
  ^bb0(%i: index, %acc: tensor<4xf32>):
    %s = flow.dispatch @add(%acc, %x) : (tensor<4xf32>, tensor<4xf32>) -> %acc
    "scf.yield"(%s) : (tensor<4xf32>) -> ()
  }) : (index, index, index, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def carried_await(yield_awaited: bool = True) -> str:
    """acc = y; n times acc += x, ordered only by what the carried resource carries: each iteration's
    execute awaits nothing itself, uses the resource the previous iteration's (pure) await gave,
    and yields its own await's result - or, racy, the resource it got (which carries nothing)."""
    yielded = "%a2" if yield_awaited else "%a"
    return expand(f"""
util.func public @loop(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %n: index) -> !hal.buffer_view {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %x = stream.tensor.import $ON %arg0 : !hal.buffer_view -> tensor<4xf32> in $EXT{{%c16}}
  %y = stream.tensor.import $ON consume %arg1 : !hal.buffer_view -> tensor<4xf32> in $EXT{{%c16}}
  %r = "scf.for"(%c0, %n, %c1, %y) ({{
  ^bb0(%i: index, %a: $EXT):
    %e = stream.cmd.execute $ON with(%a as %b: $EXT{{%c16}}, %x as %xx: $EXT{{%c16}}) {{
      stream.cmd.dispatch @add {{
        rw %b[%c0 for %c16] : $EXT{{%c16}},
        ro %xx[%c0 for %c16] : $EXT{{%c16}}
      }} attributes {{streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}}
    }} => !stream.timepoint
    %a2 = stream.timepoint.await %e => %a : $EXT{{%c16}}
    "scf.yield"({yielded}) : ($EXT) -> ()
  }}) : (index, index, index, $EXT) -> $EXT
  %out = stream.tensor.export $ON %r : tensor<4xf32> in $EXT{{%c16}} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}}
""")


CARRIED_AWAIT = Pair("loop", ADD_LOOP_SOURCE, carried_await())


# acc = y; for i in range(n): acc = acc + x if i is even else acc - x (an scf.if in an scf.for,
# both yielding the timepoint of the execute they launch).
NESTED = Pair("nested", """
func.func @nested(%x: tensor<4xf32>, %y: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = "scf.for"(%c0, %n, %c1, %y) ({
  ^bb0(%i: index, %acc: tensor<4xf32>):
    %rem = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %rem, %c0 : index
    %s = "scf.if"(%even) ({
      %p = flow.dispatch @add(%acc, %x) : (tensor<4xf32>, tensor<4xf32>) -> %acc
      "scf.yield"(%p) : (tensor<4xf32>) -> ()
    }, {
      %q = flow.dispatch @sub(%acc, %x) : (tensor<4xf32>, tensor<4xf32>) -> %acc
      "scf.yield"(%q) : (tensor<4xf32>) -> ()
    }) : (i1) -> tensor<4xf32>
    "scf.yield"(%s) : (tensor<4xf32>) -> ()
  }) : (index, index, index, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
""", expand("""
util.func public @nested(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %x = stream.tensor.import $ON %arg0 : !hal.buffer_view -> tensor<4xf32> in $EXT{%c16}
  %y = stream.tensor.import $ON consume %arg1 : !hal.buffer_view -> tensor<4xf32> in $EXT{%c16}
  %t0 = stream.timepoint.immediate => !stream.timepoint
  %r:2 = "scf.for"(%c0, %n, %c1, %y, %t0) ({
  ^bb0(%i: index, %acc: $EXT, %t: !stream.timepoint):
    %rem = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %rem, %c0 : index
    %tn = "scf.if"(%even) ({
      %e1 = stream.cmd.execute $ON await(%t) => with(%acc as %b: $EXT{%c16}, %x as %xx: $EXT{%c16}) {
        stream.cmd.dispatch @add {
          rw %b[%c0 for %c16] : $EXT{%c16},
          ro %xx[%c0 for %c16] : $EXT{%c16}
        } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
      } => !stream.timepoint
      "scf.yield"(%e1) : (!stream.timepoint) -> ()
    }, {
      %e2 = stream.cmd.execute $ON await(%t) => with(%acc as %b: $EXT{%c16}, %x as %xx: $EXT{%c16}) {
        stream.cmd.dispatch @sub {
          rw %b[%c0 for %c16] : $EXT{%c16},
          ro %xx[%c0 for %c16] : $EXT{%c16}
        } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
      } => !stream.timepoint
      "scf.yield"(%e2) : (!stream.timepoint) -> ()
    }) : (i1) -> !stream.timepoint
    "scf.yield"(%acc, %tn) : ($EXT, !stream.timepoint) -> ()
  }) : (index, index, index, $EXT, !stream.timepoint) -> ($EXT, !stream.timepoint)
  %w = stream.timepoint.await %r#1 => %r#0 : $EXT{%c16}
  %o = stream.tensor.export $ON %w : tensor<4xf32> in $EXT{%c16} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
"""))


def _unary(name: str, kernel: str, src: str, dst: str, wait: str = "%ta") -> str:
    """One execute on @dev0 applying `kernel` to 4 floats, `src` into `dst`, after `wait`."""
    return f"""%{name} = stream.cmd.execute $ON await({wait}) => with({src} as %a: $EXT{{%c16}}, {dst} as %o: $EXT{{%c16}}) {{
        stream.cmd.dispatch @{kernel} {{
          ro %a[%c0 for %c16] : $EXT{{%c16}},
          wo %o[%c0 for %c16] : $EXT{{%c16}}
        }} attributes {{streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}}
      }} => !stream.timepoint"""


# relu(x) if n < 3 else -x: an scf.if on an index comparison, yielding the timepoint of its branch.
PICK = Pair("pick", """
func.func @pick(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c3 = arith.constant 3 : index
  %b = arith.cmpi slt, %n, %c3 : index
  %r = "scf.if"(%b) ({
    %p = flow.dispatch @relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%p) : (tensor<4xf32>) -> ()
  }, {
    %q = flow.dispatch @neg(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%q) : (tensor<4xf32>) -> ()
  }) : (i1) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
""", expand(f"""
util.func public @pick(%arg0: !hal.buffer_view, %n: index) -> !hal.buffer_view {{
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %x = stream.tensor.import $ON %arg0 : !hal.buffer_view -> tensor<4xf32> in $EXT{{%c16}}
  %out, %ta = stream.resource.alloca uninitialized $ON : $EXT{{%c16}} => !stream.timepoint
  %b = arith.cmpi slt, %n, %c3 : index
  %r = "scf.if"(%b) ({{
      {_unary("e1", "relu", "%x", "%out")}
      "scf.yield"(%e1) : (!stream.timepoint) -> ()
  }}, {{
      {_unary("e2", "neg", "%x", "%out")}
      "scf.yield"(%e2) : (!stream.timepoint) -> ()
  }}) : (i1) -> !stream.timepoint
  %w = stream.timepoint.await %r => %out : $EXT{{%c16}}
  %o = stream.tensor.export $ON %w : tensor<4xf32> in $EXT{{%c16}} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}}
"""))


# IREE's stage-10 shape of an ONNX Loop with a run-time trip count: the count is a device tensor
# copied to staging, awaited and loaded on the host; the loop is a back-edge between blocks carrying
# (index, resource, timepoint); each iteration allocates its result and a scratch (freed after it):
# h = h0; repeat count times: h = tanh(h @ w).
RNN = Pair("rnn", """
func.func @rnn(%count: tensor<i64>, %h0: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n64 = flow.tensor.load %count : tensor<i64>
  %n = arith.index_cast %n64 : i64 to index
  "cf.br"(%c0, %h0)[^bb1] : (index, tensor<4x4xf32>) -> ()
^bb1(%i: index, %h: tensor<4x4xf32>):
  %b = arith.cmpi slt, %i, %n : index
  "cf.cond_br"(%b)[^bb2, ^bb3] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb2:
  %m = flow.dispatch @matmul(%h, %w) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = flow.dispatch @tanh(%m) : (tensor<4x4xf32>) -> %m
  %i1 = arith.addi %i, %c1 : index
  "cf.br"(%i1, %t)[^bb1] : (index, tensor<4x4xf32>) -> ()
^bb3:
  return %h : tensor<4x4xf32>
}
""", expand("""
util.func public @rnn(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %count = stream.tensor.import $ON %arg0 : !hal.buffer_view -> tensor<i64> in $EXT{%c8}
  %h0 = stream.tensor.import $ON %arg1 : !hal.buffer_view -> tensor<4x4xf32> in $EXT{%c64}
  %w = stream.tensor.import $ON %arg2 : !hal.buffer_view -> tensor<4x4xf32> in $EXT{%c64}
  %st, %stt = stream.resource.alloca uninitialized $ON : $STG{%c8} => !stream.timepoint
  %ce = stream.cmd.execute $ON await(%stt) => with(%count as %a: $EXT{%c8}, %st as %s: $STG{%c8}) {
    stream.cmd.copy %a[%c0], %s[%c0], %c8 : $EXT{%c8} -> $STG{%c8}
    stream.cmd.flush %s[%c0 for %c8] : $STG{%c8}
  } => !stream.timepoint
  %stw = stream.timepoint.await %ce => %st : $STG{%c8}
  %n64 = stream.resource.load %stw[%c0] : $STG{%c8} -> i64
  %n = arith.index_cast %n64 : i64 to index
  %std = stream.resource.dealloca $ON await(%ce) => %stw : $STG{%c8} => !stream.timepoint
  "cf.br"(%c0, %h0, %std)[^bb1] : (index, $EXT, !stream.timepoint) -> ()
^bb1(%i: index, %h: $EXT, %t: !stream.timepoint):
  %b = arith.cmpi slt, %i, %n : index
  "cf.cond_br"(%b)[^bb2, ^bb3] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb2:
  %out, %to = stream.resource.alloca uninitialized $ON await(%t) => $EXT{%c64} => !stream.timepoint
  %tmp, %tt = stream.resource.alloca uninitialized $ON await(%t) => $TRA{%c64} => !stream.timepoint
  %ready = stream.timepoint.join max(%to, %tt) => !stream.timepoint
  %e = stream.cmd.execute $ON await(%ready) => with(%h as %a: $EXT{%c64}, %w as %b: $EXT{%c64}, %out as %o: $EXT{%c64}, %tmp as %s: $TRA{%c64}) {
    stream.cmd.copy %a[%c0], %s[%c0], %c64 : $EXT{%c64} -> $TRA{%c64}
    stream.cmd.dispatch @matmul {
      ro %s[%c0 for %c64] : $TRA{%c64},
      ro %b[%c0 for %c64] : $EXT{%c64},
      wo %o[%c0 for %c64] : $EXT{%c64}
    } attributes {streamproof.binding_types = [tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>]}
    stream.cmd.dispatch @tanh {
      rw %o[%c0 for %c64] : $EXT{%c64}
    } attributes {streamproof.binding_types = [tensor<4x4xf32>]}
  } => !stream.timepoint
  %d = stream.resource.dealloca $ON await(%e) => %tmp : $TRA{%c64} => !stream.timepoint
  %i1 = arith.addi %i, %c1 : index
  "cf.br"(%i1, %out, %d)[^bb1] : (index, $EXT, !stream.timepoint) -> ()
^bb3:
  %hw = stream.timepoint.await %t => %h : $EXT{%c64}
  %r = stream.tensor.export $ON %hw : tensor<4x4xf32> in $EXT{%c64} -> !hal.buffer_view
  util.return %r : !hal.buffer_view
}
"""))


# 2 * x if sum(x) > 0 else -x: the sum is computed on the device, read back (staging, await,
# load) and compared on the host; the cf.cond_br passes each branch its own operands (the
# segments 1, 2, 1), and both branches pass (resource, timepoint) to a join block.
SIGN = Pair("sign", """
func.func @sign(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %s = flow.dispatch @reduce_sum(%x) : (tensor<4xf32>) -> tensor<f32>
  %v = flow.tensor.load %s : tensor<f32>
  %pos = arith.cmpf ogt, %v, %zero : f32
  "cf.cond_br"(%pos)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb1:
  %d = flow.dispatch @scale(%x, %two) : (tensor<4xf32>, f32) -> tensor<4xf32>
  "cf.br"(%d)[^bb3] : (tensor<4xf32>) -> ()
^bb2:
  %n = flow.dispatch @neg(%x) : (tensor<4xf32>) -> tensor<4xf32>
  "cf.br"(%n)[^bb3] : (tensor<4xf32>) -> ()
^bb3(%r: tensor<4xf32>):
  return %r : tensor<4xf32>
}
""", expand("""
util.func public @sign(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %x = stream.tensor.import $ON %arg0 : !hal.buffer_view -> tensor<4xf32> in $EXT{%c16}
  %st, %stt = stream.resource.alloca uninitialized $ON : $STG{%c4} => !stream.timepoint
  %e = stream.cmd.execute $ON await(%stt) => with(%x as %a: $EXT{%c16}, %st as %s: $STG{%c4}) {
    stream.cmd.dispatch @reduce_sum {
      ro %a[%c0 for %c16] : $EXT{%c16},
      wo %s[%c0 for %c4] : $STG{%c4}
    } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<f32>]}
  } => !stream.timepoint
  %stw = stream.timepoint.await %e => %st : $STG{%c4}
  %v = stream.resource.load %stw[%c0] : $STG{%c4} -> f32
  %freed = stream.resource.dealloca $ON await(%e) => %stw : $STG{%c4} => !stream.timepoint
  %pos = arith.cmpf ogt, %v, %zero : f32
  %out, %to = stream.resource.alloca uninitialized $ON : $EXT{%c16} => !stream.timepoint
  "cf.cond_br"(%pos, %out, %to, %x)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 2, 1>}> : (i1, $EXT, !stream.timepoint, $EXT) -> ()
^bb1(%o1: $EXT, %w1: !stream.timepoint):
  %e1 = stream.cmd.execute $ON await(%w1) => with(%x as %a: $EXT{%c16}, %o1 as %o: $EXT{%c16}) {
    stream.cmd.dispatch @scale(%two : f32) {
      ro %a[%c0 for %c16] : $EXT{%c16},
      wo %o[%c0 for %c16] : $EXT{%c16}
    } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
  } => !stream.timepoint
  "cf.br"(%out, %e1)[^bb3] : ($EXT, !stream.timepoint) -> ()
^bb2(%xn: $EXT):
  """ + _unary("e2", "neg", "%xn", "%out", "%to") + """
  "cf.br"(%out, %e2)[^bb3] : ($EXT, !stream.timepoint) -> ()
^bb3(%r: $EXT, %t: !stream.timepoint):
  %j = stream.timepoint.join max(%t, %freed) => !stream.timepoint
  %w = stream.timepoint.await %j => %r : $EXT{%c16}
  %o = stream.tensor.export $ON %w : tensor<4xf32> in $EXT{%c16} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
"""))


_SWITCH_BRANCH = """
  "cf.switch"(%k, %c1)[^bb1, ^bb2, ^bb3] <{case_operand_segments = array<i32: 0, 0>, case_values = dense<[0, 7]> : vector<2xi32>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (i32, index) -> ()
"""

# relu(x) for k == 0, -x for k == 7, tanh(x) otherwise (the default block takes an argument).
SWITCH = Pair("switch", """
func.func @switch(%x: tensor<4xf32>, %k: i32) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index""" + _SWITCH_BRANCH + """
^bb1(%unused: index):
  %t = flow.dispatch @tanh(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
^bb2:
  %p = flow.dispatch @relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %p : tensor<4xf32>
^bb3:
  %q = flow.dispatch @neg(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %q : tensor<4xf32>
}
""", expand("""
util.func public @switch(%arg0: !hal.buffer_view, %k: i32) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %x = stream.tensor.import $ON %arg0 : !hal.buffer_view -> tensor<4xf32> in $EXT{%c16}
  %out, %ta = stream.resource.alloca uninitialized $ON : $EXT{%c16} => !stream.timepoint""" + _SWITCH_BRANCH + """
^bb1(%unused: index):
  """ + _unary("e0", "tanh", "%x", "%out") + """
  "cf.br"(%e0)[^bb4] : (!stream.timepoint) -> ()
^bb2:
  """ + _unary("e1", "relu", "%x", "%out") + """
  "cf.br"(%e1)[^bb4] : (!stream.timepoint) -> ()
^bb3:
  """ + _unary("e2", "neg", "%x", "%out") + """
  "cf.br"(%e2)[^bb4] : (!stream.timepoint) -> ()
^bb4(%t: !stream.timepoint):
  %w = stream.timepoint.await %t => %out : $EXT{%c16}
  %o = stream.tensor.export $ON %w : tensor<4xf32> in $EXT{%c16} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
"""))


# acc = y; while sum(acc) < limit: acc += x. The condition is read back from the device in the
# before region of an scf.while, every iteration, through one staging buffer.
WHILE = Pair("grow", """
func.func @grow(%x: tensor<4xf32>, %y: tensor<4xf32>, %limit: f32) -> tensor<4xf32> {
  %r = "scf.while"(%y) ({
  ^bb0(%acc: tensor<4xf32>):
    %s = flow.dispatch @reduce_sum(%acc) : (tensor<4xf32>) -> tensor<f32>
    %v = flow.tensor.load %s : tensor<f32>
    %go = arith.cmpf olt, %v, %limit : f32
    "scf.condition"(%go, %acc) : (i1, tensor<4xf32>) -> ()
  }, {
  ^bb0(%acc: tensor<4xf32>):
    %n = flow.dispatch @add(%acc, %x) : (tensor<4xf32>, tensor<4xf32>) -> %acc
    "scf.yield"(%n) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
""", expand("""
util.func public @grow(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %limit: f32) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %x = stream.tensor.import $ON %arg0 : !hal.buffer_view -> tensor<4xf32> in $EXT{%c16}
  %y = stream.tensor.import $ON consume %arg1 : !hal.buffer_view -> tensor<4xf32> in $EXT{%c16}
  %st = stream.resource.alloc uninitialized $ON : $STG{%c4}
  %t0 = stream.timepoint.immediate => !stream.timepoint
  %r:2 = "scf.while"(%y, %t0) ({
  ^bb0(%acc: $EXT, %t: !stream.timepoint):
    %e = stream.cmd.execute $ON await(%t) => with(%acc as %a: $EXT{%c16}, %st as %s: $STG{%c4}) {
      stream.cmd.dispatch @reduce_sum {
        ro %a[%c0 for %c16] : $EXT{%c16},
        wo %s[%c0 for %c4] : $STG{%c4}
      } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<f32>]}
    } => !stream.timepoint
    %sw = stream.timepoint.await %e => %st : $STG{%c4}
    %v = stream.resource.load %sw[%c0] : $STG{%c4} -> f32
    %go = arith.cmpf olt, %v, %limit : f32
    "scf.condition"(%go, %acc, %e) : (i1, $EXT, !stream.timepoint) -> ()
  }, {
  ^bb0(%acc: $EXT, %t: !stream.timepoint):
    %e = stream.cmd.execute $ON await(%t) => with(%acc as %b: $EXT{%c16}, %x as %xx: $EXT{%c16}) {
      stream.cmd.dispatch @add {
        rw %b[%c0 for %c16] : $EXT{%c16},
        ro %xx[%c0 for %c16] : $EXT{%c16}
      } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
    } => !stream.timepoint
    "scf.yield"(%acc, %e) : ($EXT, !stream.timepoint) -> ()
  }) : ($EXT, !stream.timepoint) -> ($EXT, !stream.timepoint)
  %w = stream.timepoint.await %r#1 => %r#0 : $EXT{%c16}
  %o = stream.tensor.export $ON %w : tensor<4xf32> in $EXT{%c16} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
"""))


# relu(x) if n == 0, else -x: an scf.execute_region whose region has three blocks (a cf.cond_br
# and two blocks yielding the timepoint of their execute).
REGION = Pair("region", """
func.func @region(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %r = "scf.execute_region"() ({
    %z = arith.cmpi eq, %n, %c0 : index
    "cf.cond_br"(%z)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
  ^bb1:
    %p = flow.dispatch @relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%p) : (tensor<4xf32>) -> ()
  ^bb2:
    %q = flow.dispatch @neg(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%q) : (tensor<4xf32>) -> ()
  }) : () -> tensor<4xf32>
  return %r : tensor<4xf32>
}
""", expand("""
util.func public @region(%arg0: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %x = stream.tensor.import $ON %arg0 : !hal.buffer_view -> tensor<4xf32> in $EXT{%c16}
  %out, %ta = stream.resource.alloca uninitialized $ON : $EXT{%c16} => !stream.timepoint
  %r = "scf.execute_region"() ({
    %z = arith.cmpi eq, %n, %c0 : index
    "cf.cond_br"(%z)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
  ^bb1:
    """ + _unary("e1", "relu", "%x", "%out") + """
    "scf.yield"(%e1) : (!stream.timepoint) -> ()
  ^bb2:
    """ + _unary("e2", "neg", "%x", "%out") + """
    "scf.yield"(%e2) : (!stream.timepoint) -> ()
  }) : () -> !stream.timepoint
  %w = stream.timepoint.await %r => %out : $EXT{%c16}
  %o = stream.tensor.export $ON %w : tensor<4xf32> in $EXT{%c16} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
"""))


# x + k, where k is a constant an initializer uploads: which one depends on the global @mode (1
# here), tested on the host in the initializer's entry block; the chosen upload is awaited (`sync`)
# and stored in @k, which the function loads. The input level has the constant inline.
INITIALIZER = Pair("shift", """
func.func @shift(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k = arith.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
  %r = flow.dispatch @add(%x, %k) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
""", expand("""
util.global private @mode = 1 : index
util.global private mutable @k : !stream.resource<constant>
util.initializer {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %mode = util.global.load @mode : index
  %first = arith.cmpi eq, %mode, %c0 : index
  "cf.cond_br"(%first)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^bb1:
  %a:2 = stream.resource.constants $ON : !stream.resource<constant>{%c16} = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> => !stream.timepoint
  "cf.br"(%a#0, %a#1)[^bb3] : (!stream.resource<constant>, !stream.timepoint) -> ()
^bb2:
  %b:2 = stream.resource.constants $ON : !stream.resource<constant>{%c16} = dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32> => !stream.timepoint
  "cf.br"(%b#0, %b#1)[^bb3] : (!stream.resource<constant>, !stream.timepoint) -> ()
^bb3(%r: !stream.resource<constant>, %t: !stream.timepoint):
  %w = stream.timepoint.await sync %t => %r : !stream.resource<constant>{%c16}
  util.global.store %w, @k : !stream.resource<constant>
  util.return
}
util.func public @shift(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %x = stream.tensor.import $ON %arg0 : !hal.buffer_view -> tensor<4xf32> in $EXT{%c16}
  %k = util.global.load @k : !stream.resource<constant>
  %out, %ta = stream.resource.alloca uninitialized $ON : $EXT{%c16} => !stream.timepoint
  %e = stream.cmd.execute $ON await(%ta) => with(%x as %a: $EXT{%c16}, %k as %b: !stream.resource<constant>{%c16}, %out as %o: $EXT{%c16}) {
    stream.cmd.dispatch @add {
      ro %a[%c0 for %c16] : $EXT{%c16},
      ro %b[%c0 for %c16] : !stream.resource<constant>{%c16},
      wo %o[%c0 for %c16] : $EXT{%c16}
    } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>, tensor<4xf32>]}
  } => !stream.timepoint
  %w = stream.timepoint.await %e => %out : $EXT{%c16}
  %o = stream.tensor.export $ON %w : tensor<4xf32> in $EXT{%c16} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
"""))

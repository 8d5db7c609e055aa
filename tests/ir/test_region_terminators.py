"""Which region terminators the pretty form prints, as IREE 3.13's custom printers do.

`printResourceRegion` (async.execute, async.concurrent) prints block terminators, so the empty
`stream.yield` of a result-less region stays; `printExplicitResourceRegion` (cmd.execute) leaves
it out. The expected texts are iree-opt 3.13's print of the same input.
"""

from __future__ import annotations

import stream.ir as ir

ASYNC_NO_RESULTS = """\
util.func public @f(%arg0: !stream.resource<*>, %arg1: index) {
  %0 = stream.async.execute with(%arg0 as %arg2: !stream.resource<*>{%arg1}) {
    stream.async.concurrent with(%arg2 as %arg3: !stream.resource<*>{%arg1}) {
      stream.yield
    }
    stream.yield
  } => !stream.timepoint
  util.return
}
"""

# iree-opt 3.13 prints the input above as this (empty yields kept in both regions).
ASYNC_EXPECTED = """\
module {
  util.func public @f(%arg0: !stream.resource<*>, %arg1: index) {
    %result_timepoint = stream.async.execute with(%arg0 as %arg2: !stream.resource<*>{%arg1}) {
      stream.async.concurrent with(%arg2 as %arg3: !stream.resource<*>{%arg1}) {
        stream.yield
      }
      stream.yield
    } => !stream.timepoint
    util.return
  }
}
"""

CMD = """\
util.func public @g(%arg0: !stream.resource<transient>, %arg1: index) {
  %0 = stream.cmd.execute with(%arg0 as %arg2: !stream.resource<transient>{%arg1}) {
    stream.yield
  } => !stream.timepoint
  util.return
}
"""

CMD_EXPECTED = """\
module {
  util.func public @g(%arg0: !stream.resource<transient>, %arg1: index) {
    %0 = stream.cmd.execute with(%arg0 as %arg2: !stream.resource<transient>{%arg1}) {
    } => !stream.timepoint
    util.return
  }
}
"""


def test_result_less_async_regions_keep_their_empty_yield() -> None:
    printed = ir.print_module(ir.parse_module(ASYNC_NO_RESULTS, "a.mlir"))
    assert printed.rstrip("\n") == ASYNC_EXPECTED.rstrip("\n")
    # and the print reads back to the same text
    assert ir.print_module(ir.parse_module(printed, "b.mlir")) == printed


def test_cmd_execute_leaves_out_its_empty_yield() -> None:
    printed = ir.print_module(ir.parse_module(CMD, "c.mlir"))
    assert printed.rstrip("\n") == CMD_EXPECTED.rstrip("\n")
    assert ir.print_module(ir.parse_module(printed, "d.mlir")) == printed


def test_two_edges_from_one_block_are_two_predecessors() -> None:
    # As iree-opt 3.13 prints it (MLIR's getSinglePredecessor counts edges, not blocks).
    text = """util.func public @f(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb1
^bb1:
  util.return
}
"""
    from stream.ir import parse_module, print_module

    assert "^bb1:  // 2 preds: ^bb0, ^bb0" in print_module(parse_module(text, "t.mlir"))

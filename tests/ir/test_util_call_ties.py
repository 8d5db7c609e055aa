"""util.call's `tied_operands`: IREE prints `tied_operands = [-1 : index]` in generic form and
nothing in its assembly when no result is tied. Both read the same (the parser stores -1 per
result, as IREE's does), the pretty print leaves the untied default out (IREE refuses the
attribute in the attribute dictionary), and each form reads back identically."""

from __future__ import annotations

from stream.ir import parse_module, print_module
from stream.ir.attributes import ArrayAttr, IntegerAttr
from stream.ir.equality import first_difference

GENERIC = """
"util.func"() <{function_type = (!stream.resource<*>, index) -> !stream.resource<*>, sym_name = "callee", sym_visibility = "private"}> ({
^bb0(%arg0: !stream.resource<*>, %arg1: index):
  "util.return"(%arg0) : (!stream.resource<*>) -> ()
}) : () -> ()
"util.func"() <{function_type = (!stream.resource<*>, index) -> !stream.resource<*>, sym_name = "caller"}> ({
^bb0(%arg0: !stream.resource<*>, %arg1: index):
  %0 = "util.call"(%arg0, %arg1) <{callee = @callee, tied_operands = [-1 : index]}> : (!stream.resource<*>, index) -> !stream.resource<*>
  "util.return"(%0) : (!stream.resource<*>) -> ()
}) : () -> ()
"""

PRETTY = """
util.func private @callee(%arg0: !stream.resource<*>, %arg1: index) -> !stream.resource<*> {
  util.return %arg0 : !stream.resource<*>
}
util.func public @caller(%arg0: !stream.resource<*>, %arg1: index) -> !stream.resource<*> {
  %0 = util.call @callee(%arg0, %arg1) : (!stream.resource<*>, index) -> !stream.resource<*>
  util.return %0 : !stream.resource<*>
}
"""


def _call(module):  # type: ignore[no-untyped-def]
    return next(op for top in module.ops for op in top.walk() if op.name == "util.call")


def test_generic_and_pretty_read_the_same_and_round_trip() -> None:
    generic, pretty = parse_module(GENERIC, "g.mlir"), parse_module(PRETTY, "p.mlir")
    for module in (generic, pretty):
        ties = _call(module).properties["tied_operands"]
        assert isinstance(ties, ArrayAttr) and [e.value for e in ties.elements if isinstance(e, IntegerAttr)] == [-1]
        for as_generic in (False, True):
            assert first_difference(module, parse_module(print_module(module, generic=as_generic), "again.mlir")) is None
    text = print_module(generic)
    assert "tied_operands" not in next(line for line in text.splitlines() if "util.call" in line)
    assert "tied_operands = [-1 : index]" in print_module(generic, generic=True)

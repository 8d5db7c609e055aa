"""The structural verifier does not check again an op that passed its own checks (the op is
immutable; a pass that keeps it hands over the very same object): a kept op is skipped, a
malformed op is reported every time, and a changed op (a new object) is checked afresh."""

from __future__ import annotations

import stream.ir.verifier as verifier
from stream.ir.attributes import DenseArrayAttr
from stream.ir.core import Block, Region
from stream.ir.parser import parse_module
from stream.ir.types import I32

TEXT = """
util.func public @f(%arg: !stream.resource<external>, %n: index) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  %t = stream.cmd.execute with(%arg as %a: !stream.resource<external>{%n}) {
    stream.cmd.fill %c0, %a[%c0 for %n] : index -> !stream.resource<external>{%n}
  } => !stream.timepoint
  util.return %t : !stream.timepoint
}
"""


def test_kept_ops_are_skipped_and_malformed_ones_reported_each_time(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    module = parse_module(TEXT, "f.mlir")
    assert verifier.structural_diagnostics(module) == []
    checked: list[str] = []
    real = verifier._check_shape

    def spy(c, op, spec):  # type: ignore[no-untyped-def]
        checked.append(op.name)
        return real(c, op, spec)

    monkeypatch.setattr(verifier, "_check_shape", spy)
    assert verifier.structural_diagnostics(module) == []
    assert checked == []  # every op was clean and is the same object: nothing checked again
    # A changed op is a new object: checked. Here it is malformed (a segment sizes attribute
    # with the wrong number of groups), and it is reported on every run.
    (func,) = module.ops
    execute = next(op for op in func.walk() if op.name == "stream.cmd.execute")
    bad = execute.replace(properties={**execute.properties, "operandSegmentSizes": DenseArrayAttr(I32, (1,))})
    block = func.regions[0].blocks[0]
    new_block = Block(block.arguments, tuple(bad if op is execute else op for op in block.ops))
    broken = module.replace(ops=(func.replace(regions=(Region((new_block,)),)),))
    first = verifier.structural_diagnostics(broken)
    second = verifier.structural_diagnostics(broken)
    assert first and [d.message for d in first] == [d.message for d in second]
    assert "stream.cmd.execute" in checked

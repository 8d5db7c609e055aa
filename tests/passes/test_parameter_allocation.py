"""schedule-allocation lowers the async parameter ops to their cmd forms
(stream/passes/parameter_allocation.py), and the whole pipeline keeps the program proved."""

from __future__ import annotations

from pathlib import Path

import stream.ir as ir
from stream.ir.walk import functions
from stream.passes import parse_pipeline, run_pipeline
from verify.hook import make_hook

CORPUS = Path(__file__).resolve().parent.parent.parent / "proofs" / "corpus"


def test_async_parameter_ops_become_cmd_parameter_ops_and_stay_proved() -> None:
    module = ir.parse_module((CORPUS / "async_parameter_ok.mlir").read_text(), "params.mlir")
    out, _ = run_pipeline(module, parse_pipeline("schedule-allocation"), hook=make_hook())
    names = [op.name for op in functions(out)[0].body.ops]
    assert "stream.async.parameter.load" not in " ".join(names)
    assert [n for n in names if ".parameter." in n] == ["stream.cmd.parameter.load", "stream.cmd.parameter.read", "stream.cmd.parameter.gather"]
    gather = next(op for op in functions(out)[0].body.ops if op.name == "stream.cmd.parameter.gather")
    read = next(op for op in functions(out)[0].body.ops if op.name == "stream.cmd.parameter.read")
    assert gather.operands[-1] is read.results[0]  # the gather still awaits the read
    # The read and the gather write the storage the execute produced (no copy, no new allocation).
    assert read.operands[3] is gather.operands[3]

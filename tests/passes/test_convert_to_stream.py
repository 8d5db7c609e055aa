"""convert-to-stream: what it refuses (with a diagnostic, exit code 2) and what it leaves alone."""

from __future__ import annotations

import subprocess
import sys

import pytest

import stream.ir as ir
from stream.ir.diagnostics import DiagnosticError
from stream.passes import PASSES

convert = PASSES["convert-to-stream"].run


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('%y = "scf.execute_region"() ({\n    "scf.yield"(%x) : (tensor<4xf32>) -> ()\n  }) : () -> tensor<4xf32>\n  return %y : tensor<4xf32>',
         "'scf.execute_region' control flow is not supported"),
        ("%y = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>\n  return %y : tensor<4xf32>", "cannot lower 'func.call' on tensors"),
        ('%y = "tensor.empty"() : () -> tensor<4xf32>\n  return %y : tensor<4xf32>', "cannot lower 'tensor.empty' on tensors"),
        ("%y = flow.dispatch @k(%x) {stream.affinity = #hal.device.optimal<[#hal.device.affinity<@a>]>} : (tensor<4xf32>) -> tensor<4xf32>\n"
         "  return %y : tensor<4xf32>", "not a device placement"),
    ],
)
def test_refusals_name_the_construct(body: str, message: str) -> None:
    text = f"func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {{\n  {body}\n}}\n"
    with pytest.raises(DiagnosticError, match=message) as info:
        convert(ir.parse_module(text, "bad.mlir"))
    assert str(info.value).startswith("bad.mlir:")


def test_multi_block_functions_are_refused() -> None:
    text = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  "cf.br"()[^bb1] : () -> ()
^bb1:
  return %x : tensor<4xf32>
}
"""
    with pytest.raises(DiagnosticError, match="2 blocks"):
        convert(ir.parse_module(text, "blocks.mlir"))


def test_bad_input_exits_2_with_a_located_diagnostic(tmp_path: object) -> None:
    path = tmp_path / "bad.mlir"  # type: ignore[operator]
    path.write_text('func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = "tensor.empty"() : () -> tensor<4xf32>\n  return %y : tensor<4xf32>\n}\n')
    proc = subprocess.run([sys.executable, "-m", "streamproof", "compile", str(path), "--pass-pipeline=convert-to-stream", "--no-verify"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert f"{path}:2:3: error: convert-to-stream cannot lower 'tensor.empty' on tensors" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_functions_without_tensors_and_stream_level_input_pass_through() -> None:
    text = """
func.func @host(%a: index) -> index {
  %c1 = arith.constant 1 : index
  %b = arith.addi %a, %c1 : index
  return %b : index
}
util.func public @already(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c16 = arith.constant 16 : index
  %0 = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %1 = stream.tensor.export on(#hal.device.affinity<@dev0>) %0 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %1 : !hal.buffer_view
}
"""
    module = ir.parse_module(text, "pass.mlir")
    out = convert(module)
    assert all(a is b for a, b in zip(out.ops, module.ops))


def test_module_attributes_and_other_ops_are_kept() -> None:
    text = """
module attributes {stream.affinity.default = #hal.device.affinity<@gpu>} {
  util.global private @g = 4 : index
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
"""
    out = convert(ir.parse_module(text, "keep.mlir"))
    printed = ir.print_module(out)
    assert "stream.affinity.default = #hal.device.affinity<@gpu>" in printed
    assert "util.global private @g" in printed
    assert "stream.tensor.import on(#hal.device.affinity<@gpu>) %arg0" in printed

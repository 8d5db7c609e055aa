"""Input-level programs are checked as given (issue 9 item 3).

`streamproof verify` on a flow-level program checks the indices the program writes: every
`flow.tensor.slice`, `update`, `load` and `store` stays inside its tensor in every dim, or it is
OUT_OF_BOUNDS with a witness (exit 1). It agrees with `compile`, which finds the same ranges in
convert-to-stream's output (a store included: it becomes a `stream.tensor.fill` of one element).
A program with nothing to check is said to be so (exit 2), never "proved: 0 obligations".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import parse

from stream.passes import PassVerificationError, parse_pipeline, run_pipeline
from streamproof.cli import main
from verify import verify_module
from verify.hook import make_hook

TEMPLATE = """
func.func @f(%n: index, %x: tensor<XTYPE>, %y: tensor<4x4xf32>, %u: tensor<2x4xf32>, %v: f32) -> (tensor<2x4xf32>, tensor<4x4xf32>, f32, tensor<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %s = flow.tensor.slice %x[SROW, SCOL for %c2, %c4] : tensor<XTYPE>XDIMS -> tensor<2x4xf32>
  %w = flow.tensor.update %u, %y[UROW, %c0] : tensor<2x4xf32> -> %y as tensor<4x4xf32>
  %e = flow.tensor.load %w[%c1, LCOL] : tensor<4x4xf32>
  %t = flow.tensor.store %v, %w[TROW, %c2] : tensor<4x4xf32>
  return %s, %w, %e, %t : tensor<2x4xf32>, tensor<4x4xf32>, f32, tensor<4x4xf32>
}
"""
IN_BOUNDS = {"XTYPE": "8x8xf32", "XDIMS": "", "SROW": "%c0", "SCOL": "%c4", "UROW": "%c2", "LCOL": "%c2", "TROW": "%c1"}
CASES = [  # (indices, line of the op, the message's start, the dim that is wrong)
    ({}, 7, None, None),
    ({"SCOL": "%n"}, 7, "the slice range", "dim 1"),  # columns [n, n + 4) of 8: out for n > 4
    ({"UROW": "%c4"}, 8, "the update range [4, 6)", "dim 0"),
    ({"LCOL": "%c4"}, 9, "the load range [4, 5)", "dim 1"),
    ({"TROW": "%c4"}, 10, "the store range [4, 5)", "dim 0"),
]


def program(**indices: str) -> str:
    text = TEMPLATE
    for key, value in {**IN_BOUNDS, **indices}.items():
        text = text.replace(key, value)
    return text


def oob(text: str) -> list[tuple[int, str]]:
    report = verify_module(parse(text, "input.mlir"))
    return sorted((v.location.line, v.message) for v in report.violations if v.cls == "OUT_OF_BOUNDS")


def compile_oob_lines(text: str) -> set[int]:
    """The lines compile rejects as OUT_OF_BOUNDS (convert-to-stream is where the ranges are)."""
    try:
        run_pipeline(parse(text, "input.mlir"), parse_pipeline("convert-to-stream"), hook=make_hook())
    except PassVerificationError as e:
        return {v.location.line for v in e.report.violations if v.cls == "OUT_OF_BOUNDS" and v.severity == "error"}
    return set()


def test_the_slice_rows_depend_on_the_dynamic_dim() -> None:
    # Rows [0, 2) of an %n-row tensor: out of bounds for %n < 2, with such an %n as the witness.
    report = verify_module(parse(program(XTYPE="?x8xf32", XDIMS="{%n}"), "input.mlir"))
    (v,) = report.violations
    assert v.cls == "OUT_OF_BOUNDS" and v.location.line == 7 and "elements of dim 0 of %x" in v.message
    assert v.symbols and min(v.symbols.values()) < 2 and v.witness is not None


@pytest.mark.parametrize(("indices", "line", "what", "dim"), CASES)
def test_each_op_kind_is_checked_per_dim(indices: dict[str, str], line: int, what: str | None, dim: str | None) -> None:
    found = oob(program(**indices))
    if what is None:
        assert found == []
        return
    ((at, message),) = found
    assert at == line and message.startswith(what) and f"elements of {dim}" in message


@pytest.mark.parametrize(("indices", "line", "what", "dim"), CASES)
def test_verify_and_compile_agree(indices: dict[str, str], line: int, what: str | None, dim: str | None) -> None:
    # What `verify` says of the input program is what `compile` rejects it for: the same ops,
    # the store included, and none of them excused as "already in the pass input".
    assert {ln for ln, _ in oob(program(**indices))} == compile_oob_lines(program(**indices))


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "prog.mlir"
    path.write_text(text)
    return str(path)


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", write(tmp_path, program(UROW="%c4"))]) == 1
    out = capsys.readouterr().out
    assert "error: OUT_OF_BOUNDS in @f: the update range [4, 6) exceeds the 4 elements of dim 0 of %y" in out
    assert "access: flow.tensor.update" in out and "witness:" in out
    assert main(["verify", write(tmp_path, program())]) == 0
    assert ": proved: 8 obligations" in capsys.readouterr().out


NOTHING = """
func.func @mm(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = flow.dispatch @matmul(%a, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
"""


@pytest.mark.parametrize(("text", "says"), [
    (NOTHING, "nothing to verify: @mm (input level: value-semantic tensors"),
    ("func.func private @ext(%a: index) -> index\n", "nothing to verify: no function with a body"),
])
def test_nothing_to_check_is_said_plainly(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, says: str) -> None:
    for report in ([], ["--report=json"]):
        assert main(["verify", write(tmp_path, text), *report]) == 2
        out = capsys.readouterr()
        assert says in out.err and "proved" not in out.out

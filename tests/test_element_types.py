"""Element types end to end (issue 9 item 13): complex<f32> / complex<f64> are supported by every
command; the types the executor cannot hold are refused the same way everywhere.

* `complex<f32>` is a typed `ComplexType` (8 bytes, IREE's `complex_float_64`), compiled with
  every pass proved, verified and run, with results checked against numpy computed here;
* `run` refuses bf16, f8E4M3FN, i4, i128, complex<i32> and `!stream.timepoint` elements with one
  `file:line:col: error:` naming the type and its use, before any input is read or any pass runs,
  while `compile` and `verify` keep working when the byte size is known; an element with no byte
  size is exit 2 for every command (`none` already in the parser, as in MLIR).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import runtime
import stream.ir as ir
import streamproof
from runtime.values import InputError, dense_to_numpy, element_type_code, format_value, parse_input
from stream.ir.attributes import DenseAttr
from stream.ir.diagnostics import DiagnosticError
from stream.ir.types import COMPLEX64, COMPLEX128, F32, F64, ComplexType, IntegerType, TensorType, element_byte_width
from stream.ir.walk import functions
from streamproof.cli import main

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "complex.mlir"

# y = x + splat(1 - 2.5j); t = splat(complex(re, im)): both splat paths (constant and created).
SPLATS = """\
func.func @f(%x: tensor<4xcomplex<f32>>, %re: f32, %im: f32) -> (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) {
  %cst = complex.constant [1.000000e+00 : f32, -2.500000e+00 : f32] : complex<f32>
  %s = flow.tensor.splat %cst : tensor<4xcomplex<f32>>
  %y = flow.dispatch @add(%x, %s) : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %c = complex.create %re, %im : complex<f32>
  %t = flow.tensor.splat %c : tensor<4xcomplex<f32>>
  return %y, %t : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>
}
"""

# The same shape of program for any element type: a dispatch and a transfer, no constants.
TEMPLATE = """\
func.func @g(%x: tensor<4xELT>) -> tensor<4xELT> {
  %y = flow.dispatch @copy(%x) : (tensor<4xELT>) -> tensor<4xELT>
  %y1 = flow.tensor.transfer %y : tensor<4xELT> to #hal.device.affinity<@dev1>
  return %y1 : tensor<4xELT>
}
"""


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# -- the type ------------------------------------------------------------------------------------
def test_complex_is_a_typed_element() -> None:
    m = ir.parse_module("func.func @f(%a: tensor<2xcomplex<f32>>, %b: complex<f64>) {\n  return\n}\n", "t.mlir")
    (f,) = functions(m)
    a, b = f.type.inputs
    assert isinstance(a, TensorType) and a.element == ComplexType(F32) == COMPLEX64
    assert b == ComplexType(F64) == COMPLEX128
    assert (str(COMPLEX64), COMPLEX64.width, element_byte_width(COMPLEX64)) == ("complex<f32>", 64, 8)
    assert (str(COMPLEX128), COMPLEX128.width, element_byte_width(COMPLEX128)) == ("complex<f64>", 128, 16)
    assert element_byte_width(ComplexType(IntegerType(32))) == 8
    assert "tensor<2xcomplex<f32>>" in ir.print_module(m)


def test_byte_widths_round_as_iree() -> None:
    # IREE's getRoundedElementByteWidth: whole bytes, then the next power of two.
    widths = {IntegerType(1): 1, IntegerType(4): 1, IntegerType(24): 4, IntegerType(128): 16}
    assert {t: element_byte_width(t) for t in widths} == widths


@pytest.mark.parametrize("text,message", [
    ("tensor<4xnone>", "invalid tensor element type: none"),
    ("tensor<4xtensor<4xf32>>", "invalid tensor element type: tensor<4xf32>"),
    ("tensor<4xcomplex<index>>", "invalid element type for complex: index"),
])
def test_the_parser_refuses_what_mlir_refuses(text: str, message: str) -> None:
    with pytest.raises(DiagnosticError, match=message):
        ir.parse_module(f"func.func @f(%a: {text}) {{\n  return\n}}\n", "t.mlir")


# -- values ----------------------------------------------------------------------------------------
def test_complex_inputs_and_results_print_as_numpy_writes_them() -> None:
    a = parse_input("4xcomplex<f32>=[1+2j -0.5j 3 (1-1j)]")
    assert a.dtype == np.complex64 and a.tolist() == [1 + 2j, -0.5j, 3, 1 - 1j]  # type: ignore[union-attr]
    b = parse_input("2xcf128=2-1e3j")  # IREE's spelling: 128 bits of both parts
    assert b.dtype == np.complex128 and b.tolist() == [2 - 1000j, 2 - 1000j]  # type: ignore[union-attr]
    assert format_value(a) == "4xcomplex<f32>=1+2j 0-0.5j 3+0j 1-1j"
    assert parse_input("complex<f64>=1+1j") == 1 + 1j
    with pytest.raises(InputError, match="out of range for complex<f32>"):
        parse_input("2xcomplex<f32>=1+1e39j")
    with pytest.raises(InputError, match="write a complex number as"):
        parse_input("2xcomplex<f32>=1+2i")


def test_iree_element_type_codes() -> None:
    # iree_hal_element_types_t: COMPLEX_FLOAT_64 / _128 = (FLOAT_COMPLEX 0x23 << 24) | bits.
    assert element_type_code(COMPLEX64) == 0x23000040
    assert element_type_code(COMPLEX128) == 0x23000080


def test_dense_complex_constants() -> None:
    t = TensorType((2,), COMPLEX64)
    assert dense_to_numpy(DenseAttr("(1.000000e+00,2.000000e+00)", t)).tolist() == [1 + 2j, 1 + 2j]
    assert dense_to_numpy(DenseAttr("[(1.0,2.0), (3.0,-4.0)]", t)).tolist() == [1 + 2j, 3 - 4j]


# -- end to end -------------------------------------------------------------------------------------
def test_complex_example_is_compiled_verified_and_run_against_numpy() -> None:
    result = streamproof.compile(EXAMPLE.read_text(), filename=str(EXAMPLE))
    assert all(p.status == "proved" for p in result.passes)
    report = streamproof.verify(result.module, refines=EXAMPLE.read_text())
    assert report.ok, report.text()
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((16, 4)) + 1j * rng.standard_normal((16, 4))).astype(np.complex64)
    k = np.arange(4)
    w = np.exp(-2j * np.pi * np.outer(k, k) / 4).astype(np.complex64)  # the DFT matrix
    run = runtime.run_module(result.module, [x, w], driver="chaos", seed=1, check_races=True)
    assert run.errors == []
    (got,) = run.results
    assert got.dtype == np.complex64
    want = np.fft.fft(x.astype(np.complex128), axis=1) * (1 + 0.5j)  # F + 0.5j * F
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_run_prints_complex_splats(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "s.mlir").write_text(SPLATS)
    code, out, err = cli(capsys, "run", str(tmp_path / "s.mlir"), "--driver", "sync", "--check",
                         "--input", "4xcomplex<f32>=[1+1j 2 3j -4]", "--input", "f32=2", "--input", "f32=-3")
    assert code == 0, err
    x = np.array([1 + 1j, 2, 3j, -4])
    y = x + (1 - 2.5j)
    assert out.splitlines()[2] == "4xcomplex<f32>=" + " ".join(f"{z.real:G}{z.imag:+G}j" for z in y)
    assert out.splitlines()[4] == "4xcomplex<f32>=2-3j 2-3j 2-3j 2-3j"
    assert "check result[0]: ok" in err and "check result[1]: ok" in err


def test_a_complex_f64_splat_is_refused_as_iree_does(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "s.mlir").write_text(SPLATS.replace("f32", "f64"))
    code, _, err = cli(capsys, "compile", str(tmp_path / "s.mlir"), "-o", str(tmp_path / "o.mlir"))
    assert code == 2
    assert "s.mlir:3:3: error: encode-tensors: cannot fill with elements of type complex<f64>: a fill pattern is at most 64 bits" in err


# -- one refusal ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("element", ["bf16", "f8E4M3FN", "i4", "i128", "complex<i32>"])
def test_run_refuses_what_it_cannot_hold_compile_and_verify_do_not(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, element: str) -> None:
    path = tmp_path / "p.mlir"
    path.write_text(TEMPLATE.replace("ELT", element))
    code, out, err = cli(capsys, "run", str(path), "--input", "4xf32=1")  # refused before the input is read
    assert code == 2 and out == ""
    assert err.startswith(f"{path}:1:1: error: `streamproof run` cannot hold elements of type {element} of "
                          f"tensor<4x{element}> (the signature of @g)"), err
    assert "Traceback" not in err
    code, _, err = cli(capsys, "compile", str(path), "-o", str(tmp_path / "o.mlir"))
    assert code == 0, err
    code, _, err = cli(capsys, "run", str(tmp_path / "o.mlir"))  # the cmd-level output is refused the same way
    assert code == 2 and f"cannot hold elements of type {element}" in err
    code, _, err = cli(capsys, "verify", str(tmp_path / "o.mlir"))
    assert code == 0, err


def test_an_element_without_a_byte_size_is_refused_by_every_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "p.mlir"
    path.write_text(TEMPLATE.replace("ELT", "!stream.timepoint"))
    for command in ("compile", "verify"):
        code, _, err = cli(capsys, command, str(path))
        assert code == 2, err
        assert err.startswith(f"{path}:1:1: error: element type !stream.timepoint of tensor<4x!stream.timepoint> "
                              "(the signature of @g) has no byte size"), err
    code, _, err = cli(capsys, "run", str(path))
    assert code == 2 and "cannot hold elements of type !stream.timepoint" in err
    code, _, err = cli(capsys, "compile", str(path), "--pass-pipeline=")  # the round trip reads it, as iree-opt does
    assert code == 0, err
    path.write_text(TEMPLATE.replace("ELT", "none"))
    for command in ("compile", "verify", "run"):
        code, _, err = cli(capsys, command, str(path))
        assert code == 2 and "error: invalid tensor element type: none" in err


def test_the_refusal_names_the_op_inside_a_function(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "p.mlir"
    path.write_text("func.func @h(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %c = arith.constant 1.0 : bf16\n"
                    "  %s = flow.tensor.splat %c : tensor<4xbf16>\n"
                    "  return %x : tensor<4xf32>\n}\n")
    code, _, err = cli(capsys, "run", str(path), "--input", "4xf32=1")
    assert code == 2
    assert err.startswith(f"{path}:2:3: error: `streamproof run` cannot hold values of type bf16 (its attribute 'value' of arith.constant)"), err


def test_the_python_api_refuses_the_same_way() -> None:
    with pytest.raises(DiagnosticError, match="cannot hold elements of type bf16"):
        streamproof.run(TEMPLATE.replace("ELT", "bf16"), [np.zeros(4, np.float32)])


def test_the_builder_makes_complex_programs() -> None:
    from stream.builder import Program, tensor_type

    assert tensor_type("2x?xcomplex<f64>") == TensorType((2, None), COMPLEX128)
    p = Program()
    f = p.function("k", x="4xcomplex<f32>")
    c = f.constant(np.array([1 + 2j, -3j, 0.5, 2 - 1j], np.complex64), "4xcomplex<f32>")
    y = f.dispatch("add", f["x"], c, result="4xcomplex<f32>")
    f.ret(f.dispatch("add", y, f.splat(1 - 1j, "4xcomplex<f32>"), result="4xcomplex<f32>"))
    text = ir.print_module(p.build())
    assert "dense<[(1.000000e+00,2.000000e+00), (-0.000000e+00,-3.000000e+00)," in text
    assert "complex.constant [1.000000e+00 : f32, -1.000000e+00 : f32] : complex<f32>" in text
    assert ir.print_module(ir.parse_module(text, "b.mlir")) == text
    x = np.array([1, 2j, -1, 0.25], np.complex64)
    (got,) = streamproof.run(text, [x], driver="sync").results
    np.testing.assert_allclose(got, x + np.array([1 + 2j, -3j, 0.5, 2 - 1j]) + (1 - 1j), rtol=1e-6)


ASSERTED = """\
util.func public @f(%view: !hal.buffer_view) -> !hal.buffer_view {
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %element_type = hal.element_type<complex<f32>> : i32
  %dense_row_major = hal.encoding_type<dense_row_major> : i32
  hal.buffer_view.assert<%view : !hal.buffer_view> message("input0") shape([%c4]) type(%element_type) encoding(%dense_row_major)
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<4xcomplex<f32>> in !stream.resource<external>{%c32}
  %v = stream.tensor.export on(#hal.device.affinity<@dev0>) %in : tensor<4xcomplex<f32>> in !stream.resource<external>{%c32} -> !hal.buffer_view
  util.return %v : !hal.buffer_view
}
"""


def test_iree_style_buffer_view_checks_and_random_inputs() -> None:
    m = ir.parse_module(ASSERTED, "a.mlir")
    x = np.array([1 - 1j, 2j, 3, -0.5], np.complex64)
    (got,) = runtime.run_module(m, [x], driver="sync").results
    assert got.dtype == np.complex64 and got.tolist() == x.tolist()
    with pytest.raises(runtime.InputError, match="element type code 0x23000040, got 4xcomplex<f64>"):
        runtime.run_module(m, [x.astype(np.complex128)], driver="sync")  # complex<f64> is another element type
    (r,) = runtime.api.random_inputs(m, "f", seed=5)
    assert r.dtype == np.complex64 and r.shape == (4,) and np.all(r.imag != 0) and np.all(r.real != 0)

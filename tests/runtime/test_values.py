"""Inputs and outputs in iree-run-module's text forms, dense constants, element type codes."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from runtime.values import InputError, dense_to_numpy, element_type_code, format_value, parse_input
from stream.ir.attributes import DenseAttr
from stream.ir.types import F16, F32, I1, I8, I32, IntegerType, TensorType


def test_splat_list_brackets_zeros() -> None:
    assert parse_input("2x2xf32=1.5").tolist() == [[1.5, 1.5], [1.5, 1.5]]
    assert parse_input("2x2xf32=1,2,3,4").tolist() == [[1, 2], [3, 4]]
    assert parse_input("2x2xi32=[1 2][3 4]").tolist() == [[1, 2], [3, 4]]
    assert parse_input("3xi8").tolist() == [0, 0, 0] and parse_input("3xi8").dtype == np.int8
    assert parse_input("2xi1=1 0").tolist() == [True, False]
    assert parse_input("4xui8=255").dtype == np.uint8


def test_scalars() -> None:
    assert parse_input("7") == 7 and isinstance(parse_input("7"), int)
    assert parse_input("-0.5") == -0.5
    assert parse_input("i32=7") == 7
    assert parse_input("f32=0.25") == 0.25


def test_files(tmp_path: Path) -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.save(tmp_path / "a.npy", a)
    np.testing.assert_array_equal(parse_input("@a.npy", tmp_path), a)
    (tmp_path / "raw.bin").write_bytes(a.tobytes())
    np.testing.assert_array_equal(parse_input("2x3xf32=@raw.bin", tmp_path), a)


@pytest.mark.parametrize("text,message", [
    ("2x2xf32=1,2,3", "needs 4 elements"),
    ("2xq32=1", "unknown element type 'q32'"),
    ("2xaxf32=1", "invalid shape"),
    ("2xf32=a,b", "cannot read the elements"),
    ("@/nonexistent/x.npy", "no such file"),
    ("", "empty --input"),
])
def test_bad_inputs(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_input(text)


def test_an_empty_or_truncated_npy_file_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "empty.npy").write_bytes(b"")
    np.save(tmp_path / "whole.npy", np.arange(64, dtype=np.float32))
    (tmp_path / "cut.npy").write_bytes((tmp_path / "whole.npy").read_bytes()[:100])
    for name in ("empty.npy", "cut.npy"):
        with pytest.raises(InputError, match="not a .npy file"):
            parse_input(f"@{name}", tmp_path)


def test_format_like_iree_run_module() -> None:
    # floats print with C's %G; rows nest in brackets; the leaf dimension is space separated
    assert format_value(np.array([[1, 2.5], [3, 4]], np.float32)) == "2x2xf32=[1 2.5][3 4]"
    assert format_value(np.array([1, 2, 3], np.int32)) == "3xi32=1 2 3"
    assert format_value(np.array([True, False])) == "2xi1=1 0"
    assert format_value(np.array([0.1, 1e-7, 123456789.0], np.float64)) == "3xf64=0.1 1E-07 1.23457E+08"
    assert format_value(np.array([np.nan, np.inf], np.float32)) == "2xf32=NAN INF"
    assert format_value(np.float32(2.0).reshape(())) == "f32=2"
    assert format_value(7) == "i64=7" and format_value(True) == "i1=1" and format_value(0.5) == "f64=0.5"


def test_format_elides_after_max_elements() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert format_value(a, max_elements=4) == "2x3xf32=[0 1 2][3...]"
    assert format_value(a, max_elements=0) == "2x3xf32=..."
    # Once the budget is spent the remaining rows are elided once, not as an empty row each.
    big = np.zeros((512, 512), np.float32)
    assert format_value(big, max_elements=4) == "512x512xf32=[0 0 0 0...]..."
    assert format_value(np.zeros((3, 2, 2), np.float32), max_elements=3) == "3x2x2xf32=[[0 0][0...]]..."


def test_dense_constants() -> None:
    assert dense_to_numpy(DenseAttr("[[1.0, 2.0], [3.0, 4.0]]", TensorType((2, 2), F32))).tolist() == [[1, 2], [3, 4]]
    assert dense_to_numpy(DenseAttr("3", TensorType((3,), I32))).tolist() == [3, 3, 3]
    assert dense_to_numpy(DenseAttr("true", TensorType((2,), I1))).tolist() == [True, True]
    nan = dense_to_numpy(DenseAttr("0x7FC00000", TensorType((2,), F32)))
    assert np.isnan(nan).all()
    blob = dense_to_numpy(DenseAttr('"0x0100000002000000"', TensorType((2,), I32)))
    assert blob.tolist() == [1, 2]
    assert dense_to_numpy(DenseAttr("[-1.5e+00, 2.0]", TensorType((2,), F16))).dtype == np.float16
    with pytest.raises(InputError, match="has 3 elements"):
        dense_to_numpy(DenseAttr("[1, 2, 3]", TensorType((2,), I8)))


def test_iree_element_type_codes() -> None:
    # (numerical type << 24) | bits, as iree_hal_element_type_t
    assert element_type_code(F32) == 0x21000020
    assert element_type_code(F16) == 0x21000010
    assert element_type_code(I32) == 0x10000020
    assert element_type_code(IntegerType(8, "u")) == 0x12000008
    assert element_type_code(I1) == 0x13000008


@pytest.mark.parametrize("text,message", [
    ("5x32xi8=300", r"300 in '5x32xi8=300' is out of range for i8 \[-128, 127\]"),
    ("2xi8=1,-129", r"-129 in '2xi8=1,-129' is out of range for i8"),
    ("4xui8=-1", r"-1 in '4xui8=-1' is out of range for ui8 \[0, 255\]"),
    ("i16=40000", r"40000 in 'i16=40000' is out of range for i16"),
    ("2xi1=2", r"'2' in '2xi1=2' is not an i1 value"),
    ("2xf16=1e5", r"1e5 in '2xf16=1e5' is out of range for f16"),
    ("2xf32=1_0", r"cannot read the elements of '2xf32=1_0' as f32"),
    ("2xf32=1e999", r"1e999 in '2xf32=1e999' is out of range for f32"),  # Python's float() says inf
    ("\u0663x8xf32", r"non-ASCII character '\u0663' \(U\+0663\)"),
    ("\u00b2x8xf32", r"non-ASCII character '\u00b2'"),
    ("2xf32=\u0663", r"non-ASCII character"),
    ("\u0663", r"non-ASCII character"),
])
def test_values_that_do_not_fit_their_type_are_input_errors(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_input(text)


def test_values_at_the_edges_of_their_type_are_kept() -> None:
    assert parse_input("2xi8=-128,127").tolist() == [-128, 127]
    assert parse_input("ui8=255") == 255 and parse_input("i8=0x7f") == 127
    assert parse_input("2xf16=65504").tolist() == [65504, 65504]
    assert np.isinf(parse_input("2xf32=inf")).all() and np.isnan(parse_input("2xf32=nan")).all()
    assert parse_input("0xf32").shape == (0,)  # a tensor of no elements, not the hexadecimal number 0xf32
    assert parse_input("index=5") == 5 and parse_input("2xindex=1").dtype == np.int64  # index results print as index=N


def test_inputs_above_the_byte_limit_are_refused_before_allocation(tmp_path: Path) -> None:
    # 35.5 PiB of zeros: refused from the shape alone (numpy would raise MemoryError)
    with pytest.raises(InputError, match=r"'99999999x99999999xf32': 35.5 PiB .* above the input limit of 1.0 GiB"):
        parse_input("99999999x99999999xf32", max_bytes=1 << 30)
    with pytest.raises(InputError, match=r"above the input limit"):
        parse_input("99999999999999999999x99999999999999999999xf32=1", max_bytes=1 << 30)  # no int64 overflow
    assert parse_input("4xf32=1", max_bytes=16).nbytes == 16
    with pytest.raises(InputError, match=r"'4xf32': 16 bytes \(the inputs before it take 8 bytes\) is above the input limit of 16"):
        parse_input("4xf32=1", max_bytes=16, used=8)
    np.save(tmp_path / "a.npy", np.zeros(1000, np.float64))
    with pytest.raises(InputError, match=r"a.npy: 7.8 KiB \(8000 bytes\) is above the input limit"):
        parse_input("@a.npy", tmp_path, max_bytes=4096)  # from the .npy header, before the data is read
    assert parse_input("@a.npy", tmp_path, max_bytes=8000).shape == (1000,)


def test_raw_bytes_are_read_no_further_than_needed(tmp_path: Path) -> None:
    (tmp_path / "long.bin").write_bytes(bytes(20))
    with pytest.raises(InputError, match="holds more than 16 bytes but 4xf32 needs 16"):
        parse_input("4xf32=@long.bin", tmp_path)
    outcome: list[str] = []

    def read_zero() -> None:
        try:
            parse_input("4xf32=@/dev/zero")
        except InputError as e:
            outcome.append(str(e))

    reader = threading.Thread(target=read_zero, daemon=True)
    reader.start()
    reader.join(30)  # /dev/zero never ends: reading it whole never returned
    assert outcome == ["/dev/zero holds more than 16 bytes but 4xf32 needs 16"]

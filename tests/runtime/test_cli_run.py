"""`streamproof run` end to end (through `streamproof.cli.main`, and one real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from rt_support import DATA, HERE, ROOT_DIR, iree_kernels  # noqa: F401 (the iree_kernels fixture)

from streamproof.cli import main

PROGRAMS = HERE / "programs"
KERNELS = HERE / "iree_kernels.py"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_results_print_like_iree_run_module(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(PROGRAMS / "all_commands.mlir"), "--input", "4xf32=-2,-0.5,0.25,3", "--driver", "sync")
    assert code == 0, err
    assert out == "EXEC @f\nresult[0]: hal.buffer_view\n4xf32=0 0.5 1.25 4\nresult[1]: hal.buffer_view\n4xf32=-2 -0.5 0.25 3\n"


def test_scalar_results_and_no_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(PROGRAMS / "host_ops.mlir"))
    assert code == 0, err
    assert "result[1]: f32\nf32=5\nresult[2]: index\nindex=128\nresult[3]: i1\ni1=0\nresult[4]: i1\ni1=1\n" in out


def test_index_inputs_and_output_dir(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.zeros((3, 8), np.float32))
    code, out, err = run(capsys, str(PROGRAMS / "dynamic.mlir"), "--input", f"@{tmp_path / 'x.npy'}", "--input", "3",
                         "--output-dir", str(tmp_path / "out"))
    assert code == 0, err
    saved = np.load(tmp_path / "out" / "result0.npy")
    np.testing.assert_allclose(saved, np.full((3, 8), 1 / 8, np.float32))


def test_outputs_never_overwrite_inputs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    program = tmp_path / "dynamic.mlir"
    program.write_text((PROGRAMS / "dynamic.mlir").read_text())
    x = np.zeros((3, 8), np.float32)
    np.save(tmp_path / "result0.npy", x)
    code, _, err = run(capsys, str(program), "--input", f"@{tmp_path / 'result0.npy'}", "--input", "3", "--trace", str(program))
    assert code == 2 and "--trace" in err and "refusing to overwrite it" in err
    code, _, err = run(capsys, str(program), "--input", f"@{tmp_path / 'result0.npy'}", "--input", "3", "--output-dir", str(tmp_path))
    assert code == 2 and "would overwrite the input" in err
    assert program.read_text() == (PROGRAMS / "dynamic.mlir").read_text()
    np.testing.assert_array_equal(np.load(tmp_path / "result0.npy"), x)


def test_iree_stage_with_kernels_file_and_trace(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trace = tmp_path / "t.json"
    code, out, err = run(capsys, str(DATA / "b_diamond" / "10_elide_timepoints.mlir"), "--kernels", str(KERNELS),
                         "--driver", "chaos", "--seed", "4", "--check-races", "--trace", str(trace), "--print-max-element-count", "2")
    assert code == 0, err
    assert "random inputs (seed 4): 64x64xf32, 64x64xf32, 64x64xf32, 64x64xf32, 64x64xf32" in err
    assert out.startswith("EXEC @diamond\nresult[0]: hal.buffer_view\n64x64xf32=[")
    assert out.rstrip().endswith("...]...")  # two elements of the first row, the rest elided once
    assert any(e.get("ph") == "X" for e in json.loads(trace.read_text())["traceEvents"])


@pytest.mark.usefixtures("iree_kernels")
def test_races_exit_one_and_print_the_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, str(DATA / "d_inplace" / "10_elide_timepoints.mlir"), "--function", "kv_update",
                         "--kernels", str(KERNELS), "--check-races")
    assert code == 1
    assert "error: BORROWED_INPUT_MUTATED on argument 0" in err and "1 race/lifetime finding(s)" in err
    assert out.startswith("EXEC @kv_update")


def test_check_against_a_reference(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    reference = tmp_path / "ref.mlir"
    reference.write_text("func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
                         "  %c1 = arith.constant dense<1.0> : tensor<4xf32>\n"
                         "  %s = flow.dispatch @add(%x, %c1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
                         "  %r = flow.dispatch @relu(%s) : (tensor<4xf32>) -> %s\n"
                         "  return %r, %x : tensor<4xf32>, tensor<4xf32>\n}\n")
    code, _, err = run(capsys, str(PROGRAMS / "all_commands.mlir"), "--reference", str(reference), "--check")
    assert code == 0, err
    assert "check result[0]: ok (max abs error 0, max rel error 0)" in err
    wrong = tmp_path / "wrong.py"
    wrong.write_text("import streamproof\n\n@streamproof.kernel('relu')\ndef not_relu(x, out):\n    out[...] = x\n")
    env_code = subprocess.run(
        [sys.executable, "-m", "streamproof", "run", str(PROGRAMS / "all_commands.mlir"), "--reference", str(reference),
         "--check", "--kernels", str(wrong), "--input", "4xf32=-3,1,1,1"],
        capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT_DIR)), timeout=120)
    # The wrong relu is used by both sides, so they agree: --check compares schedules, not kernels.
    assert env_code.returncode == 0, env_code.stderr


def test_check_mismatch_exits_one(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    reference = tmp_path / "ref.mlir"
    reference.write_text("func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
                         "  %r = flow.dispatch @neg(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                         "  return %r, %x : tensor<4xf32>, tensor<4xf32>\n}\n")
    code, _, err = run(capsys, str(PROGRAMS / "all_commands.mlir"), "--reference", str(reference), "--check",
                       "--input", "4xf32=1,2,3,4")
    assert code == 1
    assert "check result[0]: MISMATCH: 4 of 4 elements differ" in err and "first at [0]: got 2.0, reference -1.0" in err
    assert "check result[1]: ok" in err


def test_kernel_failure_exits_one_with_the_kernel_name(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    boom = tmp_path / "boom.py"
    boom.write_text("import streamproof\n\n@streamproof.kernel('boom_for_cli')\ndef boom(x, out):\n    raise ArithmeticError('nope')\n")
    text = (PROGRAMS / "all_commands.mlir").read_text().replace("@relu", "@boom_for_cli")
    prog = tmp_path / "p.mlir"
    prog.write_text(text)
    code, _, err = run(capsys, str(prog), "--kernels", str(boom))
    assert code == 1
    assert "kernel 'boom_for_cli' failed: ArithmeticError: nope" in err and "Traceback" not in err


def test_a_failed_run_still_writes_its_trace(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    boom = tmp_path / "boom.py"
    boom.write_text("import streamproof\n\n@streamproof.kernel('boom_for_trace')\ndef boom(x, out):\n    raise ValueError('no')\n")
    prog = tmp_path / "p.mlir"
    prog.write_text((PROGRAMS / "all_commands.mlir").read_text().replace("@relu", "@boom_for_trace"))
    trace = tmp_path / "t.json"
    code, _, err = run(capsys, str(prog), "--kernels", str(boom), "--trace", str(trace))
    assert code == 1 and "kernel 'boom_for_trace' failed" in err
    failed = [e for e in json.loads(trace.read_text())["traceEvents"] if e.get("ph") == "X" and "failed" in e.get("args", {})]
    assert failed and "boom_for_trace" in failed[0]["args"]["failed"]


def test_device_memory_too_small_is_a_deadlock(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, str(PROGRAMS / "all_commands.mlir"), "--device-memory", "32", "--driver", "task")
    assert code == 1
    assert "deadlock" in err and "needs 48 bytes but 0 of 32 are live" in err


def test_races_found_before_a_failure_are_printed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A dealloca that does not wait for the reader: the run may fail (the storage is gone), and
    the detector's report is printed either way."""
    text = (PROGRAMS / "two_devices.mlir").read_text().replace("await(%e1) => %tmp", "await(%e0) => %tmp")
    prog = tmp_path / "early_free.mlir"
    prog.write_text(text)
    code, _, err = run(capsys, str(prog), "--check-races", "--driver", "sync")
    assert code == 1 and "USE_AFTER_FREE on %tmp" in err


@pytest.mark.parametrize("argv,message", [
    (["--input", "4xf32=1,2"], "needs 4 elements"),
    (["--input", "1xf32=1", "--input", "2"], "takes 1 argument(s)"),
    (["--function", "nope"], "no function @nope"),
    (["--check"], "--check needs the input-level program"),
    (["--kernels", "/nonexistent.py"], "no such kernels file"),
    (["--device-memory", "-5"], "--device-memory must be a number of bytes >= 0"),
    (["--trace", "/nonexistent/dir/t.json"], "no such directory /nonexistent/dir"),
    (["--output-dir", "/proc/streamproof/out"], "--output-dir /proc/streamproof/out:"),
    (["--input", "4xf32=1,2,3,x"], "cannot read the elements of '4xf32=1,2,3,x' as f32"),
    (["--input", "@/nonexistent.npy"], "/nonexistent.npy: no such file"),
    (["--input", "5x32xi8=300"], "300 in '5x32xi8=300' is out of range for i8 [-128, 127]"),
    (["--input", "99999999x99999999xf32"], "'99999999x99999999xf32': 35.5 PiB (39999999200000004 bytes) is above the input limit of 1.0 GiB"),
    (["--input", "4xf32=1", "--input", "4xf32=2", "--max-input-bytes", "31"], "(the inputs before it take 16 bytes) is above the input limit of 31"),
    (["--input", "\u0663xf32"], "non-ASCII character '\u0663' (U+0663)"),
    (["--seed", "-1"], "--seed must be an integer >= 0, not -1"),
    (["--max-input-bytes", "lots"], "--max-input-bytes: expected a number of bytes"),
])
def test_usage_errors_exit_two(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = run(capsys, str(PROGRAMS / "all_commands.mlir"), *argv)
    assert code == 2 and message in err and "Traceback" not in err
    assert out == ""  # nothing ran
    assert err.startswith("streamproof run: error: ") or ".mlir:1:1: error: " in err  # a located diagnostic


def test_a_tensor_where_an_index_is_expected_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(PROGRAMS / "dynamic.mlir"), "--input", "3x8xf32=1", "--input", "3x8xf32=1")
    assert code == 2 and "argument 1 of @h is a scalar index; got a 3x8xf32 tensor" in err and out == ""
    code, _, err = run(capsys, str(PROGRAMS / "dynamic.mlir"), "--input", "3x8xf32=1", "--input", "99999999999999999999")
    assert code == 2 and "argument 1 of @h is index; 99999999999999999999 is out of range" in err


def test_random_inputs_of_huge_tensors_are_refused_before_the_compile(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """74 GiB were requested (float64 draws of a 100000x100000 f16 tensor): now the limit refuses
    the 18.6 GiB of f16 before anything is compiled or drawn; a raised limit lets a small run through."""
    prog = tmp_path / "huge.mlir"
    prog.write_text("func.func @f(%x: tensor<100000x100000xf16>) -> tensor<100000x100000xf16> {\n"
                    "  %r = flow.dispatch @relu(%x) : (tensor<100000x100000xf16>) -> tensor<100000x100000xf16>\n"
                    "  return %r : tensor<100000x100000xf16>\n}\n")
    code, out, err = run(capsys, str(prog))
    assert code == 2 and out == "" and "Traceback" not in err
    assert "the random inputs of @f (1 tensor(s)): 18.6 GiB (20000000000 bytes) is above the input limit of 1.0 GiB" in err
    code, out, err = run(capsys, str(PROGRAMS / "all_commands.mlir"), "--max-input-bytes", "15")
    assert code == 2 and "16 bytes is above the input limit of 15 bytes" in err
    code, out, err = run(capsys, str(PROGRAMS / "all_commands.mlir"), "--max-input-bytes", "1K")
    assert code == 0, err


def test_async_level_programs_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, str(DATA / "b_diamond" / "06_async_final.mlir"))
    assert code == 2 and "at the async level" in err


def test_input_level_needs_the_verifier_or_no_verify(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    prog = tmp_path / "in.mlir"
    prog.write_text("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %r = flow.dispatch @relu(%x) : (tensor<4xf32>) -> tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n")
    try:
        import verify.hook  # type: ignore[import-not-found]  # noqa: F401
        verifier = True
    except ImportError:
        verifier = False
    code, out, err = run(capsys, str(prog), "--input", "4xf32=-1,2,-3,4", "--check")
    if verifier:
        assert code == 0, err
    else:
        assert code == 2 and "--no-verify" in err
    code, out, err = run(capsys, str(prog), "--input", "4xf32=-1,2,-3,4", "--check", "--no-verify")
    assert code == 0, err
    assert "4xf32=0 2 0 4" in out and "check result[0]: ok" in err


def test_help_shows_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "-h"])
    out = capsys.readouterr().out
    assert "examples:" in out and "--check-races --trace" in out and "--driver {sync,task,chaos}" in out


def test_list_kernels(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-", "--list-kernels")
    assert code == 0 and "softmax" in out and "layernorm" in out


def test_byte_stand_in_kernels_check_an_iree_schedule(tmp_path: Path) -> None:
    """Without real kernels: stand-ins that take raw bytes (bindings="bytes") are enough for
    --check-races on an IREE stage (no finding on the diamond; the borrowed write of kv_update).
    In a subprocess: the stand-ins would shadow the real kernels of later tests in this one."""
    stand_ins = tmp_path / "bytes.py"
    stand_ins.write_text(
        "import re\nfrom pathlib import Path\nimport streamproof\n\n"
        "def touch(*arrays):\n    for a in arrays:\n        if a.flags.writeable:\n            a[...] = 1\n\n"
        f"for path in ({str(DATA / 'b_diamond' / '10_elide_timepoints.mlir')!r}, {str(DATA / 'd_inplace' / '10_elide_timepoints.mlir')!r}):\n"
        "    for sym in set(re.findall(r'stream.cmd.dispatch @(\\w+)::@(\\w+)', Path(path).read_text())):\n"
        "        streamproof.kernel('::'.join(sym), bindings='bytes')(touch)\n")

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "streamproof", "run", *argv, "--kernels", str(stand_ins), "--check-races"],
                              capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT_DIR)), timeout=120)

    diamond = cli(str(DATA / "b_diamond" / "10_elide_timepoints.mlir"), "--driver", "chaos", "--seed", "2")
    assert diamond.returncode == 0, diamond.stderr
    assert diamond.stdout.startswith("EXEC @diamond") and "finding" not in diamond.stderr
    kv = cli(str(DATA / "d_inplace" / "10_elide_timepoints.mlir"), "--function", "kv_update")
    assert kv.returncode == 1 and "BORROWED_INPUT_MUTATED on argument 0" in kv.stderr

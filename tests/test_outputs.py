"""Output files of every command (-o, --trace, --trace-counterexample, --output-dir, --smt-dump):
nothing the user had is lost (issue 9 items 15-18).

* a character device or FIFO is written in place, never replaced by a regular file;
* a replaced file keeps its mode, a new one honours the umask (it was 0600 whatever the umask);
* a symlink in --output-dir (or --smt-dump) is replaced, never followed onto an input;
* every target is checked before the work (a bad -o was found after the whole compile);
* a failed `run --trace FILE` does not replace an existing FILE.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from streamproof.cli import main
from streamproof.io import overwritten_input

ROOT = Path(__file__).resolve().parent.parent
MLP = ROOT / "examples" / "mlp.mlir"
RACE = ROOT / "proofs" / "corpus" / "cmd_concurrent_raw.mlir"  # a counterexample with a witness
PROGRAMS = ROOT / "tests" / "runtime" / "programs"


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def umask() -> Iterator[Any]:
    old = os.umask(0o022)
    try:
        yield os.umask
    finally:
        os.umask(old)


class FifoReader:
    """Reads a FIFO in a thread (a writer blocks until a reader opens it)."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path, self.data = path, b""
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with open(self.path, "rb") as f:
            self.data = f.read()

    def result(self) -> bytes:
        self.thread.join(60)
        assert not self.thread.is_alive(), "nothing was written to the FIFO"
        return self.data


# -- 15: special files ------------------------------------------------------------------------------
def test_a_fifo_is_written_in_place_by_every_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    fifo = FifoReader(tmp_path / "ir.fifo")
    code, _, err = cli(capsys, "compile", str(MLP), "--pass-pipeline=", "-o", str(fifo.path))
    assert code == 0, err
    assert "func.func @mlp(" in fifo.result().decode()
    assert stat.S_ISFIFO(os.lstat(fifo.path).st_mode)  # still a FIFO, not a regular file

    fifo = FifoReader(tmp_path / "cex.fifo")
    code, _, err = cli(capsys, "verify", str(RACE), "--trace-counterexample", str(fifo.path))
    assert code == 1
    assert json.loads(fifo.result())["traceEvents"]
    assert stat.S_ISFIFO(os.lstat(fifo.path).st_mode)

    fifo = FifoReader(tmp_path / "trace.fifo")
    code, _, err = cli(capsys, "run", str(PROGRAMS / "all_commands.mlir"), "--trace", str(fifo.path))
    assert code == 0, err
    assert any(e.get("ph") == "X" for e in json.loads(fifo.result())["traceEvents"])
    assert stat.S_ISFIFO(os.lstat(fifo.path).st_mode)


def test_a_character_device_stays_a_device(capsys: pytest.CaptureFixture[str]) -> None:
    """A terminal (the slave side of a pty: a character device of this test's own) is written in
    place; renaming onto a device is what replaced /dev/null with a regular file on a machine
    running as root. (A pty, not /dev/null: run against the old code this test must not break
    the machine's devices; devpts refuses the temporary file the old code tried to rename.)"""
    master, slave = os.openpty()
    path = os.ttyname(slave)
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # the slave side closed
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        assert stat.S_ISCHR(os.stat(path).st_mode)
        code, _, err = cli(capsys, "compile", str(MLP), "--pass-pipeline=", "-o", path)
        assert code == 0, err
        code, _, err = cli(capsys, "run", str(PROGRAMS / "all_commands.mlir"), "--trace", path)
        assert code == 0, err
        assert stat.S_ISCHR(os.stat(path).st_mode)
    finally:
        os.close(slave)
        reader.join(10)
        os.close(master)
    written = b"".join(chunks)
    assert b"func.func @mlp(" in written and b"traceEvents" in written


def test_only_a_regular_file_is_an_input_a_write_would_clobber(tmp_path: Path) -> None:
    """Writing a FIFO or device replaces nothing: `-o /dev/null` with input /dev/null is not refused."""
    fifo, regular = tmp_path / "p.fifo", tmp_path / "x.mlir"
    os.mkfifo(fifo)
    regular.write_text("")
    assert overwritten_input(str(fifo), [str(fifo)]) is None
    assert overwritten_input(str(regular), [str(tmp_path / "." / "x.mlir")]) == str(tmp_path / "." / "x.mlir")


def test_a_socket_or_a_directory_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    sock_path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        code, _, err = cli(capsys, "compile", str(MLP), "-o", str(sock_path))
        assert code == 2 and f"-o {sock_path}: is a socket; outputs are regular files, character devices or FIFOs" in err
        assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)


# -- 16: modes ----------------------------------------------------------------------------------------
def test_new_outputs_honour_the_umask_and_replaced_ones_keep_their_mode(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, umask: Any) -> None:
    new = tmp_path / "new.mlir"
    code, _, err = cli(capsys, "compile", str(MLP), "--pass-pipeline=", "-o", str(new))
    assert code == 0, err
    assert stat.S_IMODE(new.stat().st_mode) == 0o644  # 0666 & ~022 (was 0600)
    kept = tmp_path / "kept.mlir"
    kept.write_text("old\n")
    kept.chmod(0o640)
    code, _, err = cli(capsys, "compile", str(MLP), "--pass-pipeline=", "-o", str(kept))
    assert code == 0, err
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640 and "func.func @mlp(" in kept.read_text()
    umask(0o077)
    private = tmp_path / "private.json"
    code, _, _ = cli(capsys, "verify", str(RACE), "--trace-counterexample", str(private))
    assert code == 1 and stat.S_IMODE(private.stat().st_mode) == 0o600
    out = tmp_path / "out"
    code, _, err = cli(capsys, "run", str(PROGRAMS / "all_commands.mlir"), "--output-dir", str(out))
    assert code == 0, err
    assert stat.S_IMODE((out / "result0.npy").stat().st_mode) == 0o600
    assert not list(tmp_path.glob("**/.streamproof-*"))  # no temporary file left behind


# -- 17: symlinks in --output-dir ---------------------------------------------------------------------
def test_a_symlink_in_the_output_dir_is_replaced_not_followed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    x = np.arange(24, dtype=np.float32).reshape(3, 8)
    np.save(tmp_path / "x.npy", x)
    other = tmp_path / "other.npy"
    np.save(other, np.ones(2))
    out = tmp_path / "out"
    out.mkdir()
    (out / "result0.npy").symlink_to("../x.npy")  # result0.npy -> the input
    code, _, err = run_dynamic(capsys, tmp_path, out)
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "x.npy"), x)  # the input is intact
    assert not (out / "result0.npy").is_symlink()
    assert np.load(out / "result0.npy").shape == (3, 8)
    (out / "result0.npy").unlink()
    (out / "result0.npy").symlink_to(other)  # a link out of the directory, to a file that is not an input
    code, _, err = run_dynamic(capsys, tmp_path, out)
    assert code == 0, err
    np.testing.assert_array_equal(np.load(other), np.ones(2))


def run_dynamic(capsys: pytest.CaptureFixture[str], tmp_path: Path, out: Path) -> tuple[int, str, str]:
    return cli(capsys, "run", str(PROGRAMS / "dynamic.mlir"), "--input", f"@{tmp_path / 'x.npy'}", "--input", "3",
               "--output-dir", str(out))


def test_an_smt_dump_symlink_is_replaced_not_followed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    dump = tmp_path / "queries"
    code, _, _ = cli(capsys, "verify", str(RACE), "--smt=full", "--smt-dump", str(dump))
    names = sorted(p.name for p in dump.iterdir())
    assert names, "no query dumped"
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    for name in names:
        (dump / name).unlink()
        (dump / name).symlink_to(victim)
    assert cli(capsys, "verify", str(RACE), "--smt=full", "--smt-dump", str(dump))[0] == code
    assert victim.read_text() == "mine\n"
    assert all(not (dump / n).is_symlink() and (dump / n).read_text().startswith("; streamproof obligation") for n in names)


# -- 18: outputs checked before the work; a failed trace keeps the old one ----------------------------
@pytest.mark.parametrize("argv,message", [
    (["-o", "{tmp}/missing/x.mlir"], "-o {tmp}/missing/x.mlir: no such directory {tmp}/missing"),
    (["-o", "{tmp}"], "-o {tmp}: is a directory"),
    (["-o", "{tmp}/d/"], "-o {tmp}/d/: names a directory, not a file"),
    (["--trace-counterexample", "{tmp}"], "--trace-counterexample {tmp}: is a directory"),
    (["--smt-dump", "{tmp}/file"], "--smt-dump {tmp}/file: not a directory"),
    (["-o", "/proc/streamproof.mlir"], "-o /proc/streamproof.mlir: cannot create files in /proc"),  # root may, the kernel may not
    (["--smt-dump", "/proc/self"], "--smt-dump /proc/self: not a writable directory"),
])
def test_compile_checks_its_outputs_before_compiling(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch, argv: list[str], message: str) -> None:
    (tmp_path / "file").write_text("")

    def no_work(*_: Any, **__: Any) -> Any:
        raise AssertionError("compiled before the outputs were checked")

    monkeypatch.setattr("streamproof.api.compile", no_work)
    code, out, err = cli(capsys, "compile", str(MLP), *(a.format(tmp=tmp_path) for a in argv))
    assert code == 2 and f"streamproof compile: error: {message.format(tmp=tmp_path)}" in err and out == ""


@pytest.mark.parametrize("argv,message", [
    (["--trace", "{tmp}"], "--trace {tmp}: is a directory"),
    (["--trace", "{tmp}/missing/t.json"], "--trace {tmp}/missing/t.json: no such directory {tmp}/missing"),
    (["--output-dir", "{tmp}/file"], "--output-dir {tmp}/file: not a directory"),
    (["--output-dir", "{tmp}/taken"], "--output-dir {tmp}/taken/result0.npy: is a directory"),
])
def test_run_checks_its_outputs_before_running(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch, argv: list[str], message: str) -> None:
    import runtime

    (tmp_path / "file").write_text("")
    (tmp_path / "taken" / "result0.npy").mkdir(parents=True)

    def no_work(*_: Any, **__: Any) -> Any:
        raise AssertionError("ran before the outputs were checked")

    monkeypatch.setattr(runtime, "run_module", no_work)
    code, out, err = cli(capsys, "run", str(PROGRAMS / "all_commands.mlir"), *(a.format(tmp=tmp_path) for a in argv))
    assert code == 2 and f"streamproof run: error: {message.format(tmp=tmp_path)}" in err and out == ""


def test_a_failed_run_keeps_an_existing_trace_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    boom = tmp_path / "boom.py"
    boom.write_text("import streamproof\n\n@streamproof.kernel('boom_for_outputs')\ndef boom(x, out):\n    raise ValueError('no')\n")
    prog = tmp_path / "p.mlir"
    prog.write_text((PROGRAMS / "all_commands.mlir").read_text().replace("@relu", "@boom_for_outputs"))
    trace = tmp_path / "t.json"
    trace.write_text('{"mine": true}\n')
    code, _, err = cli(capsys, "run", str(prog), "--kernels", str(boom), "--trace", str(trace))
    assert code == 1 and "kernel 'boom_for_outputs' failed" in err
    assert trace.read_text() == '{"mine": true}\n'
    beside = tmp_path / "t.failed.json"
    assert f"its trace is in {beside} ({trace} is kept as it was)" in err
    assert any("failed" in e.get("args", {}) for e in json.loads(beside.read_text())["traceEvents"])
    code, _, err = cli(capsys, "run", str(prog), "--kernels", str(boom), "--trace", str(trace))
    assert code == 1 and (tmp_path / "t.failed.1.json").exists() and trace.read_text() == '{"mine": true}\n'
    # A run that completes but fails its checks (a race found by --check-races) keeps it too.
    early_free = tmp_path / "early_free.mlir"
    early_free.write_text((PROGRAMS / "two_devices.mlir").read_text().replace("await(%e1) => %tmp", "await(%e0) => %tmp"))
    code, _, err = cli(capsys, "run", str(early_free), "--check-races", "--driver", "sync", "--trace", str(trace))
    assert code == 1 and "USE_AFTER_FREE" in err and trace.read_text() == '{"mine": true}\n'
    assert (tmp_path / "t.failed.2.json").exists()
    code, _, err = cli(capsys, "run", str(PROGRAMS / "all_commands.mlir"), "--trace", str(trace))  # a run that succeeds replaces it
    assert code == 0, err
    assert "traceEvents" in json.loads(trace.read_text())

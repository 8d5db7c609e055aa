"""Reading inputs and writing outputs for the command line.

Every output file (-o, --trace, --trace-counterexample, --output-dir) goes through
`check_output` before the command does its work and `write_output` after it. Regular files are
written atomically (a temporary file renamed into place once everything succeeded), so a failing
command never leaves a half-written or clobbered file behind; an existing file keeps its mode, a
new one gets the umask's. Character devices and FIFOs are written in place, never replaced.
"""

from __future__ import annotations

import os
import secrets
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from stream.ir.core import Location, Module
from stream.ir.diagnostics import DiagnosticError
from stream.ir.parser import parse_module, split_input_file

__all__ = ["read_source", "parse_inputs", "check_output", "check_dump_dir", "write_output", "overwritten_input", "OutputError", "Chunk"]


def read_source(path: str) -> tuple[str, str]:
    """(text, display name) of a file, or of stdin for '-'."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    except FileNotFoundError:
        raise DiagnosticError.at(Location(path, 0, 0), "no such file") from None
    except IsADirectoryError:
        raise DiagnosticError.at(Location(path, 0, 0), "is a directory, not an .mlir file") from None
    except UnicodeDecodeError as e:
        raise DiagnosticError.at(Location(path, 0, 0), f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise DiagnosticError.at(Location(path, 0, 0), f"cannot read: {e.strerror}") from None


@dataclass(frozen=True)
class Chunk:
    module: Module
    name: str
    line_offset: int


def parse_inputs(path: str, split: bool = False) -> list[Chunk]:
    """Parse a file into one module, or one per `// -----` chunk with --split-input-file."""
    text, name = read_source(path)
    pieces = split_input_file(text) if split else [(text, 0)]
    return [Chunk(parse_module(chunk, name, offset), name, offset) for chunk, offset in pieces]


class OutputError(Exception):
    """An output target that cannot be written (the CLI exits 2 with this message)."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISFIFO, "a FIFO")):
        if test(mode):
            return name
    return "a special file"


def _target(path: str, follow: bool) -> tuple[str, os.stat_result | None]:
    """Where writing `path` lands, and what is there now (None: nothing). A symlink the user
    named is followed (as a shell's `>` does); one we named (`follow=False`, the files of
    --output-dir) is replaced, never written through."""
    real = os.path.realpath(path) if follow else os.path.join(os.path.realpath(os.path.dirname(path) or "."), os.path.basename(path))
    try:
        st = os.stat(real) if follow else os.lstat(real)
    except FileNotFoundError:
        return real, None
    except OSError as e:
        raise OutputError(f"{path}: {e.strerror or e}") from None
    if not follow and stat.S_ISLNK(st.st_mode):
        return real, None  # replaced by the new file
    return real, st


def check_output(path: str | None, flag: str, inputs: Iterable[str | None] = (), follow: bool = True) -> None:
    """Refuse, before any work is done, an output target that could not be written or whose
    writing would lose something: one of the command's inputs, a directory, a block device or
    socket, a file that is not writable, a missing or unwritable directory. Regular files are
    replaced atomically; character devices (`/dev/null`) and FIFOs are written in place."""
    if path is None or path == "-":
        return
    what = f"{flag} {path}"
    if path.endswith(os.sep):
        raise OutputError(f"{what}: names a directory, not a file")
    if (clobbered := overwritten_input(path, inputs)) is not None:
        raise OutputError(f"{what} is the input file {clobbered}; refusing to overwrite it")
    real, st = _target(path, follow)
    if st is not None:
        if stat.S_ISREG(st.st_mode) or stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
            if not os.access(real, os.W_OK):
                raise OutputError(f"{what}: not writable (permission denied)")
            if not stat.S_ISREG(st.st_mode):
                return  # written in place: its directory need not be writable
        else:
            raise OutputError(f"{what}: is {_kind(st.st_mode)}; outputs are regular files, character devices or FIFOs")
    parent = os.path.dirname(real) or "."
    if not os.path.isdir(parent):
        raise OutputError(f"{what}: no such directory {os.path.dirname(path) or '.'}")
    try:  # the temporary file the write will rename: creating one now is the only sure test (root, read-only mounts)
        fd, tmp = _create_temporary(parent)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise OutputError(f"{what}: cannot create files in {os.path.dirname(path) or '.'} ({e.strerror or e})") from None


def check_dump_dir(path: str | None, flag: str = "--smt-dump") -> None:
    """A directory outputs are written into (created if missing), checked before the work."""
    if not path:
        return
    if os.path.exists(path) and not os.path.isdir(path):
        raise OutputError(f"{flag} {path}: not a directory")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise OutputError(f"{flag} {path}: {e.strerror or e}") from None
    try:  # as for a file: creating one is the only sure test
        fd, tmp = _create_temporary(path)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise OutputError(f"{flag} {path}: not a writable directory ({e.strerror or e})") from None


def write_output(path: str | None, data: str | bytes, flag: str = "-o", follow: bool = True, keep_existing: bool = False) -> str:
    """Write `data` to stdout (None or '-') or to `path`; returns where it went.

    A regular file is written to a temporary file beside it and renamed into place, so a failure
    leaves the old file whole; a file that existed keeps its mode, a new one gets the umask's. A
    character device or FIFO is written directly (renaming onto it would replace the device with
    a regular file). With `keep_existing`, an existing regular file is never replaced: the data
    goes to a new file beside it (`t.json` -> `t.failed.json`, `t.failed.1.json`, ...).
    """
    if path is None or path == "-":
        if isinstance(data, str):
            sys.stdout.write(data)
        else:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return "-"
    raw = data.encode("utf-8") if isinstance(data, str) else data
    real, st = _target(path, follow)
    try:
        if st is not None and not stat.S_ISREG(st.st_mode):
            if stat.S_ISDIR(st.st_mode) or not (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
                raise OutputError(f"{flag} {path}: is {_kind(st.st_mode)}; outputs are regular files, character devices or FIFOs")
            with open(real, "wb") as f:
                f.write(raw)
            return path
        if st is not None and keep_existing:
            return _write_beside(path, real, raw)
        _replace(real, raw, st)
        return path
    except OSError as e:
        raise OutputError(f"{flag} {path}: {e.strerror or e}") from None


def _create_temporary(directory: str) -> tuple[int, str]:
    for _ in range(100):
        tmp = os.path.join(directory, f".streamproof-{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666), tmp  # the umask applies
        except FileExistsError:
            continue
    raise OSError(f"cannot create a temporary file in {directory}")  # pragma: no cover - 100 collisions of 48 random bits


def _replace(real: str, raw: bytes, st: os.stat_result | None) -> None:
    fd, tmp = _create_temporary(os.path.dirname(real) or ".")
    try:
        if st is not None:  # the replaced file's mode (and owner, where allowed) carry over
            os.fchmod(fd, stat.S_IMODE(st.st_mode))
            if hasattr(os, "fchown"):
                try:
                    os.fchown(fd, st.st_uid, st.st_gid)
                except OSError:
                    pass
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _write_beside(path: str, real: str, raw: bytes) -> str:
    stem, ext = os.path.splitext(path)
    for n in range(1000):
        candidate = f"{stem}.failed{'' if n == 0 else f'.{n}'}{ext}"
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        return candidate
    raise OSError(f"no free name beside {path} for the failure's output")


def overwritten_input(output: str | None, inputs: Iterable[str | None]) -> str | None:
    """The input path that writing `output` would clobber (same file, however spelled), if any.

    A command must never replace a file the user gave it to read: `compile x.mlir -o x.mlir` would
    lose the source the moment the compiled text is written.
    """
    if not output or output == "-":
        return None
    try:
        if not stat.S_ISREG(os.stat(output).st_mode):
            return None  # writing a device or FIFO replaces nothing: `-o /dev/null` with input /dev/null is fine
    except OSError:
        return None
    for path in inputs:
        if path and path != "-":
            try:
                if os.path.samefile(output, path):
                    return path
            except OSError:
                continue
    return None

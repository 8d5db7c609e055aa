"""Reading inputs and writing outputs for the command line.

Outputs are written atomically (a temporary file renamed into place once everything succeeded),
so a failing command never leaves a half-written or clobbered file behind.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass

from stream.ir.core import Location, Module
from stream.ir.diagnostics import DiagnosticError
from stream.ir.parser import parse_module, split_input_file

__all__ = ["read_source", "parse_inputs", "write_output", "overwritten_input", "Chunk"]


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


def write_output(path: str | None, text: str) -> None:
    """Write to stdout (None or '-') or atomically to a file."""
    if path is None or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    directory = os.path.dirname(os.path.abspath(path)) or "."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".streamproof-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def overwritten_input(output: str | None, inputs: Iterable[str | None]) -> str | None:
    """The input path that writing `output` would clobber (same file, however spelled), if any.

    A command must never replace a file the user gave it to read: `compile x.mlir -o x.mlir` would
    lose the source the moment the compiled text is written.
    """
    if not output or output == "-" or not os.path.exists(output):
        return None
    for path in inputs:
        if path and path != "-":
            try:
                if os.path.samefile(output, path):
                    return path
            except OSError:
                continue
    return None

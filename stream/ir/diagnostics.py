"""Source files and diagnostics.

Every error a user can cause is reported as `file:line:col: error: message`, followed by the
offending source line and a caret under the column, like MLIR tools do. `DiagnosticError` carries
one such diagnostic (plus optional notes); the command line prints it and exits with code 2.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from stream.ir.core import Location

__all__ = ["SourceFile", "Diagnostic", "DiagnosticError", "Note", "source_line"]

def source_line(location: Location) -> str | None:
    """The text of the line a location points at, from the source it carries (None for a
    location made without one: a whole-file problem, a built op)."""
    source = location.source
    if source is None or not source.has_line(location.line):
        return None
    return source.line_text(location.line)


class SourceFile:
    """A named text with fast offset -> (line, column) mapping. Every location it makes carries
    it, so the text lives exactly as long as something (a module, a diagnostic) points into it."""

    __slots__ = ("name", "text", "_line_starts", "line_offset")

    def __init__(self, name: str, text: str, line_offset: int = 0) -> None:
        self.name = name
        self.text = text
        # Chunks of a --split-input-file input keep the line numbers of the whole file.
        self.line_offset = line_offset
        starts = [0]
        find = text.find
        pos = find("\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = find("\n", pos + 1)
        self._line_starts = starts

    def location(self, offset: int) -> Location:
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return Location(self.name, line + 1 + self.line_offset, offset - self._line_starts[line] + 1, self)

    def has_line(self, line: int) -> bool:
        return 0 <= line - 1 - self.line_offset < len(self._line_starts)

    def line_text(self, line: int) -> str:
        """The text of a 1-based line number (in whole-file numbering)."""
        index = line - 1 - self.line_offset
        if not 0 <= index < len(self._line_starts):
            return ""
        start = self._line_starts[index]
        end = self.text.find("\n", start)
        return self.text[start : end if end != -1 else len(self.text)]


@dataclass(frozen=True, slots=True)
class Note:
    location: Location | None
    message: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One message about a place in a source file."""

    location: Location
    message: str
    severity: str = "error"
    notes: tuple[Note, ...] = ()
    source_line: str | None = None

    def render(self) -> str:
        # A whole-file problem (no such file, not UTF-8) has no line: `file: error: ...`, as
        # MLIR tools print it, rather than a made-up `file:0:0`.
        where = self.location.file if self.location.line <= 0 else str(self.location)
        lines = [f"{where}: {self.severity}: {self.message}"]
        if self.source_line is not None and self.location.col > 0:
            lines.append(self.source_line.rstrip("\n"))
            # Keep tabs so that the caret lines up under the same character.
            prefix = "".join("\t" if c == "\t" else " " for c in self.source_line[: self.location.col - 1])
            lines.append(prefix + "^")
        for note in self.notes:
            where = f"{note.location}: " if note.location is not None else ""
            lines.append(f"{where}note: {note.message}")
        return "\n".join(lines)


@dataclass(eq=False)
class DiagnosticError(Exception):
    """Bad input: carries a diagnostic that the command line prints before exiting with 2."""

    diagnostic: Diagnostic
    extra: tuple[Diagnostic, ...] = field(default=())

    def __str__(self) -> str:
        return "\n".join(d.render() for d in (self.diagnostic, *self.extra))

    @staticmethod
    def at(location: Location, message: str, source: SourceFile | None = None, notes: tuple[Note, ...] = ()) -> DiagnosticError:
        line = source.line_text(location.line) if source is not None else source_line(location)
        return DiagnosticError(Diagnostic(location, message, "error", notes, line))

"""The MLIR tokenizer.

A pull lexer over one `SourceFile`: `peek()` and `next()` return tokens, and `scan_balanced()`
lets the parser take the raw text of an opaque construct (a dialect attribute body, an
executable's body) without tokenizing it. One compiled regex does the work at each position,
which keeps a 10k-op module well under the parse-time budget.
"""

from __future__ import annotations

import re

from stream.ir.core import Location
from stream.ir.diagnostics import DiagnosticError, SourceFile

__all__ = ["Token", "Lexer"]

_SKIP = re.compile(r"(?:\s+|//[^\n]*)*")
# A string literal with MLIR's escapes only: \n \t \" \\ and two hex digits. Written as runs of
# plain characters between escapes, with possessive repeats: the grammar never needs to backtrack,
# and Python's regex engine then keeps no state per character (a repeat of a group with
# alternatives cost ~100 bytes per character matched: 3 MB of string took 350 MB).
_STRING = r'"[^"\\\n]*+(?:\\(?:[nt"\\]|[0-9a-fA-F]{2})[^"\\\n]*+)*+"'
_TOKENS = r"""
    (?P<percent>%[\w$.\-]+(?:\#\d+)?)
  | (?P<caret>\^[\w$.\-]+)
  | (?P<at>@(?:[\w$.\-]+|STRING))
  | (?P<hash>\#[\w$.\-]+)
  | (?P<bang>![\w$.\-]+)
  | (?P<string>STRING)
  | (?P<float>\d+\.\d*(?:[eE][+\-]?\d+)?)
  | (?P<hexint>0x[0-9a-fA-F]+)
  | (?P<int>\d+)
  | (?P<bare>[A-Za-z_][\w$.]*)
  | (?P<punct>->|=>|::|\.\.\.|[()\[\]{}<>,:=?*+\-|^!\#])
""".replace("STRING", _STRING)
# Blanks and comments, then one token, in a single match (the blanks are atomic: never given
# back to the alternatives). No match: the end of the input, or no token starts there.
_NEXT = re.compile(r"(?>(?:\s+|//[^\n]*)*)(?:" + _TOKENS + ")", re.VERBOSE).match
# The longest well-formed start of a string literal: where it stops tells what is wrong.
_STRING_PREFIX = re.compile(_STRING[:-1])


class Token:
    """One token: `kind` is percent caret at hash bang string float hexint int bare punct eof.
    Treated as immutable; a plain slotted class because the lexer makes one per token and a
    frozen dataclass costs several times as much to build."""

    __slots__ = ("kind", "text", "pos", "end")

    def __init__(self, kind: str, text: str, pos: int, end: int) -> None:
        self.kind = kind
        self.text = text
        self.pos = pos
        self.end = end

    def __repr__(self) -> str:
        return f"Token({self.kind!r}, {self.text!r}, {self.pos}, {self.end})"

    def is_punct(self, text: str) -> bool:
        return self.kind == "punct" and self.text == text


class Lexer:
    __slots__ = ("source", "text", "pos", "_peeked")

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.text = source.text
        self.pos = 0
        self._peeked: Token | None = None

    # -- token stream -----------------------------------------------------------------------
    def _lex(self) -> Token:
        m = _NEXT(self.text, self.pos)
        if m is None:
            return self._end_or_error()
        kind = m.lastgroup
        assert kind is not None  # every alternative is a named group
        self.pos = end = m.end()
        return Token(kind, m.group(kind), m.start(kind), end)

    def _end_or_error(self) -> Token:
        text = self.text
        skip = _SKIP.match(text, self.pos)
        pos = skip.end() if skip is not None else self.pos
        if pos >= len(text):
            self.pos = pos
            return Token("eof", "", pos, pos)
        raise self._bad_token(pos)

    def peek(self) -> Token:
        tok = self._peeked
        if tok is None:
            tok = self._peeked = self._lex()
        return tok

    def next(self) -> Token:
        tok = self._peeked
        if tok is None:
            return self._lex()
        self._peeked = None
        return tok

    def take(self, kind: str, text: str) -> bool:
        """Consume the next token if it is exactly (`kind`, `text`), else leave it peeked. The
        parser's commonest question (a `,`, a `}`, a keyword): answered without building a
        Token for what it consumes."""
        tok = self._peeked
        if tok is None:
            m = _NEXT(self.text, self.pos)
            if m is None:
                tok = self.peek()  # the end of the input, or a lexing error
            else:
                found = m.lastgroup
                assert found is not None  # every alternative is a named group
                value = m.group(found)
                self.pos = end = m.end()
                if found == kind and value == text:
                    return True
                self._peeked = tok = Token(found, value, end - len(value), end)
        if tok.kind == kind and tok.text == text:
            self._peeked = None
            return True
        return False

    def take_kind(self, kind: str) -> tuple[str, int] | None:
        """Consume the next token if it is of `kind` and give its (text, offset), else leave it
        peeked and give None."""
        tok = self._peeked
        if tok is None:
            m = _NEXT(self.text, self.pos)
            if m is None:
                tok = self.peek()  # the end of the input, or a lexing error
            else:
                found = m.lastgroup
                assert found is not None  # every alternative is a named group
                value = m.group(found)
                self.pos = end = m.end()
                if found == kind:
                    return value, end - len(value)
                self._peeked = tok = Token(found, value, end - len(value), end)
        if tok.kind == kind:
            self._peeked = None
            return tok.text, tok.pos
        return None

    def reset(self, pos: int) -> None:
        """Rewind (or skip) to an absolute offset."""
        self.pos = pos
        self._peeked = None

    @property
    def offset(self) -> int:
        """Offset of the next token (after skipping blanks and comments)."""
        return self.peek().pos

    # -- raw scanning -------------------------------------------------------------------------
    def scan_balanced(self, start: int, open_: str, close: str) -> int:
        """Given `text[start] == open_`, return the offset just past the matching `close`.

        Nested brackets of every kind are balanced and string literals skipped; `->` and `=>`
        are not mistaken for closing angle brackets.
        """
        text = self.text
        pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
        stack = [close]
        i = start + 1
        n = len(text)
        while i < n:
            c = text[i]
            if c == '"':
                i += 1
                while i < n and text[i] != '"':
                    i += 2 if text[i] == "\\" else 1
            elif c in pairs:
                stack.append(pairs[c])
            elif c == ">" and text[i - 1] in "-=":
                pass  # `->` or `=>`: an arrow, not a closing angle bracket
            elif c in ")]}>":
                if c != stack[-1]:
                    raise self.error_at(i, f"unbalanced '{c}' (expected '{stack[-1]}')")
                stack.pop()
                if not stack:
                    return i + 1
            elif c == "/" and text.startswith("//", i):
                nl = text.find("\n", i)
                i = n if nl == -1 else nl
                continue
            i += 1
        raise self.error_at(start, f"unterminated '{open_}': no matching '{close}' before end of input")

    def _bad_token(self, pos: int) -> DiagnosticError:
        text = self.text
        quote = pos + 1 if text[pos] == "@" and text.startswith('"', pos + 1) else pos
        if text[quote] == '"':
            prefix = _STRING_PREFIX.match(text, quote)
            stop = prefix.end() if prefix is not None else quote
            if text.startswith("\\", stop):
                return self.error_at(stop, "invalid escape in string literal (MLIR knows \\n, \\t, \\\", \\\\ and \\XX)")
            if not text.startswith('"', stop):
                return self.error_at(quote, "unterminated string literal: no closing '\"' on this line")
        return self.error_at(pos, f"unexpected character '{text[pos]}'")

    # -- diagnostics --------------------------------------------------------------------------
    def location(self, pos: int) -> Location:
        return self.source.location(pos)

    def error_at(self, pos: int, message: str) -> DiagnosticError:
        return DiagnosticError.at(self.source.location(pos), message, self.source)

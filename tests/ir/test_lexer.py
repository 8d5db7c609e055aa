"""The lexer's token stream: `take`/`take_kind` consume a matching token and otherwise leave it
peeked exactly as `peek` would, so the parser's fast questions never change what it reads next;
blanks and comments are skipped; the end of the input is an `eof` token."""

from __future__ import annotations

import pytest

from stream.ir.diagnostics import DiagnosticError, SourceFile
from stream.ir.lexer import Lexer

TEXT = '%a, // note\n  {x = "s"} -> @f::@g #hal.x<1> 0x1F 2.5 ^bb1'
EXPECTED = [
    ("percent", "%a"), ("punct", ","), ("punct", "{"), ("bare", "x"), ("punct", "="), ("string", '"s"'), ("punct", "}"),
    ("punct", "->"), ("at", "@f"), ("punct", "::"), ("at", "@g"), ("hash", "#hal.x"), ("punct", "<"), ("int", "1"),
    ("punct", ">"), ("hexint", "0x1F"), ("float", "2.5"), ("caret", "^bb1"), ("eof", ""),
]


def lexer(text: str = TEXT) -> Lexer:
    return Lexer(SourceFile("t.mlir", text))


def test_tokens_and_their_offsets() -> None:
    lx = lexer()
    tokens = []
    while True:
        tok = lx.next()
        tokens.append(tok)
        if tok.kind == "eof":
            break
    assert [(t.kind, t.text) for t in tokens] == EXPECTED
    for t in tokens[:-1]:
        assert TEXT[t.pos : t.end] == t.text and t.end == t.pos + len(t.text)


def test_take_consumes_only_the_token_asked_for() -> None:
    lx = lexer()
    assert not lx.take("punct", ",")  # the next token is %a: left peeked, not consumed
    assert lx.peek().text == "%a"
    assert lx.take_kind("punct") is None and lx.take_kind("percent") == ("%a", 0)
    assert lx.take("punct", ",")
    assert not lx.take("punct", "}") and not lx.take("bare", "{")
    assert lx.take("punct", "{") and lx.take("bare", "x")
    assert not lx.take("punct", "=>")  # `=` is not `=>`
    assert lx.next().text == "="


@pytest.mark.parametrize("ask", ["take", "take_kind", "peek", "next"])
def test_every_way_of_reading_agrees_with_next(ask: str) -> None:
    lx, reference = lexer(), lexer()
    for kind, text in EXPECTED:
        if ask == "take":
            assert lx.take(kind, text)
        elif ask == "take_kind":
            assert lx.take_kind(kind) == ((text, reference.peek().pos) if kind != "eof" else ("", len(TEXT)))
        elif ask == "peek":
            assert (lx.peek().kind, lx.peek().text) == (kind, text)
            lx.next()
        else:
            tok = lx.next()
            assert (tok.kind, tok.text) == (kind, text)
        reference.next()
        assert lx.pos == reference.pos


def test_end_of_input_and_bad_characters() -> None:
    lx = lexer("  // only a comment")
    assert lx.take_kind("percent") is None and lx.peek().kind == "eof" and not lx.take("punct", "}")
    bad = lexer("%a $")
    assert bad.take_kind("percent") == ("%a", 0)
    with pytest.raises(DiagnosticError, match=r"t.mlir:1:4: error: unexpected character '\$'"):
        bad.take("punct", ",")

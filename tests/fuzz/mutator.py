"""A seeded text mutator over the project's own programs (the fuzz test's input generator).

Seeds are every `.mlir` file under `proofs/corpus/`, `examples/` and `tests/data/` (the IREE 3.13
dumps in both forms included). A mutant applies one to three edits, each drawn from a family:

| family | edits |
|---|---|
| `truncate` | cut the text at a random byte, or at a line end |
| `token` | delete, duplicate, swap or replace a token (a token of the same file, or an odd one) |
| `line` | delete, duplicate, swap or move lines; splice lines from another seed |
| `type` | change an element type (`f32` -> `i1`, `complex<f32>`, `f8E4M3FN`, `i0`, ...) |
| `size` | change a shape dimension or an integer constant (0, 1, -1, `?`, off by one, doubled) |
| `nesting` | wrap the first function body in nested regions, or add a deep attribute array/dictionary |
| `huge` | replace an integer with a huge one (2^63, 2^64, 10^40, 99999999x99999999 shapes) |
| `bytes` | insert a non-ASCII digit, a NUL, a lone surrogate escape or an unterminated string |

Everything is a pure function of the `random.Random` passed in, so a failing case is reproduced
from its seed and index alone.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEED_DIRS = ("proofs/corpus", "examples", "tests/data")

TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[%@^#!][\w$.\-]*|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|->|[\w$.]+|[{}()\[\]<>,:=*?+]')
# An element type, also inside a shape (`64x64xf32`: preceded by the `x`).
ELEMENT_TYPE = re.compile(r"(?<![A-Za-wyz0-9_$.%@])(?:f16|bf16|f32|f64|i1|i8|i16|i32|i64|index)(?![\w$.])")
DIM = re.compile(r"(?<=[<x{])\d+(?=x)|(?<=x)\d+(?=x)")
INTEGER = re.compile(r"(?<![\w.%@#$])-?\d+(?![\w.])")
ODD_TOKENS = ("}", "{", ")", "(", "->", ":", "=", ",", "%", "@", "<", ">", "^bb9", "%undefined", "@undefined", "index", "i1",
              "!stream.timepoint", "!stream.resource<*>", "!stream.resource<transient>", "tensor<?xf32>", "tensor<>",
              "stream.cmd.execute", "stream.timepoint.await", "util.return", "func.return", "\"x\"", "unit", "#hal.device.affinity<@dev9>",
              "dense<1>", "0x7FF80000", "[", "]", "...", "//", "// -----")
TYPES = ("i0", "i1", "i4", "i8", "ui8", "si32", "i64", "i128", "f16", "bf16", "f32", "f64", "f8E4M3FN", "complex<f32>",
         "complex<f64>", "index", "none", "tensor<4xf32>", "!stream.timepoint")
SMALL = ("0", "1", "-1", "2", "3", "7", "63", "65", "?", "4097")
HUGE = ("9223372036854775807", "9223372036854775808", "18446744073709551616", "-9223372036854775809",
        "10000000000000000000000000000000000000000", "99999999", "2147483648", "1e309", "0xFFFFFFFFFFFFFFFFFF")
ODD_TEXT = ("\u0663", "\u00b2", "\x00", "\\ud800", "\"unterminated", "\ufeff", "\t\t", "\r\n", "\u200b", "%\u00e9")


def seeds() -> list[Path]:
    return sorted(p for d in SEED_DIRS for p in (ROOT / d).rglob("*.mlir"))


def _tokens(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in TOKEN.finditer(text)]


def _replace(text: str, span: tuple[int, int], new: str) -> str:
    return text[: span[0]] + new + text[span[1]:]


def truncate(text: str, rng: random.Random, others: list[str]) -> tuple[str, str]:
    if rng.random() < 0.5:
        k = rng.randrange(len(text) + 1)
        return text[:k], f"truncate at byte {k}"
    lines = text.splitlines(keepends=True)
    k = rng.randrange(len(lines) + 1)
    return "".join(lines[:k]), f"truncate after line {k}"


def token_edit(text: str, rng: random.Random, others: list[str]) -> tuple[str, str]:
    spans = _tokens(text)
    if len(spans) < 2:
        return text + rng.choice(ODD_TOKENS), "append a token"
    i = rng.randrange(len(spans))
    kind = rng.choice(("delete", "duplicate", "swap", "replace", "odd"))
    if kind == "delete":
        return _replace(text, spans[i], ""), f"delete token {text[slice(*spans[i])]!r}"
    if kind == "duplicate":
        tok = text[slice(*spans[i])]
        return _replace(text, spans[i], f"{tok} {tok}"), f"duplicate token {tok!r}"
    if kind == "swap":
        j = rng.randrange(len(spans))
        a, b = sorted((spans[i], spans[j]))
        if a == b:
            return text, "swap a token with itself"
        ta, tb = text[slice(*a)], text[slice(*b)]
        return text[: a[0]] + tb + text[a[1]: b[0]] + ta + text[b[1]:], f"swap tokens {ta!r} and {tb!r}"
    new = text[slice(*rng.choice(spans))] if kind == "replace" else rng.choice(ODD_TOKENS)
    return _replace(text, spans[i], new), f"replace token {text[slice(*spans[i])]!r} by {new!r}"


def line_edit(text: str, rng: random.Random, others: list[str]) -> tuple[str, str]:
    lines = text.splitlines(keepends=True)
    if not lines:
        return "\n", "empty text"
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    kind = rng.choice(("delete", "duplicate", "swap", "move", "splice"))
    if kind == "delete":
        del lines[i]
    elif kind == "duplicate":
        lines.insert(i, lines[i])
    elif kind == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "move":
        lines.insert(j, lines.pop(i))
    else:
        donor = rng.choice(others).splitlines(keepends=True) or ["\n"]
        k = rng.randrange(len(donor))
        lines[i:i] = donor[k: k + rng.randint(1, 6)]
        return "".join(lines), f"splice {min(6, len(donor) - k)} donor lines at line {i + 1}"
    return "".join(lines), f"{kind} line {i + 1}" + (f" / {j + 1}" if kind in ("swap", "move") else "")


def _sub_one(text: str, pattern: re.Pattern[str], rng: random.Random, choices: tuple[str, ...] | Callable[[str], str]) -> tuple[str, str]:
    matches = list(pattern.finditer(text))
    if not matches:
        return text, "no match"
    m = rng.choice(matches)
    new = choices(m.group()) if callable(choices) else rng.choice(choices)
    return _replace(text, m.span(), new), f"{m.group()!r} -> {new!r} at byte {m.start()}"


def type_edit(text: str, rng: random.Random, others: list[str]) -> tuple[str, str]:
    if rng.random() < 0.2:  # every occurrence: a consistently retyped program
        old, new = rng.choice(("f32", "i32", "index", "i8")), rng.choice(TYPES)
        return re.sub(rf"(?<![A-Za-wyz0-9_$.%@]){re.escape(old)}(?![\w$.])", new, text), f"every {old} -> {new}"
    out, what = _sub_one(text, ELEMENT_TYPE, rng, TYPES)
    return out, f"type {what}"


def size_edit(text: str, rng: random.Random, others: list[str]) -> tuple[str, str]:
    def changed(old: str) -> str:
        n = int(old)
        return rng.choice((*SMALL, str(n + 1), str(max(n - 1, 0)), str(2 * n), str(n * n)))

    first, second = (DIM, INTEGER) if rng.random() < 0.5 else (INTEGER, DIM)
    out, what = _sub_one(text, first, rng, changed)
    if what == "no match":
        out, what = _sub_one(text, second, rng, changed)
    return out, f"size {what}"


def huge_edit(text: str, rng: random.Random, others: list[str]) -> tuple[str, str]:
    if rng.random() < 0.3:
        out, what = _sub_one(text, re.compile(r"(?<=<)\d+(?:x\d+)*(?=x[a-z])"), rng, ("99999999x99999999", "4294967296", "0x99999999"))
        return out, f"shape {what}"
    out, what = _sub_one(text, INTEGER, rng, HUGE)
    if what == "no match":
        out, what = _sub_one(text, DIM, rng, HUGE)
    return out, f"huge {what}"


def nesting_edit(text: str, rng: random.Random, others: list[str]) -> tuple[str, str]:
    depth = rng.choice((8, 40, 100, 150, 200, 300, 600))
    kind = rng.choice(("regions", "array", "dict"))
    if kind == "regions":
        m = re.search(r"\) (?:-> [^{\n]*)?\{\n", text)
        if m is None:
            return text, "no function body to nest"
        end = text.find("\n}", m.end())
        end = len(text) if end < 0 else end
        body = text[m.end(): end]
        wrapped = '"test.region"() ({\n' * depth + body + "\n" + '}) : () -> ()\n' * depth
        return text[: m.end()] + wrapped + text[end:], f"nest the first body in {depth} regions"
    value = "[" * depth + "1" + "]" * depth if kind == "array" else "{a = " * depth + "1" + "}" * depth
    m = re.search(r"^(\s*)(%[\w]+ = [\w.]+)", text, re.M)
    if m is None:
        return text + f"\nmodule attributes {{fuzz = {value}}} {{\n}}\n", f"a {depth}-deep {kind} module attribute"
    line_end = text.find("\n", m.end())
    line_end = len(text) if line_end < 0 else line_end
    return text[:line_end] + f" {{fuzz = {value}}}" + text[line_end:], f"a {depth}-deep {kind} attribute at byte {m.start()}"


def bytes_edit(text: str, rng: random.Random, others: list[str]) -> tuple[str, str]:
    k = rng.randrange(len(text) + 1)
    odd = rng.choice(ODD_TEXT)
    return text[:k] + odd + text[k:], f"insert {odd!r} at byte {k}"


FAMILIES: dict[str, Callable[[str, random.Random, list[str]], tuple[str, str]]] = {
    "truncate": truncate, "token": token_edit, "line": line_edit, "type": type_edit, "size": size_edit,
    "nesting": nesting_edit, "huge": huge_edit, "bytes": bytes_edit,
}
WEIGHTS = {"truncate": 2, "token": 4, "line": 3, "type": 3, "size": 4, "nesting": 1, "huge": 2, "bytes": 1}


MILD = ("type", "size", "huge")


def mutate(text: str, rng: random.Random, others: list[str], mild: float = 1 / 3) -> tuple[str, list[str]]:
    """`text` with one to three edits; the edits' descriptions, each prefixed with its family.
    A share `mild` of the mutants get a single mild edit (a type, a size or a number), which
    mostly still parses, so that the verifier, the passes and the runtime see them too."""
    if rng.random() < mild:
        family = rng.choice(MILD)
        text, what = FAMILIES[family](text, rng, others)
        return text, [f"{family}: {what}"]
    names = list(WEIGHTS)
    done = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        family = rng.choices(names, weights=[WEIGHTS[n] for n in names])[0]
        text, what = FAMILIES[family](text, rng, others)
        done.append(f"{family}: {what}")
    return text, done

"""The part of a verbatim executable body that says what its bindings address.

An executable whose body holds syntax streamproof does not model (`linalg`, `tensor` and friends
in IREE's pretty dumps) is kept as its exact text in a `streamproof.verbatim` op
(`stream.ir.parser`). `read_verbatim(text, export)` finds the exported function in that text
and reads the statements of its entry block that the narrowing of bindings looks at
(`verify.bindings`): single-line ops of the index arithmetic (`arith`, `util.assume.int`, a
workload ordinal) and `stream.binding.subspan`, with an op syntax streamproof reads. It
returns an executable body of those ops only (the export and the function in a `builtin.module`),
and per binding argument used by any other statement the reason it cannot be narrowed. A value
an offset needs from a statement left out is undefined in that body: the parse fails and the
executable is not read (the caller keeps the whole bindings).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stream.ir.core import Location, Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.parser import VERBATIM, parse_module
from stream.ir.rule_table import OpSet
from stream.ir.spec_registry import registered_names

__all__ = ["VERBATIM", "VerbatimRead", "read_verbatim", "PASS_THROUGH", "SSA_PREFIX"]

_SYMBOL = r'@(?:"(?:[^"\\]|\\.)*"|[\w.$-]+)'
_EXPORT = re.compile(rf"stream\.executable\.export\s+(?:(?:public|private|nested)\s+)?({_SYMBOL})(?:\s+as\s*\(\s*({_SYMBOL})\s*\))?")
_OP = re.compile(r'^\s*(?:%[\w$.#-]+(?::\d+)?(?:\s*,\s*%[\w$.#-]+(?::\d+)?)*\s*=\s*)?"?([A-Za-z_][\w$.]*)"?')
# The statements read: `arith` ops and these.
_READ = OpSet(
    "VERBATIM_READ",
    """Ops of a verbatim executable body read for narrowing bindings (with every `arith` op):
    the subspans and the index arithmetic of their offsets and sizes. Others are left out.""",
    ("util.assume.int", "iree_tensor_ext.dispatch.workload.ordinal", "stream.binding.subspan"),
)


# The body read renames every SSA value `%x` to `%sp_x`, a name the parser keeps as a hint (it
# drops printer-made ones such as `%4`), so that a value can be matched to the text's names.
SSA_PREFIX = "sp_"
_SSA = re.compile(r"%([\w$.-]+)")


@dataclass(slots=True)
class VerbatimRead:
    ops: tuple[Op, ...]  # the executable body: the export and a `builtin.module` with the function
    unread: dict[int, str] = field(default_factory=dict)  # binding index -> why it is not narrowed
    mentioned: frozenset[str] = frozenset()  # the SSA names the statements not read use


def _unquote(sym: str) -> str:
    return sym[2:-1] if sym.startswith('@"') else sym[1:]


def _balanced(text: str, start: int, open_: str, close: str) -> int:
    """The index just past the bracket closing the one at `start` (strings skipped), or -1."""
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def _statements(body: str) -> list[str]:
    """The top-level statements of a block's text (a statement with a region spans lines)."""
    out: list[str] = []
    current: list[str] = []
    depth = 0
    base: int | None = None
    for line in body.split("\n"):
        if not line.strip() and not current:
            continue
        indent = len(line) - len(line.lstrip())
        if base is None:
            base = indent
        if not current and out and indent > base:  # a continuation (`%r:2 = util.assume.int` then its operands)
            current = [out.pop()]
        current.append(line)
        for c in re.sub(r'"(?:[^"\\]|\\.)*"', "", line):
            if c in "({[":
                depth += 1
            elif c in ")}]":
                depth -= 1
        if depth <= 0:
            out.append("\n".join(current))
            current, depth = [], 0
    if current:
        out.append("\n".join(current))
    return out


# Ops whose results are their operands for what is read here (an assumption adds no fact; a
# workload ordinal is its operand): when their pretty syntax is not registered, a statement is
# read in this generic form, `%r = "op"(%x) : (index) -> index`.
PASS_THROUGH = OpSet(
    "VERBATIM_PASS_THROUGH",
    """Ops read in a generic form of their own when their pretty syntax is not registered: their
    result is their (first) operand for what the narrowing of bindings needs.""",
    ("util.assume.int", "iree_tensor_ext.dispatch.workload.ordinal"),
)


def _generic_pass_through(line: str, name: str) -> str | None:
    if "=" not in line or ":" not in line:
        return None
    results, rest = line.split("=", 1)
    rest = rest.strip()
    if not rest.startswith(name) or ":" not in rest:
        return None
    head, types = rest[len(name):].rsplit(":", 1)
    head = re.sub(r"<[^<>]*>", "", re.sub(r"\[[^\[\]]*\]", "", head))  # the assumptions
    operands = re.findall(r"%[\w$.-]+(?:#\d+)?", head)
    names = [r.strip() for r in results.split(",")]
    tys = [t.strip() for t in types.split(",")]
    if name != "util.assume.int":  # a workload ordinal: `%r = ...ordinal %x, 0 : index`
        operands = operands[:1]
    count = int(names[0].split(":", 1)[1]) if len(names) == 1 and ":" in names[0] else len(names)
    if len(names) != 1 or not operands or len(tys) != len(operands) or count != len(operands):
        return None
    return f'{names[0]} = "{name}"({", ".join(operands)}) : ({", ".join(tys)}) -> ({", ".join(tys)})'


def read_verbatim(text: str, export: str, location: Location | None = None) -> VerbatimRead | str:
    """The subspans' part of the executable body `text` for the export named `export`, or why it
    cannot be read."""
    func_name = None
    for m in _EXPORT.finditer(text):
        if _unquote(m.group(1)) == export:
            func_name = _unquote(m.group(2)) if m.group(2) else export
            break
    if func_name is None:
        return "no export of that name in the executable"
    header = re.search(rf'func\.func\s+(?:(?:public|private|nested)\s+)?@(?:"{re.escape(func_name)}"|{re.escape(func_name)})\s*\(', text)
    if header is None:
        return "the exported function is not in the executable (verbatim)"
    args_end = _balanced(text, header.end() - 1, "(", ")")
    open_brace = text.find("{", args_end) if args_end > 0 else -1
    # Between the arguments and the body: results and `attributes {...}` (skipped whole).
    while open_brace > 0 and text[args_end:open_brace].rstrip().endswith("attributes"):
        open_brace = text.find("{", _balanced(text, open_brace, "{", "}"))
    body_end = _balanced(text, open_brace, "{", "}") if open_brace > 0 else -1
    if body_end < 0:
        return "the exported function's text is not balanced"
    signature = text[header.end() - 1 : args_end]
    if "->" in text[args_end:open_brace]:
        return "the exported function returns values"
    args = re.findall(r"(%[\w$.-]+)\s*:\s*([^,{)]+)", signature)
    bindings = [name for name, t in args if t.strip() == "!stream.binding"]
    known = registered_names()
    kept: list[str] = []
    unread: dict[int, str] = {}
    mentioned: set[str] = set()
    for st in _statements(text[open_brace + 1 : body_end - 1]):
        op_match = _OP.match(st)
        name = op_match.group(1) if op_match else ""
        single = not any(line.rstrip().endswith("{") for line in st.split("\n"))  # no region
        keep = single and (name.startswith("arith.") or name in _READ) and (name in known or name in PASS_THROUGH)
        if keep:
            joined = " ".join(line.strip() for line in st.split("\n"))
            line = joined if name in known else _generic_pass_through(joined, name)
            keep = line is not None
            if line is not None:
                kept.append(line)
        if keep:
            if name == "stream.binding.subspan":
                continue
        else:
            mentioned.update(_SSA.findall(st))
        for j, b in enumerate(bindings):
            if j not in unread and re.search(rf"{re.escape(b)}(?![\w$.-])", st):
                unread[j] = f"used by '{name}'" if name else "used by a statement streamproof does not read"
    def rename(line: str) -> str:
        return _SSA.sub(lambda m: f"%{SSA_PREFIX}{m.group(1)}", line)

    lines = "\n".join("      " + rename(line) for line in kept)
    signature = rename(signature)
    mini = (f"stream.executable private @verbatim {{\n  stream.executable.export public @\"{export}\" as(@\"{func_name}\")\n"
            f"  builtin.module {{\n    func.func @\"{func_name}\"{signature} {{\n{lines}\n      return\n    }}\n  }}\n}}\n")
    try:
        module = parse_module(mini, location.file if location is not None else "<verbatim>")
    except DiagnosticError as e:
        first = str(e).split("\n", 1)[0].split("error: ", 1)[-1]
        return f"an offset computed by a statement streamproof does not read ({first})"
    (ex,) = module.ops
    return VerbatimRead(ex.regions[0].blocks[0].ops, unread, frozenset(mentioned))

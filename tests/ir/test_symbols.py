"""What ties ops together, checked as IREE and MLIR check it (issue 9 items 4 and 5).

Each is a bad-input diagnostic (`file:line:col: error:`, exit 2) from `verify` and from
`compile --pass-pipeline=` alike, never "proved": a function body without a terminator, a symbol
defined twice, a call to a function the module does not define or with another signature, and
IREE's op verifiers where the module holds what they look at (a dispatch's workload against its
entry point's workgroup count region, that region's XYZ results, a cmd.dispatch's resources and
uniform operands against the exported function, a tensor.dispatch's tied encodings). Each bad
program has a good twin that is accepted. `IREE_SRC=/path/to/iree pytest tests/ir/test_symbols.py`
also runs the `expected-error` cases of IREE's own `Dialect/Stream/IR/test/*.mlir`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import stream.ir as ir
from stream.ir.diagnostics import DiagnosticError
from stream.ir.parser import split_input_file
from stream.ir.verifier import structural_diagnostics, verify_structure
from streamproof.cli import main

EXT = "!stream.resource<external>"
FILL = f"""  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1_i32 = arith.constant 1 : i32
  %t = stream.cmd.execute with(%buf as %b: {EXT}{{%c64}}) {{
    stream.cmd.fill %c1_i32, %b[%c0 for %c64] : i32 -> {EXT}{{%c64}}
  }} => !stream.timepoint
  %r = stream.timepoint.await %t => %buf : {EXT}{{%c64}}
"""


def fn(body: str, name: str = "f", ret: str = f"  util.return %r : {EXT}\n") -> str:
    return f"util.func public @{name}(%buf: {EXT}) -> {EXT} {{\n{FILL}{body}{ret}}}\n"


CALLEE = f"util.func private @g(%a: {EXT}) -> i32\n"
CALL = f"  %x = util.call @g(%r) : ({EXT}) -> i32\n"

# name -> (bad program, the line of the error, what the message says, the good twin)
STRUCTURE = {
    "no terminator": (fn("", ret=""), 8, "block with no terminator: @f ends with 'stream.timepoint.await'", fn("")),
    "initializer without a terminator": (
        "util.initializer {\n  %c0 = arith.constant 0 : index\n}\n" + fn(""), 2, "block with no terminator: a 'util.initializer' ends with 'arith.constant'",
        "util.initializer {\n  %c0 = arith.constant 0 : index\n  util.return\n}\n" + fn("")),
    "duplicate function": (fn("") + fn(""), 11, "redefinition of symbol named 'f'", fn("") + fn("", name="f2")),
    "function and global of one name": (
        "util.global private @f : index\n" + fn(""), 2, "redefinition of symbol named 'f'", "util.global private @f0 : index\n" + fn("")),
    "call to an undefined function": (fn(CALL), 9, "'util.call' calls @g, which is not defined in this module", CALLEE + fn(CALL)),
    "call to a global": ("util.global private @g : index\n" + fn(CALL), 10, "which is a 'util.global', not a 'util.func'", CALLEE + fn(CALL)),
    "util.call of a func.func": (
        f"func.func private @g(%a: {EXT}) -> i32\n" + fn(CALL), 10, "which is a 'func.func', not a 'util.func'", CALLEE + fn(CALL)),
    "call with another signature": (
        f"util.func private @g(%a: {EXT}, %n: index) -> i32\n" + fn(CALL), 10, "'util.call' function type mismatch", CALLEE + fn(CALL)),
}


def executable(workgroups: str, function_args: str) -> str:
    return f"""stream.executable private @ex {{
  stream.executable.export public @k{workgroups}
  builtin.module {{
    util.func private @k({function_args}) {{
      util.return
    }}
  }}
}}
"""


XYZ_BODY = " {\n    stream.return %w, %w, %w : index, index, index\n  }"
ONE_ARG = f" workgroups(%w: index) -> (index, index, index){XYZ_BODY}"
TWO_BINDINGS = "%a: !stream.binding, %b: !stream.binding, %n: index"


def cmd_dispatch(workload: str, uniforms: str, bindings: int) -> str:
    bound = ",\n      ".join(f"wo %b[%c0 for %c64] : {EXT}{{%c64}}" for _ in range(bindings))
    return f"""util.func public @f(%buf: {EXT}) -> !stream.timepoint {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = stream.cmd.execute with(%buf as %b: {EXT}{{%c64}}) {{
    stream.cmd.dispatch @ex::@k{workload}{uniforms} {{
      {bound}
    }}
  }} => !stream.timepoint
  util.return %t : !stream.timepoint
}}
"""


def async_dispatch(workload: str) -> str:
    return f"""util.func public @f(%buf: {EXT}) -> {EXT} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %r = stream.async.dispatch @ex::@k{workload}(%buf[%c0 to %c64 for %c64]) : ({EXT}{{%c64}}) -> {EXT}{{%c64}}
  util.return %r : {EXT}
}}
"""


def tensor_dispatch(result: str) -> str:
    return f"""util.func public @f(%buf: {EXT}, %n: index) -> {EXT} {{
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %r = stream.tensor.dispatch @ex::@k[%c1](%buf, %n) : (tensor<4x?xf32>{{%n}} in {EXT}{{%c64}}, index) -> {result}{{%n}} in %buf{{%c64}}
  util.return %r : {EXT}
}}
"""


EXPORT = """util.func public @f(%r: !stream.resource<external>, %n: index) -> !hal.buffer_view {{
  %c64 = arith.constant 64 : index
  %v = stream.tensor.export %r : tensor<?x4xf32>{dims} in !stream.resource<external>{{%c64}} -> !hal.buffer_view
  util.return %v : !hal.buffer_view
}}
"""
EXEC = executable(ONE_ARG, TWO_BINDINGS)
IREE_CHECKS = {
    "workload arity": (EXEC + async_dispatch("[%c1, %c1]"), 15, "workload mismatch: entry point @ex::@k expects 1 argument(s) but the dispatch provides 2",
                       EXEC + async_dispatch("[%c1]")),
    "workgroup count results (pretty)": (
        executable(" workgroups(%w: index) -> (index, index) {\n    stream.return %w, %w : index, index\n  }", "") + async_dispatch("[%c1]"), 2,
        "workgroup count region must return the XYZ dimension counts", EXEC + async_dispatch("[%c1]")),
    "workgroup count results (generic)": (
        executable(' workgroups(%w: index) -> (index, index, index) {\n    "stream.return"(%w, %w, %c) : (index, index, f32) -> ()\n  }', "")
        .replace("    \"stream.return\"", "    %c = arith.constant 1.0 : f32\n    \"stream.return\""), 4,
        "workgroup count region must return the XYZ dimension counts (three index values), not (index, index, f32)", EXEC),
    "binding count": (EXEC + cmd_dispatch("[%c1]", "(%c1 : index)", 1), 16,
                      "'stream.cmd.dispatch' function type mismatch: 1 resource(s) but the exported function takes 2 binding argument(s)",
                      EXEC + cmd_dispatch("[%c1]", "(%c1 : index)", 2)),
    "uniform count": (EXEC + cmd_dispatch("[%c1]", "", 2), 16,
                      "'stream.cmd.dispatch' function type mismatch: 0 uniform operand(s) but the exported function takes 1",
                      EXEC + cmd_dispatch("[%c1]", "(%c1 : index)", 2)),
    "uniform types": (EXEC + cmd_dispatch("[%c1]", "(%x : i32)", 2).replace("  %c64 = ", "  %x = arith.constant 1 : i32\n  %c64 = "), 17,
                      "'stream.cmd.dispatch' uniform operand #0 type mismatch: the exported function expects index but the dispatch passes i32",
                      EXEC + cmd_dispatch("[%c1]", "(%c1 : index)", 2)),
    "tied encoding": (tensor_dispatch("tensor<?x4xf32>"), 4,
                      "the 0-th operandEncoding (tensor<4x?xf32>) does not match the resultEncoding (tensor<?x4xf32>)",
                      tensor_dispatch("tensor<4x?xf32>")),
    # A fuzz finding: without its {%n} the export's shape was unknown, and `run` an IndexError (exit 3).
    "dynamic dims": (EXPORT.format(dims=""), 3, "tensor<?x4xf32> has 1 dynamic dimension(s) but 0 dimension value(s) are attached",
                     EXPORT.format(dims="{%n}")),
}
CASES = {**STRUCTURE, **IREE_CHECKS}


def write(tmp_path: Path, text: str, name: str = "prog.mlir") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_bad_input_is_exit_2_with_its_location(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad, line, says, _ = CASES[case]
    path = write(tmp_path, bad)
    for argv in (["verify", path], ["compile", "--pass-pipeline=", path, "-o", str(tmp_path / "out.mlir")]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert f"{path}:{line}:" in err.splitlines()[0] and says in err, err
        assert "proved" not in err and "Traceback" not in err


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_the_good_twin_is_accepted(case: str) -> None:
    good = CASES[case][3]
    assert structural_diagnostics(ir.parse_module(good, "good.mlir")) == []


def test_a_redefinition_points_at_the_first_definition() -> None:
    with pytest.raises(DiagnosticError) as caught:
        verify_structure(ir.parse_module(fn("") + fn(""), "dup.mlir"))
    text = str(caught.value)
    assert "dup.mlir:11:1: error: redefinition of symbol named 'f'" in text and "dup.mlir:1:1" in text and "see existing symbol definition here" in text


def test_symbols_are_per_table() -> None:
    # An export and its function may share a name (different tables: the executable, its inner
    # module), and so may two executables' exports; two exports of one executable may not.
    text = EXEC + EXEC.replace("@ex ", "@ex2 ")
    assert structural_diagnostics(ir.parse_module(text, "t.mlir")) == []
    twice = EXEC.replace("  builtin.module", f"  stream.executable.export public @k{ONE_ARG}\n  builtin.module")
    (d,) = structural_diagnostics(ir.parse_module(twice, "t.mlir"))
    assert d.message == "redefinition of symbol named 'k'"


def test_entry_points_not_in_the_module_are_accepted() -> None:
    # As IREE does (its verifier bails out): dumps and tests name executables they omit.
    assert structural_diagnostics(ir.parse_module(async_dispatch("[%c1, %c1]"), "t.mlir")) == []
    # An export without a workgroup count region takes any workload.
    assert structural_diagnostics(ir.parse_module(executable("", TWO_BINDINGS) + async_dispatch("[%c1, %c1]"), "t.mlir")) == []


IREE_TESTS = "compiler/src/iree/compiler/Dialect/Stream/IR/test"


@pytest.mark.skipif(not os.environ.get("IREE_SRC"), reason="set IREE_SRC to an IREE checkout to run IREE's invalid cases")
def test_iree_expected_error_cases_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(os.environ["IREE_SRC"]) / IREE_TESTS
    refused = 0
    for source in sorted(root.glob("*.mlir")):
        for i, (chunk, _) in enumerate(split_input_file(source.read_text())):
            if "expected-error" not in chunk:
                continue
            assert main(["verify", write(tmp_path, chunk, f"{source.stem}_{i}.mlir")]) == 2, (source.name, i)
            capsys.readouterr()
            refused += 1
    assert refused >= 6

"""Deep nesting (issue 9, item 11): regions, attribute arrays and dictionaries, and types nested up
to the parser's limit (MAX_NESTING = 256) parse, print in both forms, read back equal, verify and
run; one level deeper is a `file:line:col` diagnostic naming the limit (exit 2), never a
RecursionError. A recursion without end under `run` is an error naming MAX_CALL_DEPTH (exit 1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import runtime
import stream.ir as ir
import streamproof
from runtime.status import MAX_CALL_DEPTH
from stream.ir.equality import structurally_equal
from stream.ir.parse_attrs import MAX_NESTING
from stream.ir.verifier import verify_structure
from streamproof.cli import main

ROOT = Path(__file__).resolve().parents[2]
COPY = "stream.cmd.copy %a[%c0], %o[%c0], %c64 : !stream.resource<external>{%c64} -> !stream.resource<external>{%c64}"


def cmd_program(levels: int, leaf: str = "") -> str:
    """A cmd-level function whose execute region holds `levels` nested serial/concurrent regions
    (so `levels + 2` regions in all, with the function body and the execute region)."""
    inner = f"{leaf}\n{COPY}\n"
    for i in range(levels):
        inner = f"stream.cmd.{'serial' if i % 2 == 0 else 'concurrent'} {{\n{inner}}}\n"
    return f"""util.func public @deep(%in: !stream.resource<external>) -> !stream.resource<external> {{
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %out, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<external>{{%c64}} => !stream.timepoint
  %t1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%t0) => with(%in as %a: !stream.resource<external>{{%c64}}, %out as %o: !stream.resource<external>{{%c64}}) {{
{inner}  }} => !stream.timepoint
  %r = stream.timepoint.await %t1 => %out : !stream.resource<external>{{%c64}}
  util.return %r : !stream.resource<external>
}}
"""


def nested_attr(levels: int) -> str:
    """Arrays and dictionaries alternating, `levels` deep."""
    text = "1 : i32"
    for i in range(levels):
        text = f"{{a = {text}}}" if i % 2 else f"[{text}]"
    return text


def nested_function_type(levels: int) -> str:
    text = "i32"
    for _ in range(levels):
        text = f"({text}) -> i32"
    return text


def with_attrs(program: str, attr_levels: int, type_levels: int) -> str:
    constant = (f'%k = "arith.constant"() <{{value = 0 : index}}> {{x = {nested_attr(attr_levels)}, '
                f't = {nested_function_type(type_levels)}}} : () -> index')
    return program.replace("%c0 = arith.constant 0 : index", "%c0 = arith.constant 0 : index\n  " + constant, 1)


def deepest() -> str:
    """Every kind of nesting at the limit at once."""
    return with_attrs(cmd_program(MAX_NESTING - 2), MAX_NESTING, MAX_NESTING - 1)


def test_the_deepest_accepted_module_reads_prints_and_verifies() -> None:
    text = deepest()
    m = ir.parse_module(text, "deep.mlir")
    verify_structure(m)
    pretty = ir.print_module(m)
    generic = ir.print_module(m, generic=True)
    assert structurally_equal(ir.parse_module(pretty), m)
    assert structurally_equal(ir.parse_module(generic), m)
    assert ir.print_module(ir.parse_module(pretty)) == pretty
    assert streamproof.verify(m).ok


def test_the_deepest_accepted_module_runs() -> None:
    m = ir.parse_module(deepest(), "deep.mlir")
    x = np.arange(16, dtype=np.float32)
    result = runtime.run_module(m, [x.view(np.uint8).copy()], driver="task", check_races=True)
    assert not result.errors
    np.testing.assert_array_equal(np.asarray(result.results[0]).view(np.float32), x)


@pytest.mark.parametrize(
    "text, line",
    [
        (cmd_program(MAX_NESTING - 1), MAX_NESTING + 4),
        (with_attrs(cmd_program(0), MAX_NESTING + 1, 0), 3),
        (with_attrs(cmd_program(0), 0, MAX_NESTING + 1), 3),
        ("func.func @f() -> " + "tensor<4x" * (MAX_NESTING + 1) + "f32" + ">" * (MAX_NESTING + 1) + "\n", 1),
    ],
    ids=["regions", "attributes", "function types", "tensor types"],
)
def test_one_level_deeper_is_a_diagnostic_naming_the_limit(text: str, line: int) -> None:
    with pytest.raises(ir.DiagnosticError) as info:
        ir.parse_module(text, "deep.mlir")
    message = str(info.value)
    assert message.startswith(f"deep.mlir:{line}:") and f"MAX_NESTING = {MAX_NESTING}" in message, message


def test_a_region_body_kept_verbatim_does_not_leak_nesting() -> None:
    # An executable body with syntax streamproof does not model is kept as text after a partial
    # parse; the nesting levels that partial parse entered must not count against what follows.
    body = "".join("[" for _ in range(100)) + "1" + "]" * 100
    exe = f"""stream.executable private @ex {{
  stream.executable.export public @e
  builtin.module {{
    func.func @e() attributes {{x = {body}}} {{
      linalg.unknown_op
      return
    }}
  }}
}}
"""
    m = ir.parse_module(exe * 3 + with_attrs(cmd_program(0), MAX_NESTING, 0), "v.mlir")
    assert len(m.ops) == 4


def test_cli_in_a_fresh_interpreter(tmp_path: Path) -> None:
    """The commands at the default recursion limit (a fresh process): deep input works, deeper
    input is exit 2 with the limit named."""
    ok = tmp_path / "ok.mlir"
    ok.write_text(deepest())
    deeper = tmp_path / "deeper.mlir"
    deeper.write_text(cmd_program(MAX_NESTING - 1))
    npy = tmp_path / "x.npy"
    np.save(npy, np.zeros(64, np.uint8))

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "streamproof", *argv], capture_output=True, text=True, cwd=ROOT, timeout=120)

    for argv in (["compile", "--pass-pipeline=", str(ok)], ["compile", "--pass-pipeline=", "--generic", str(ok)],
                 ["verify", str(ok)], ["run", str(ok), "--input", f"@{npy}"]):
        done = cli(*argv)
        assert done.returncode == 0, (argv, done.stderr)
    for command in ("compile", "verify", "run"):
        done = cli(command, str(deeper))
        assert done.returncode == 2, done.stderr
        assert f"deeper.mlir:{MAX_NESTING + 4}:" in done.stderr and "MAX_NESTING" in done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr


RECURSIVE = """util.func public @f(%x: index) -> index {
  %r = util.call @g(%x) : (index) -> index
  util.return %r : index
}
util.func private @g(%x: index) -> index {
  %r = util.call @f(%x) : (index) -> index
  util.return %r : index
}
"""


def test_recursion_without_end_is_a_run_time_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    m = ir.parse_module(RECURSIVE, "rec.mlir")
    with pytest.raises(runtime.ExecutionError, match=rf"call depth exceeds {MAX_CALL_DEPTH} .*MAX_CALL_DEPTH.*@f -> @g -> @f"):
        runtime.run_module(m, [3])
    with pytest.raises(runtime.ExecutionError, match="MAX_CALL_DEPTH"):
        runtime.run_reference(m, [3], "f")
    path = tmp_path / "rec.mlir"
    path.write_text(RECURSIVE)
    assert main(["run", str(path), "--input", "3"]) == 1
    err = capsys.readouterr().err
    assert "rec.mlir:6:" in err and "MAX_CALL_DEPTH" in err and "internal error" not in err


def test_calls_just_under_the_limit_run() -> None:
    # A call chain MAX_CALL_DEPTH deep (the entry function included) is fine.
    funcs = [f"""util.func {'public' if i == 0 else 'private'} @f{i}(%x: index) -> index {{
  %r = util.call @f{i + 1}(%x) : (index) -> index
  util.return %r : index
}}""" for i in range(MAX_CALL_DEPTH - 1)]
    funcs.append(f"util.func private @f{MAX_CALL_DEPTH - 1}(%x: index) -> index {{\n  util.return %x : index\n}}")
    m = ir.parse_module("\n".join(funcs), "chain.mlir")
    assert runtime.run_module(m, [7], function="f0").results == [7]
    assert runtime.run_reference(m, [7], "f0") == [7]

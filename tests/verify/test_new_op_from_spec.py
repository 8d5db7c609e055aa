"""Adding an op with standard resource behaviour takes its spec entry only.

A child process defines one new op, `test.async.window` (a slice: it reads `[offset, end)` of its
source into a fresh value), by an `OpSpec` with its assembly format and interfaces, and nothing
else: no effect rule, no storage rule, no hazard or range table entry. The parser and printer, the
structural verifier's range check, the storage and hazard analyses and the verifier then all know
what it does. (A child process, so the op never enters this process's registry, which the
coverage tests walk.)
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

_CHILD = textwrap.dedent('''
    import json, sys
    from stream.dialect import load_all
    from stream.dialect.common import AFFINITY, ASYNC, ON, idx, res, rres
    from stream.ir.interfaces import Access, Sized
    from stream.ir.spec import OpSpec, define

    load_all()
    define(OpSpec(
        "test.async.window",
        operands=(res("source"), idx("source_size"), idx("source_offset"), idx("source_end"), idx("result_size")),
        results=(rres("result"),),
        attrs=(AFFINITY,),
        sized=Sized((("source", "source_size"),), "result_size"),
        accesses=(Access("source", "source_size", "source_offset", "source_end", "result_size"),),
        levels=ASYNC,
        defines_level="async",
        traits=frozenset({"streamable"}),
        format=f"{ON} $source `[` $source_offset `to` $source_end `]` `:` type($source) `` `{{` $source_size `}}` `->` "
        "type($result) `` `{` $result_size `}` attr-dict-with-keyword",
    ))

    import stream.ir as ir
    import streamproof
    from stream.analysis.resource_hazards import op_accesses
    from stream.analysis.storage import operand_sizes, result_sizes
    from stream.ir.diagnostics import DiagnosticError
    from stream.ir.verifier import verify_structure
    from stream.ir.walk import functions

    out = {}
    for name, text in json.loads(sys.stdin.read()).items():
        try:
            module = ir.parse_module(text, name + ".mlir")
            verify_structure(module)
        except DiagnosticError as e:
            out[name] = {"error": str(e).splitlines()[0]}
            continue
        ops = [op for f in functions(module) for op in f.op.walk() if op.name == "test.async.window"]
        report = streamproof.verify(text, filename=name + ".mlir")
        out[name] = {
            "roundtrip": ir.print_module(ir.parse_module(ir.print_module(module), "again.mlir")) == ir.print_module(module),
            "accesses": [(a.mode.name, a.start is not None) for a in op_accesses(ops[0])],
            "sizes": [len(operand_sizes(ops[0])), len(result_sizes(ops[0]))],
            "ok": report.ok,
            "text": report.text(),
        }
    print(json.dumps(out))
''')

_PROGRAM = """
util.func public @window(%view: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %start = START
  %end = arith.addi %start, %c64 : index
  %in = stream.tensor.import on(#hal.device.affinity<@dev0>) %view : !hal.buffer_view -> tensor<64xf32> in !stream.resource<external>{%c256}
  %r1, %t1 = stream.async.execute on(#hal.device.affinity<@dev0>) with(%in as %a: !stream.resource<external>{%c256}) -> !stream.resource<external>{%c64} {
    %s = test.async.window %a[%start to %end] : !stream.resource<external>{%c256} -> !stream.resource<external>{%c64}
    stream.yield %s : !stream.resource<external>{%c64}
  } => !stream.timepoint
  %r = stream.timepoint.await %t1 => %r1 : !stream.resource<external>{%c64}
  %out = stream.tensor.export on(#hal.device.affinity<@dev0>) %r : tensor<16xf32> in !stream.resource<external>{%c64} -> !hal.buffer_view
  util.return %out : !hal.buffer_view
}
"""


def _run(programs: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(programs), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_new_op_needs_only_its_spec() -> None:
    out = _run({
        "inside": _PROGRAM.replace("START", "arith.constant 16 : index"),
        "symbolic": _PROGRAM.replace("START", "arith.addi %n, %c0 : index"),
        "bad_range": _PROGRAM.replace("START", "arith.constant 16 : index").replace("%start to %end]", "%start to %c64]"),
    })
    inside, symbolic = out["inside"], out["symbolic"]
    # The format reads and prints it; the analyses see one ranged read and the sizes.
    assert inside["roundtrip"] is True
    assert inside["accesses"] == [["READ", True], ["WRITE", False]]  # the source range; the fresh result
    assert inside["sizes"] == [1, 1]
    # The verifier models it from the spec: [16, 80) of 256 bytes is proved in bounds ...
    assert inside["ok"] is True, inside["text"]
    # ... and [n, n + 64) is out of bounds for n > 192 (not undecided: the op is not unknown).
    assert symbolic["ok"] is False
    assert "OUT_OF_BOUNDS" in symbolic["text"] and "undecided" not in symbolic["text"].lower(), symbolic["text"]
    # The structural verifier checks its constant range against its declared length.
    assert "error" in out["bad_range"] and "16 + 64 != 64" in out["bad_range"]["error"], out["bad_range"]

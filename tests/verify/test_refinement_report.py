"""The refinement report (text and JSON), the verdicts, failing closed, and the diagnostics for
input the check does not support."""

from __future__ import annotations

import json

import pytest

from stream.ir import DiagnosticError, parse_module
from verify.refinement import SCHEMA, check_refinement

D0 = "#hal.device.affinity<@dev0>"
E = "!stream.resource<external>{%c64}"


def program(kernel: str = "@k", name: str = "f", extra: str = "") -> str:
    return f"""
util.func public @{name}(%arg0: !hal.buffer_view) -> !hal.buffer_view {{
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %x = stream.tensor.import on({D0}) %arg0 : !hal.buffer_view -> tensor<16xf32> in {E}
  %y = stream.async.dispatch on({D0}) {kernel}(%x[%c0 to %c64 for %c64]) : ({E}) -> {E}
  %e = stream.tensor.export on({D0}) %y : tensor<16xf32> in {E} -> !hal.buffer_view
  util.return %e : !hal.buffer_view
}}
{extra}"""


def check(before: str, after: str, **kw: object):  # type: ignore[no-untyped-def]
    return check_refinement(parse_module(before, "before.mlir"), parse_module(after, "after.mlir"), **kw)  # type: ignore[arg-type]


def test_proved_report() -> None:
    r = check(program(), program())
    assert (r.ok, r.status, r.exit_code) == (True, "proved", 0)
    assert r.functions == ["f"] and r.cases == 1
    assert r.render_text().splitlines() == [r.summary()]
    assert "after.mlir refines before.mlir (@f; 1 case(s)" in r.summary()


def test_mismatch_text_and_json() -> None:
    r = check(program(), program("@other"))
    assert (r.ok, r.status, r.exit_code) == (False, "mismatch", 1)
    m = r.mismatches[0]
    assert (m.klass, m.function, m.result, m.result_name, m.observable) == ("VALUE_MISMATCH", "f", 0, "%e", "result")
    assert m.op == "stream.async.dispatch @other" and (m.location.file, m.location.line) == ("after.mlir", 6)
    lines = m.render_text().splitlines()
    assert lines[0] == "after.mlir:6:3: error: VALUE_MISMATCH in @f: result 0 (%e) differs at bytes [0, 64)"
    assert lines[1] == "  after:  @other#1(arg0[64])[64]"
    assert lines[2] == "  before: @k#1(arg0[64])[64]"
    assert lines[3] == "  first diverging op of AFTER: stream.async.dispatch @other at after.mlir:6:3"
    doc = json.loads(json.dumps(r.to_json()))
    assert doc["schema"] == SCHEMA and doc["status"] == "mismatch"
    assert doc["before"] == "before.mlir" and doc["after"] == "after.mlir" and doc["functions"] == ["f"]
    (jm,) = doc["mismatches"]
    assert set(jm) == {"class", "function", "observable", "result", "result_name", "op", "location", "byte_range", "before",
                       "after", "message", "assumptions", "example"}
    assert jm["class"] == "VALUE_MISMATCH" and jm["location"] == {"file": "after.mlir", "line": 6, "col": 3}
    assert jm["byte_range"] == ["0", "64"]
    assert set(doc["stats"]) == {"cases", "solver_queries", "seconds"}


def test_one_function_or_all() -> None:
    two = program(extra=program(name="g").replace("util.func public", "util.func private"))
    bad = program(extra=program("@other", name="g").replace("util.func public", "util.func private"))
    assert check(two, bad, function="f").ok
    r = check(two, bad)
    assert r.functions == ["f", "g"] and [m.function for m in r.mismatches] == ["g"]
    with pytest.raises(DiagnosticError, match="no function @h"):
        check(two, bad, function="h")


def test_missing_public_function_and_signature_change() -> None:
    r = check(program(extra=program(name="g")), program())
    assert r.status == "mismatch" and r.mismatches[0].function == "g" and "no body" in r.mismatches[0].message
    other = program().replace("(%arg0: !hal.buffer_view) -> !hal.buffer_view {", "(%arg0: !hal.buffer_view, %n: index) -> !hal.buffer_view {")
    r = check(program(), other)
    assert r.status == "mismatch" and "signatures do not correspond" in r.mismatches[0].message


def test_blocks_and_scf_regions_are_followed() -> None:
    cf = """
func.func @f(%n: index) -> index {
  "cf.br"()[^bb1] : () -> ()
^bb1:
  return %n : index
}
"""
    scf = """
func.func @f(%n: index) -> index {
  %r = "scf.execute_region"() ({
    "scf.yield"(%n) : (index) -> ()
  }) : () -> index
  return %r : index
}
"""
    assert check(cf, scf).status == "proved"
    doubled = cf.replace("^bb1:\n  return %n", "^bb1:\n  %d = arith.addi %n, %n : index\n  return %d")
    assert doubled != cf and check(scf, doubled).status == "mismatch"


def test_an_op_with_regions_and_no_rule_is_refused() -> None:
    text = """
func.func @f(%n: index) -> index {
  %r = "test.region"() ({
    "test.yield"(%n) : (index) -> ()
  }) : () -> index
  return %r : index
}
"""
    with pytest.raises(DiagnosticError, match="'test.region' has regions the refinement check does not model") as e:
        check(text, text)
    assert e.value.diagnostic.location.line == 3


SCATTER = f"""
util.func public @f(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %row: index) -> !hal.buffer_view {{
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %o = arith.muli %row, %c16 : index
  %e = arith.addi %o, %c16 : index
  %x = stream.tensor.import on({D0}) consume %arg0 : !hal.buffer_view -> tensor<16xf32> in {E}
  %u = stream.tensor.import on({D0}) %arg1 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{{%c16}}
  %y = stream.async.update on({D0}) %u, %x[%o to %e] : !stream.resource<external>{{%c16}} -> %x as {E}
  %s = stream.async.slice on({D0}) %y[%c0 to %c16] : {E} -> !stream.resource<external>{{%c16}}
  %r = stream.tensor.export on({D0}) %s : tensor<4xf32> in !stream.resource<external>{{%c16}} -> !hal.buffer_view
  util.return %r : !hal.buffer_view
}}
"""


def test_case_limit_fails_closed() -> None:
    assert check(SCATTER, SCATTER).ok
    r = check(SCATTER, SCATTER, max_cases=1)
    assert (r.ok, r.status, r.exit_code) == (False, "unknown", 3)
    assert r.unknowns[0].klass == "REFINEMENT_UNKNOWN" and "cases" in r.unknowns[0].reason
    assert json.loads(json.dumps(r.to_json()))["unknowns"][0]["class"] == "REFINEMENT_UNKNOWN"


def test_solver_limit_fails_closed() -> None:
    # A cubic size: Z3 cannot answer within a tiny resource limit, and that is never "proved".
    cubic = SCATTER.replace("%o = arith.muli %row, %c16 : index", "%sq = arith.muli %row, %row : index\n  %o = arith.muli %sq, %row : index")
    r = check(cubic, cubic, rlimit=1)
    assert r.status == "unknown", r.render_text()
    assert "resource limit" in r.unknowns[0].reason


def test_unexpandable_strided_slice_is_unknown() -> None:
    flow = """
func.func @f(%x: tensor<?x4xf32>, %n: index) -> tensor<?x2xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %s = flow.tensor.slice %x[%c0, %c0 for %n, %c2] : tensor<?x4xf32>{%n} -> tensor<?x2xf32>{%n}
  return %s : tensor<?x2xf32>
}
"""
    r = check(flow, flow)
    assert r.status == "unknown" and "strided slice" in r.unknowns[0].reason


def test_case_limit_is_per_function() -> None:
    # Issue 9 item 10: 70 static functions take one case each; the 65th is no more undecided than
    # the first (the limit used to count the cases of the whole module).
    many = "".join(program(name=f"f{i}") for i in range(70))
    r = check(many, many)
    assert (r.status, r.cases, len(r.functions)) == ("proved", 70, 70), r.render_text()
    # The limit still holds within one function.
    assert check(SCATTER + many, SCATTER + many, max_cases=1).status == "unknown"

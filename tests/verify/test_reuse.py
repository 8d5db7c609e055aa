"""Incremental verification across passes (`verify_module(..., reuse=cache)`, used by the pass
hook): a function proved before is not checked again while it and everything its verdict
depends on (module ops that are not functions, its callees) are the same ops or equal up to
renaming; a change in a callee, or a function with a finding, is checked every time."""

from __future__ import annotations

from stream.ir.core import Module
from stream.ir.parser import parse_module
from verify import verify_module
from verify.api import ProvedCache

TEXT = """
util.func private @helper(%r: !stream.resource<external>, %n: index) -> !stream.resource<external> {
  util.return %r : !stream.resource<external>
}
util.func public @caller(%r: !stream.resource<external>, %n: index) -> !stream.resource<external> {
  %0 = util.call @helper(%r, %n) : (!stream.resource<external>, index) -> !stream.resource<external>
  util.return %0 : !stream.resource<external>
}
util.func public @alone(%r: !stream.resource<external>, %n: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  %t = stream.cmd.execute with(%r as %a: !stream.resource<external>{%n}) {
    stream.cmd.fill %c7, %a[%c0 for %n] : i32 -> !stream.resource<external>{%n}
  } => !stream.timepoint
  %done = stream.timepoint.await %t => %r : !stream.resource<external>{%n}
  util.return %done : !stream.resource<external>
}
"""


def _notes(report) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {f.name: f.note for f in report.functions}


def _replace_function(module: Module, name: str, text: str) -> Module:
    new = parse_module(text, "new.mlir").ops[0]
    return module.replace(ops=tuple(new if op.properties.get("sym_name") is not None and op.properties["sym_name"].value == name  # type: ignore[union-attr]
                                    else op for op in module.ops))


def test_unchanged_functions_are_not_checked_again_and_changed_ones_are() -> None:
    module = parse_module(TEXT, "m.mlir")
    cache: ProvedCache = {}
    first = verify_module(module, reuse=cache)
    assert first.status == "proved", first.text()
    assert not any("unchanged" in n for n in _notes(first).values())
    again = verify_module(module, reuse=cache)
    assert again.status == "proved" and all("unchanged" in n for n in _notes(again).values()), _notes(again)
    assert again.stats.obligations == 0
    # The same text parsed again: other ops, equal up to renaming: still reused.
    reparsed = verify_module(parse_module(TEXT, "again.mlir"), reuse=cache)
    assert all("unchanged" in n for n in _notes(reparsed).values()), _notes(reparsed)
    # A changed @helper: @caller depends on it (its summary) and is checked again, @alone is not.
    helper = TEXT.split("util.func public @caller")[0].replace("  util.return %r", "  %c1 = arith.constant 1 : index\n  util.return %r")
    changed = _replace_function(module, "helper", helper)
    third = verify_module(changed, reuse=cache)
    notes = _notes(third)
    assert "unchanged" in notes["alone"] and "unchanged" not in notes["caller"] and "unchanged" not in notes["helper"], notes


def test_a_function_with_a_finding_is_checked_every_time() -> None:
    # @alone's fill is not awaited before the return hands the buffer back: a MISSED_WAIT.
    text = TEXT.replace("util.return %done : !stream.resource<external>", "util.return %r : !stream.resource<external>")
    module = parse_module(text, "m.mlir")
    cache: ProvedCache = {}
    first = verify_module(module, reuse=cache)
    second = verify_module(module, reuse=cache)
    assert "MISSED_WAIT" in first.classes and first.classes == second.classes
    assert "unchanged" not in _notes(second)["alone"]

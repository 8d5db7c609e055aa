"""The executable checklist for adding an op: every registered op against every per-op table.

Every per-op table is a `stream.ir.rule_table.RuleTable` with a declared policy for ops it has no
entry for and a declared requirement (which registered ops must have one). This test imports every
product module, prints the matrix of registered ops against the tables (`pytest -s` shows it; so
does `python tests/test_op_coverage.py`), and fails when an op its table's requirement includes has
no entry: the failure says which table, in which file, and what the missing rule must do.
`python tests/test_op_coverage.py OP ...` prints the checklist of one op: the tables that must
have an entry for it and the others that have one.

It also prints the census of tables keyed by op name (`tests/op_census.py`): the figures issue 10
compares before and after the tables were unified.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import op_census  # noqa: E402

from stream.ir.rule_table import POLICIES, RuleTable, all_tables  # noqa: E402
from stream.ir.spec_registry import lookup, registered_names  # noqa: E402


def _tables() -> list[RuleTable[Any]]:
    for name in op_census._module_names():
        importlib.import_module(name)
    return sorted(all_tables(), key=lambda t: (t.module, t.name))


def _registered() -> dict[str, Any]:
    return {n: lookup(n) for n in registered_names()}


def _file(table: RuleTable[Any]) -> str:
    module = sys.modules[table.module]
    return str(Path(module.__file__ or "?").resolve().relative_to(ROOT))


def matrix(tables: list[RuleTable[Any]], registered: dict[str, Any]) -> str:
    """Rows: registered ops; columns: tables (numbered, legend first). `x` an entry, `!` a required
    entry that is missing; otherwise blank (the table's policy applies)."""
    lines = ["rule tables (policy; required: which ops):"]
    for i, t in enumerate(tables):
        lines.append(f"  {i:2} {t.module}.{t.name} [{t.policy}; {len(t)} entries] requires {t.requires.describe()}")
    width = max(len(n) for n in registered)
    lines.append(" " * width + " " + "".join(f"{i % 100:>3}" for i in range(len(tables))))
    for name, spec in registered.items():
        cells = []
        for t in tables:
            needed = t.requires.includes(name, spec)
            cells.append("x" if name in t else "!" if needed else "")
        lines.append(f"{name:<{width}} " + "".join(f"{c:>3}" for c in cells))
    return "\n".join(lines)


def failures(tables: list[RuleTable[Any]], registered: dict[str, Any]) -> list[str]:
    """One message per (op, table) where a required entry is missing: the checklist."""
    out = []
    for t in tables:
        for op in t.missing(registered):
            out.append(
                f"{op} has no entry in {t.name} ({_file(t)}, policy {t.policy}; it requires {t.requires.describe()}).\n"
                f"    A rule there must: {' '.join(t.doc.split())}"
            )
    return out


def test_every_required_entry_exists() -> None:
    tables = _tables()
    registered = _registered()
    print()
    print(op_census.summary())
    print(matrix(tables, registered))
    missing = failures(tables, registered)
    assert not missing, "ops without a required rule (the checklist for adding an op):\n" + "\n".join(missing)


def _new_op(name: str, levels: set[str], traits: set[str], operand_kinds: tuple[str, ...] = (), timeline: bool = False) -> Any:
    from stream.ir.interfaces import Timeline
    from stream.ir.spec import Operand, OpSpec, Result
    from stream.ir.types import TIMEPOINT

    operands = tuple(Operand(f"o{i}", kind=k) for i, k in enumerate(operand_kinds))
    if not timeline:
        return OpSpec(name=name, operands=operands, levels=frozenset(levels), traits=frozenset(traits))
    return OpSpec(name=name, operands=(*operands, Operand("await_timepoint", arity="optional", type=TIMEPOINT, kind="timepoint")),
                  results=(Result("result_timepoint", type=TIMEPOINT, kind="timepoint"),), levels=frozenset(levels),
                  traits=frozenset(traits), timeline=Timeline(awaits="await_timepoint", result="result_timepoint"))


@pytest.mark.parametrize("spec, tables", [
    (_new_op("stream.cmd.example", {"cmd"}, {"streamable"}, ("resource", "index")), {"RECORDERS", "EFFECTS", "RULES"}),
    (_new_op("stream.resource.example", {"cmd"}, set(), ("resource",)), {"HOST_RULES", "EFFECTS", "RULES", "USE_RULES"}),
    (_new_op("stream.async.example", {"async"}, {"streamable"}, ("resource",)),
     {"EFFECTS", "RULES", "CONVERSIONS", "_RESULT_SIZE", "USAGE_RULES"}),
    (_new_op("flow.tensor.example", {"input"}, set(), ("tensor", "tensor_dims")), {"REFERENCE_RULES", "RULES", "ROLES", "_RULES"}),
    # a queue-ordered host op (like stream.resource.alloca): the timepoint classes ask for it too
    (_new_op("stream.resource.example_queue", {"cmd"}, set(), (), timeline=True),
     {"HOST_RULES", "EFFECTS", "RULES", "AWAIT_HOLDERS", "_TIMELINE", "TIMELINE_USERS"}),
], ids=lambda x: x.name if hasattr(x, "name") else None)
def test_adding_an_op_lists_what_it_needs(spec: Any, tables: set[str]) -> None:
    """A new op (not registered; its spec only) fails the coverage check once per table whose
    requirement includes it, each message naming the table, its file and what the rule does."""
    registered = {**_registered(), spec.name: spec}
    found = [m for m in failures(_tables(), registered) if m.startswith(spec.name + " ")]
    assert {m.split(" has no entry in ")[1].split(" (")[0] for m in found} == tables
    for m in found:
        assert ".py, policy " in m and "A rule there must: " in m


def test_no_plain_table_keyed_by_op_name() -> None:
    """Every module-level table keyed by op name is a RuleTable (or OpSet): a plain dict or set of
    op names has no declared policy and is invisible to the matrix."""
    plain = [f"{t.where} ({t.kind})" for t in op_census.census() if t.kind != "RuleTable"]
    assert not plain, "make these RuleTables (stream/ir/rule_table.py): " + ", ".join(plain)


def test_every_table_is_declared() -> None:
    """Every table has a name, a doc saying what a rule does, a known policy, and a requirement;
    the conservative ones declare their conservative default (or say in the doc what it is)."""
    for t in _tables():
        assert t.name and t.doc, t
        assert t.policy in POLICIES, t
        assert t.requires.describe(), t


def test_required_entries_name_registered_ops() -> None:
    """A requirement's explicit ops exist (a misspelled name would require nothing)."""
    registered = _registered()
    for t in _tables():
        unknown = sorted(t.requires.ops - registered.keys())
        assert not unknown, f"{t.name} requires unregistered ops {unknown}"


@pytest.mark.parametrize("policy", POLICIES)
def test_policies(policy: str) -> None:
    from stream.ir.rule_table import MissingRule, Requirement

    default = None if policy == "refuse" else "dflt"
    t: RuleTable[str] = RuleTable(f"T_{policy}", "Say hello.", policy=policy, default=default,  # type: ignore[arg-type]
                                  requires=Requirement(ops=frozenset({"a.x", "a.y"})), entries={"a.x": "rx"}, module="test", listed=False)
    assert t not in all_tables()
    assert t.lookup("a.x") == "rx" and t["a.x"] == "rx" and t.get("a.y") is None and "a.y" not in t
    with pytest.raises(MissingRule, match=r"no rule for 'a.y' in T_\w+ \(test, policy \w+\): Say hello."):
        t["a.y"]
    if policy == "refuse":
        with pytest.raises(MissingRule):
            t.lookup("a.y")
    else:
        assert t.lookup("a.y") == "dflt" and t.resolve("a.y") == "dflt"
    assert t.missing({"a.x": None, "a.y": None, "b.z": None}) == ["a.y"]
    with pytest.raises(ValueError, match="registered twice"):
        t.add("a.x", "again")


def checklist(op: str, tables: list[RuleTable[Any]], registered: dict[str, Any]) -> str:
    """For one op: the tables that must have an entry for it (and whether they do), then the
    other tables that have one; each with its file and what a rule there does."""
    spec = registered.get(op)
    lines = [f"{op}: {'registered' if spec is not None else 'not registered (no OpSpec: register it first)'}"]
    for t in tables:
        needed, present = t.requires.includes(op, spec), op in t
        if needed or present:
            mark = "required, present" if needed and present else "REQUIRED, MISSING" if needed else "present"
            lines.append(f"  [{mark}] {t.name} ({_file(t)}, policy {t.policy}): {' '.join(t.doc.split())}")
    return "\n".join(lines)


def test_checklist_of_one_op() -> None:
    text = checklist("stream.cmd.copy", _tables(), _registered())
    assert "[required, present] RECORDERS (runtime/commands.py, policy refuse)" in text
    assert "MISSING" not in text


if __name__ == "__main__":
    ops = sys.argv[1:]
    if ops:  # python tests/test_op_coverage.py stream.async.copy ...: what each op needs
        print("\n".join(checklist(op, _tables(), _registered()) for op in ops))
    else:
        print(op_census.summary())
        print(matrix(_tables(), _registered()))

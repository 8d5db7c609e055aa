"""Op interfaces (stream.ir.interfaces): what each spec declares, and the tables derived from it.

The expected tables below are the hand-written side tables the derivations replaced
(stream/analysis/storage.py SIZES, RESULT_SIZES, TIED_WRITES, PASSTHROUGH; the structural
verifier's _RANGES; resource_hazards.ACCESS_RULES): the derivation must give the same facts for
every op those tables named."""

from __future__ import annotations

import pytest

from stream.analysis.storage import _passthrough, _value_spec
from stream.dialect import load_all
from stream.dialect.common import idx, res, rres
from stream.ir.interfaces import Access, Alias, Sized, Timeline
from stream.ir.spec import OpSpec, spec_of
from stream.ir.spec_registry import registered_names

load_all()

# Ops added after the tables were replaced (issue 11's parameter ops): checked by their own facts
# below, not against the old tables, which never named them.
PARAMETER_OPS = frozenset(n for n in registered_names() if ".parameter." in n)


def _old_names() -> list[str]:
    return [n for n in registered_names() if n not in PARAMETER_OPS]

OLD_SIZES = {
    "stream.async.clone": (("source", "source_size"),),
    "stream.async.slice": (("source", "source_size"),),
    "stream.async.fill": (("target", "target_size"),),
    "stream.async.update": (("target", "target_size"), ("update", "update_size")),
    "stream.async.copy": (("target", "target_size"), ("source", "source_size")),
    "stream.async.barrier": (("source", "size"),),
    "stream.async.transfer": (("source", "source_size"),),
    "stream.async.cast": (("source", "source_size"),),
    "stream.async.load": (("source", "source_size"),),
    "stream.async.store": (("target", "target_size"),),
    "stream.tensor.export": (("source", "source_size"),),
}

OLD_RESULT_SIZES = {
    "stream.async.alloca": "storage_size",
    "stream.async.constant": "result_size",
    "stream.async.splat": "result_size",
    "stream.async.clone": "result_size",
    "stream.async.slice": "result_size",
    "stream.async.transfer": "result_size",
    "stream.async.cast": "result_size",
    "stream.async.fill": "target_size",
    "stream.async.update": "target_size",
    "stream.async.copy": "target_size",
    "stream.async.store": "target_size",
    "stream.async.barrier": "size",
    "stream.async.dispatch": "result_sizes",
    "stream.tensor.import": "result_size",
}

# The former structural range checks: (resource, size, offset, end, length).
OLD_RANGES = {
    "stream.async.slice": (("source", "source_size", "source_offset", "source_end", "result_size"),),
    "stream.async.fill": (("target", "target_size", "target_offset", "target_end", "target_length"),),
    "stream.async.update": (("target", "target_size", "target_offset", "target_end", "update_size"),),
    "stream.async.copy": (
        ("source", "source_size", "source_offset", "source_end", "length"),
        ("target", "target_size", "target_offset", "target_end", "length"),
    ),
    "stream.cmd.fill": (("target", "target_size", "target_offset", None, "target_length"),),
    "stream.cmd.flush": (("target", "target_size", "target_offset", None, "target_length"),),
    "stream.cmd.invalidate": (("target", "target_size", "target_offset", None, "target_length"),),
    "stream.cmd.discard": (("target", "target_size", "target_offset", None, "target_length"),),
    "stream.cmd.copy": (
        ("source", "source_size", "source_offset", None, "length"),
        ("target", "target_size", "target_offset", None, "length"),
    ),
    "stream.resource.subview": (("source", "source_size", "source_offset", None, "result_size"),),
}
# Declared since (issue 12): the constant upload of an initializer's read path.
FILE_RANGES = {
    "stream.file.read": (("target", "target_size", "target_offset", None, "length"),),
    "stream.file.write": (("source", "source_size", "source_offset", None, "length"),),
}


def _spec(name: str) -> OpSpec:
    spec = spec_of(name)
    assert spec is not None, name
    return spec


@pytest.mark.parametrize("name", sorted(OLD_SIZES))
def test_sized_operands_match_the_old_table(name: str) -> None:
    sized = _spec(name).sized
    assert sized is not None and sorted(sized.operands) == sorted(OLD_SIZES[name])


@pytest.mark.parametrize("name", sorted(OLD_RESULT_SIZES))
def test_result_sizes_match_the_old_table(name: str) -> None:
    sized = _spec(name).sized
    assert sized is not None and sized.results == OLD_RESULT_SIZES[name]


def test_value_level_tied_writers_and_passthroughs_are_the_old_ones() -> None:
    writers = set()
    passthrough = {}
    for name in _old_names():
        spec = _value_spec(name)
        if spec is None:
            continue
        if spec.ties is not None and any(a.writes or a.mode == "tied" for a in spec.accesses or ()):
            writers.add(name)
        if _passthrough(name) is not None:
            passthrough[name] = _passthrough(name)
    assert writers == {"stream.async.fill", "stream.async.update", "stream.async.copy", "stream.async.store", "stream.async.dispatch"}
    assert passthrough == {"stream.async.cast": (0, 0), "stream.async.barrier": (0, 0)}


def test_ranged_accesses_are_the_old_range_checks() -> None:
    derived = {}
    for name in _old_names():
        spec = spec_of(name)
        ranges = tuple((a.resource, a.size, a.offset, a.end, a.length) for a in (spec.accesses or ()) if spec and a.offset and a.length)
        if ranges and spec is not None and spec.operands[spec._operand_index[ranges[0][0]]].arity == "single":
            derived[name] = ranges
        for al in spec.aliases if spec is not None else ():
            if al.offset is not None:
                derived[name] = ((al.operand, f"{al.operand}_size", al.offset, None, al.length),)
    assert derived == OLD_RANGES | FILE_RANGES


def test_the_timeline_trait_comes_from_the_interface() -> None:
    timeline = {n for n in _old_names() if (s := spec_of(n)) is not None and "timeline" in s.traits}
    assert timeline == {
        "stream.async.execute", "stream.cmd.execute", "stream.resource.alloca", "stream.resource.dealloca",
        "stream.resource.constants", "stream.timepoint.immediate", "stream.timepoint.join", "stream.timepoint.barrier",
        "stream.timepoint.await", *FILE_RANGES,
    }
    assert _spec("stream.timepoint.join").timeline == Timeline("await_timepoints", "result_timepoint")


def test_every_resource_with_a_size_operand_declares_it() -> None:
    """A single resource group `X` beside an index group `X_size` is declared sized (the convention
    every consumer used to re-derive by name)."""
    missing = []
    for name in registered_names():
        spec = spec_of(name)
        if spec is None:
            continue
        declared = set(spec.sized.operands) if spec.sized else set()
        for o in spec.operands:
            if o.kind == "resource" and o.arity == "single" and f"{o.name}_size" in spec._operand_index:
                if (o.name, f"{o.name}_size") not in declared:
                    missing.append((name, o.name))
    assert missing == []


@pytest.mark.parametrize(
    "interfaces, message",
    [
        ({"sized": Sized((("source", "source_sise"),))}, "sized interface names operand group 'source_sise'"),
        ({"accesses": (Access("sorce"),)}, "access interface names operand group 'sorce'"),
        ({"aliases": (Alias("reslt", "source"),)}, "alias interface names result group 'reslt'"),
        ({"timeline": Timeline("await_timepoint")}, "timeline interface names operand group 'await_timepoint'"),
    ],
)
def test_a_misspelled_interface_group_fails_when_the_op_is_defined(interfaces: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        OpSpec("test.op", operands=(res("source"), idx("source_size")), results=(rres("result"),), **interfaces)


def test_a_timeline_trait_without_its_interface_is_refused() -> None:
    with pytest.raises(ValueError, match="timeline=Timeline"):
        OpSpec("test.op", traits=frozenset({"timeline"}))


def test_derived_pass_tables_are_the_old_ones() -> None:
    """schedule-allocation's result sizes and RefineUsage's transfer ops, derived from the specs."""
    from stream.analysis.resource_usage import USAGE_RULES, _transfer_ops
    from stream.passes.schedule_allocation import _RESULT_SIZE

    assert sorted(_RESULT_SIZE) == sorted({
        "stream.async.splat", "stream.async.clone", "stream.async.slice", "stream.async.transfer", "stream.async.constant",
        "stream.async.alloca", "stream.async.dispatch", "stream.async.fill", "stream.async.update", "stream.async.copy",
        "stream.async.barrier", "stream.resource.subview",
    })
    transfers = {"stream.async.transfer", "stream.async.clone", "stream.async.slice", "stream.async.update", "stream.async.copy",
                 "stream.async.fill"}
    # The async parameter ops with ranged accesses are transfer reads/writes too, as in IREE's
    # ResourceUsage.cpp (AsyncParameterRead/Gather: NOT_TRANSFER_WRITE; Write/Scatter: NOT_TRANSFER_READ).
    transfers |= {f"stream.async.parameter.{n}" for n in ("read", "write", "gather", "scatter")}
    assert set(_transfer_ops()) == transfers and transfers <= set(USAGE_RULES)


def test_parameter_ops_are_timeline_ops_with_tied_or_ranged_accesses() -> None:
    """What the parameter ops declare: every one is a timeline op; the async read/write/gather/
    scatter tie their result to the resource (read and gather write it, write and scatter read it)."""
    assert {n for n in PARAMETER_OPS if "timeline" in (spec_of(n).traits if spec_of(n) else ())} == PARAMETER_OPS  # type: ignore[union-attr]
    modes = {n: tuple(a.mode for a in spec_of(n).accesses or ()) for n in PARAMETER_OPS}  # type: ignore[union-attr]
    assert modes == {
        "stream.async.parameter.load": (), "stream.cmd.parameter.load": (),
        "stream.async.parameter.read": ("write",), "stream.async.parameter.gather": ("write",),
        "stream.cmd.parameter.read": ("write",), "stream.cmd.parameter.gather": ("write",),
        "stream.async.parameter.write": ("read",), "stream.async.parameter.scatter": ("read",),
        "stream.cmd.parameter.write": ("read",), "stream.cmd.parameter.scatter": ("read",),
    }
    ties = {n: spec_of(n).ties for n in PARAMETER_OPS if spec_of(n).ties}  # type: ignore[union-attr]
    assert ties == {"stream.async.parameter.read": {"result": "target"}, "stream.async.parameter.gather": {"result": "target"},
                    "stream.async.parameter.write": {"result": "source"}, "stream.async.parameter.scatter": {"result": "source"}}


def test_tied_writes_reads_the_layout_as_binding_the_accesses_would() -> None:
    # `tied_writes` skips binding the accesses (it runs for every op of every storage analysis);
    # its answer must be the one the bound accesses give, on every op of real programs.
    from pathlib import Path

    from stream.analysis.storage import tied_writes
    from stream.ir.interfaces import bound_accesses
    from stream.ir.parser import parse_module
    from stream.passes import DEFAULT_PIPELINE, PASSES

    def by_binding(op):  # type: ignore[no-untyped-def]
        spec = _value_spec(op.name)
        if spec is None or not spec.accesses or not op.results:
            return ()
        tied = {spec.tied_operand(op, i) for i in range(len(op.results))}
        return tuple(a.index for a in bound_accesses(spec, op) or [] if a.mode in ("write", "read_write") and a.index in tied)

    root = Path(__file__).resolve().parents[2]
    modules = []
    for path in sorted((root / "examples").glob("*.mlir")):
        m = parse_module(path.read_text(), str(path))
        for name in DEFAULT_PIPELINE[:6]:  # through the async value level, where ties are
            m = PASSES[name].run(m)
            modules.append(m)
    checked = 0
    for m in modules:
        for op in m.walk():
            assert tied_writes(op) == by_binding(op), op.name
            checked += bool(tied_writes(op))
    assert checked > 0  # some op of the examples writes in place

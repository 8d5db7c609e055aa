"""`pure` and `effects` declared on the op specs, and the sets derived from them.

The verifier's `PURE` and `stream.dialect.awaits.PURE_HOST_USERS` used to be typed by hand; they
are now derived from each op's spec (IREE's `Pure` from StreamOps.td / UtilOps.td, MLIR's memory
effects). The expected values below are the hand-typed tables as they were before that change."""

from __future__ import annotations

import pytest

from stream.dialect.awaits import PURE_HOST_USERS, pure_host_user
from stream.ir.interfaces import Access, Effect, Sized
from stream.ir.spec import Operand, OpSpec, Result, spec_of
from stream.ir.spec_registry import registered_names
from stream.ir.types import INDEX
from verify.rules import PURE
from verify.rules.table import no_effect

# The hand-typed tables before the derivation (verify/rules/table.py and stream/dialect/awaits.py).
OLD_PURE = {
    "stream.yield", "stream.tensor.sizeof", "stream.resource.size", "stream.resource.is_terminal",
    "hal.element_type", "hal.encoding_type", "hal.buffer_view.assert", "stream.binding.subspan",
    "stream.executable", "stream.executable.export", "stream.executable.end", "stream.return",
    "util.global", "util.initializer.return",
}
OLD_PURE_HOST_USERS = {"stream.tensor.export", "stream.async.load", "stream.async.store", "stream.tensor.load", "stream.tensor.store"}


def test_derived_pure_host_users_equal_the_old_list() -> None:
    assert set(PURE_HOST_USERS) == OLD_PURE_HOST_USERS


def test_derived_verifier_pure_set_equals_the_old_list() -> None:
    # util.buffer.constant (added with the parameter ops after the list was typed) is IREE-pure and
    # touches no resource: the conservative default did nothing for it, and PURE skips it alike.
    # The stream function declarations (added later) are symbols that never run.
    assert set(PURE) == OLD_PURE | {"util.buffer.constant", "stream.async.func", "stream.cmd.func"}


def test_the_sets_are_exactly_the_specs_satisfying_the_predicates() -> None:
    names = registered_names()
    assert set(PURE_HOST_USERS) == {n for n in names if pure_host_user(spec_of(n))}
    assert set(PURE) - {"util.initializer.return"} == {n for n in names if no_effect(spec_of(n))}


def _host_load(**kw: object) -> OpSpec:
    return OpSpec(
        "test.host_load",
        operands=(Operand("source", kind="resource"), Operand("source_size", type=INDEX, kind="index"),
                  Operand("source_offset", type=INDEX, kind="index")),
        results=(Result("result"),),
        sized=Sized((("source", "source_size"),)),
        accesses=(Access("source", "source_size", "source_offset"),),
        **kw,  # type: ignore[arg-type]
    )


def test_a_new_spec_declared_pure_lands_in_the_derived_sets() -> None:
    assert pure_host_user(_host_load(pure=True))
    assert not pure_host_user(_host_load())  # not declared pure: a host op with effects
    assert not pure_host_user(_host_load(pure=True, traits=frozenset({"streamable"})))
    size_of = OpSpec("test.size_of", operands=(Operand("n", type=INDEX, kind="index"),), results=(Result("r", type=INDEX, kind="index"),), pure=True)
    assert no_effect(size_of)
    assert not no_effect(OpSpec("test.size_of2", operands=(Operand("n", type=INDEX, kind="index"),), results=(Result("r", type=INDEX, kind="index"),)))


def test_pure_means_no_memory_effect_unless_declared() -> None:
    assert _host_load(pure=True).effects == ()
    assert _host_load().effects is None  # nothing declared: any effect
    assert OpSpec("test.t", traits=frozenset({"pure"})).pure  # the trait says the same
    alloc = spec_of("stream.resource.alloc")
    assert alloc is not None and alloc.effects == (Effect("allocate", "result"),) and not alloc.pure


def test_an_effect_on_a_misspelled_group_fails_when_the_op_is_defined() -> None:
    with pytest.raises(ValueError, match="effects interface names group 'sorce'"):
        _host_load(effects=(Effect("read", "sorce"),))


def test_pure_follows_iree() -> None:
    # A few from IREE's StreamOps.td: Stream_PureOp or Stream_Op.
    for name, pure in (("stream.timepoint.await", True), ("stream.resource.subview", True), ("stream.tensor.export", True),
                       ("stream.async.copy", False), ("stream.resource.load", False), ("stream.timepoint.chain_external", False)):
        spec = spec_of(name)
        assert spec is not None and spec.pure is pure, name


# The hand-typed timeline sets before they were derived from the `Timeline` interfaces
# (stream/analysis/timepoint_coverage.py AWAIT_HOLDERS and _TIMELINE, stream/dialect/awaits.py TIMELINE_USERS).
OLD_AWAIT_HOLDERS = {
    "stream.cmd.execute", "stream.async.execute", "stream.resource.alloca", "stream.resource.dealloca",
    *(f"stream.{level}.parameter.{n}" for level in ("async", "cmd") for n in ("load", "read", "write", "gather", "scatter")),
}


def test_derived_timeline_sets_equal_the_old_lists() -> None:
    from stream.analysis.timepoint_coverage import _TIMELINE, AWAIT_HOLDERS
    from stream.dialect.awaits import TIMELINE_USERS

    files = {"stream.file.read", "stream.file.write"}  # timeline ops since issue 12 (an initializer's upload)
    assert set(AWAIT_HOLDERS) == OLD_AWAIT_HOLDERS | files
    assert set(TIMELINE_USERS) == OLD_AWAIT_HOLDERS | files
    assert set(_TIMELINE) == OLD_AWAIT_HOLDERS | files | {"stream.resource.constants"}


def test_awaited_timepoints_come_from_the_timeline_interface() -> None:
    from stream.analysis.timepoint_coverage import awaited_timepoints
    from stream.ir.parser import parse_module

    module = parse_module("""
    util.func @f(%t: !stream.timepoint, %u: !stream.timepoint, %r: !stream.resource<transient>, %n: index) -> !stream.timepoint {
      %j = stream.timepoint.join max(%t, %u) => !stream.timepoint
      %a = stream.timepoint.await %j => %r : !stream.resource<transient>{%n}
      %b, %bt = stream.timepoint.barrier %a : !stream.resource<transient>{%n} => !stream.timepoint
      %d = stream.resource.dealloca await(%u) => %b : !stream.resource<transient>{%n} => !stream.timepoint
      util.return %d : !stream.timepoint
    }
    """)
    ops = {op.name: op for op in module.walk()}
    t, u = ops["stream.timepoint.join"].operands
    assert awaited_timepoints(ops["stream.timepoint.join"]) == (t, u)
    assert awaited_timepoints(ops["stream.timepoint.await"]) == (ops["stream.timepoint.join"].results[0],)
    assert awaited_timepoints(ops["stream.resource.dealloca"]) == (u,)
    assert awaited_timepoints(ops["stream.timepoint.barrier"]) == ()
    assert awaited_timepoints(ops["util.return"]) == ()


def test_result_affinity_is_the_attribute_the_spec_declares() -> None:
    from stream.analysis.affinity import result_affinity
    from stream.ir.attributes import AffinityAttr
    from stream.ir.parser import parse_module

    module = parse_module("""
    util.func @f(%r: !stream.resource<external>, %n: index) -> !stream.resource<transient> {
      %a = stream.async.transfer on(#hal.device.affinity<@a>) %r : !stream.resource<external>{%n} -> to(#hal.device.affinity<@b>) !stream.resource<transient>{%n}
      %b = stream.async.transfer on(#hal.device.affinity<@a>) %a : !stream.resource<transient>{%n} -> !stream.resource<transient>{%n}
      %c = stream.async.clone on(#hal.device.affinity<@c>) %b : !stream.resource<transient>{%n} -> !stream.resource<transient>{%n}
      util.return %c : !stream.resource<transient>
    }
    """)
    placed = [result_affinity(op) for op in module.walk() if op.name.startswith("stream.async.")]
    assert placed == [AffinityAttr("b"), AffinityAttr("a"), AffinityAttr("c")]
    transfer = spec_of("stream.async.transfer")
    assert transfer is not None and transfer.result_affinity == "target_affinity"
    with pytest.raises(ValueError, match="result_affinity names attribute 'target'"):
        OpSpec("test.t", attrs=(), result_affinity="target")

"""Shorthands shared by the op tables."""

from __future__ import annotations

from stream.ir.core import Op
from stream.ir.rule_table import OpSet
from stream.ir.spec import Attr, Operand, Result
from stream.ir.types import INDEX, TIMEPOINT

TENSOR = frozenset({"tensor"})
ASYNC = frozenset({"async"})
CMD = frozenset({"cmd"})
TENSOR_ASYNC = frozenset({"tensor", "async"})
STREAM = frozenset({"tensor", "async", "cmd"})
ASYNC_CMD = frozenset({"async", "cmd"})
INPUT = frozenset({"input"})
ANY = frozenset({"input", "tensor", "async", "cmd"})

AFFINITY = Attr("affinity")
ON = "(`on` `(` $affinity^ `)`)?"
AWAIT = "(`await` `(` $await_timepoint^ `)` `=` `` `>`)?"


def res(name: str, arity: str = "single") -> Operand:
    """A resource operand group."""
    return Operand(name, arity, None, "resource")  # type: ignore[arg-type]


def idx(name: str, arity: str = "single") -> Operand:
    """An index operand group (sizes, offsets, lengths, dims)."""
    return Operand(name, arity, INDEX, "index")  # type: ignore[arg-type]


def tp(name: str, arity: str = "single") -> Operand:
    """A timepoint operand group."""
    return Operand(name, arity, TIMEPOINT, "timepoint")  # type: ignore[arg-type]


def anyv(name: str, arity: str = "single") -> Operand:
    return Operand(name, arity, None, "any")  # type: ignore[arg-type]


def rres(name: str, arity: str = "single") -> Result:
    return Result(name, arity, None, "resource")  # type: ignore[arg-type]


def rtp(name: str = "result_timepoint") -> Result:
    return Result(name, "single", TIMEPOINT, "timepoint")


def ridx(name: str, arity: str = "single") -> Result:
    return Result(name, arity, INDEX, "index")  # type: ignore[arg-type]


def unit(name: str) -> Attr:
    return Attr(name, style="unit")


def named(*names: str | None):  # type: ignore[no-untyped-def]
    """asm_names for ops with a fixed number of results."""

    def names_of(op: Op) -> list[str | None]:
        return list(names)

    return names_of


def results_then_timepoint(op: Op) -> list[str | None]:
    """`%results:N, %result_timepoint` (async.execute)."""
    n = len(op.results) - 1
    return (["results"] + [None] * (n - 1) if n > 0 else []) + ["result_timepoint"]


# Ops registered for their syntax (IREE 3.13 prints them around Stream IR: the pretty form of a
# model reads back) whose semantics are not (or not everywhere) modelled. The tables that would
# require a rule for every such op exempt them (`Requirement.unless`); a table may still have one
# (the executor runs cmpi, cf.assert, util.align and util.assume.int; the verifier evaluates them in
# verify/int_facts.py). Where a table has none they behave as an unknown op does: the executor
# refuses them (exit 2), the verifier makes what depends on them undecided, refinement treats them
# as opaque. Remove an op from here once every table that requires rules has one for it.
SYNTAX_ONLY = OpSet("SYNTAX_ONLY", "Ops registered for their syntax only: the tables requiring a rule exempt them (they behave as unknown ops).", {
    "arith.cmpi", "arith.cmpf", "cf.assert",
    "util.null", "util.global.load", "util.global.store", "util.align", "util.assume.int",
    "hal.devices.get", "hal.devices.count", "hal.fence.create", "hal.fence.join", "hal.fence.await",
    "hal.fence.signal", "hal.fence.fail", "hal.fence.query", "hal.buffer_view.dim",
    "stream.resource.try_map", "stream.file.constant", "stream.file.read", "stream.file.write",
    # Host control flow (stream.dialect.scf_cf): every layer follows it by name, not by rule.
    "scf.for", "scf.if", "scf.while", "scf.execute_region", "scf.index_switch", "scf.yield", "scf.condition", "cf.br",
    "cf.cond_br", "cf.switch",
})

"""Effect rules: what each op contributes to the verification model, one rule per op name.

A rule `fn(builder, op)` declares the op's events and edges (a host op, a device submission, a
nested site in a region), its accesses (byte ranges and modes), readiness uses, timepoints and
lifetime facts through the `verify.model.Builder` vocabulary. Adding an op adds a rule here,
not a special case elsewhere, unless its behaviour is standard: an op whose spec declares its
accesses (`OpSpec.accesses`) and that has no rule of its own gets the rule derived from its
interfaces (`verify.rules.derived`: uses, ranged accesses, in-place ties, fresh or aliased results).

Ops without a rule: pure ops (index arithmetic, `hal.*` helpers) contribute nothing; any other op
that takes or returns a resource (an `arith` op included) is treated conservatively
(`unknown_op`): it reads and writes all of every resource operand (on the host outside regions),
and its untied resource results are storage the verifier knows nothing about, so that nothing
done through them is ever proved (`verify.obligations.opaque`).
"""

from __future__ import annotations

from stream.dialect import load_all
from stream.ir.core import Op
from stream.ir.spec import spec_of
from stream.ir.spec_registry import registered_names
from stream.ir.types import ResourceType
from verify.events import Site
from verify.model import RW, Builder
from verify.rules.table import EFFECTS, EXECUTABLE_ONLY, PURE, effect

__all__ = ["EFFECTS", "effect", "apply_rule", "unknown_op", "PURE", "EXECUTABLE_ONLY"]

def _conservative(b: Builder, op: Op) -> None:
    """The rule of an op without one: nothing for an op that touches no resource; else
    `unknown_op` (and, for a call, what a private callee's returned timepoints promise); a call
    to a private function with a summary (`verify.calls`) does what the summary says."""
    summary = b.storage.call_summaries.get(op)
    if isinstance(summary, FenceCall):
        fence_call(b, op, summary)
        return
    if summary is not None:
        summarized_call(b, op, summary)
        return
    if any(isinstance(v.type, ResourceType) for v in (*op.operands, *op.results)):
        # Even an `arith` op is unknown here once it touches a resource: `arith.select` of two
        # resources names one of them, which no storage rule can say in advance.
        site = unknown_op(b, op)
        if op.name in CALL_OPS:
            after_call(b, op, site)  # what a private callee's returned timepoints promise


EFFECTS.set_default(_conservative)


def apply_rule(b: Builder, op: Op) -> None:
    if op.name in PURE:
        return
    EFFECTS.resolve(op.name)(b, op)


def unknown_op(b: Builder, op: Op) -> Site:
    """Conservative: reads and writes all of every resource operand and may keep it.

    At the async level the write is an in-place write (`tie`): it ends the operand's version,
    so any later use of the old value is a tie-linearity violation (IREE #13003: a call that
    mutates an operand another op still reads). Its resource results are UNKNOWN storage
    (`verify.storage`): accesses through them are undecided, never proved."""
    site = b.op_site(op, op.name)
    for v in op.operands:
        if isinstance(v.type, ResourceType):
            b.use(site, v)
            b.whole(site, v, RW, "unknown op", tie=True)
            b.escape(site, v)
    b.produce(site, op.results)
    return site


def _derived(b: Builder, op: Op) -> None:
    """The effect of an op with standard resource behaviour, from its spec's interfaces."""
    spec = spec_of(op)
    assert spec is not None
    standard_effect(b, op, spec)


def _derive_effects() -> None:
    """Every registered op without a rule of its own whose spec declares its accesses gets the
    derived rule (`verify.rules.derived`)."""
    load_all()
    for name in registered_names():
        if name not in EFFECTS and name not in PURE and derives_effect(spec_of(name)):
            EFFECTS.add(name, _derived)


from verify.calls import CALL_OPS, FenceCall, after_call, summarized_call  # noqa: E402
from verify.rules import async_ops, cmd_ops, fence_ops, globals, host_ops, input_ops, regions, resource_ops, timepoint_ops  # noqa: E402,F401
from verify.rules.derived import derives_effect, standard_effect  # noqa: E402
from verify.rules.fence_ops import fence_call  # noqa: E402

_derive_effects()

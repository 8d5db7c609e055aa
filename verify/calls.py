"""The caller's side of a private function's hand-over (SPEC §3.1 rule 8, `stream.dialect.abi`).

A private function may return a resource unready together with a timepoint (IREE's
PropagateTimepoints pairs); its own verification checks that the value and the work on its
storage are done once that timepoint is reached (`verify.rules.host_ops`). The caller, in turn,
must await that timepoint before it uses the value. A `util.call` stays an op without an effect
rule (`verify.rules.unknown_op`, `verify.unmodelled`: its results may alias anything), but for a
call to a private function of the module this module adds what the callee's return promises:

* each result timepoint the callee derives from work of its own is reached at a *returned
  timepoint* event after the call (ordered after another returned timepoint when the callee's
  timeline says it covers it);
* the resource handed over with it is ready only there: using it without a wait that covers the
  timepoint is a MISSED_WAIT (`rule="call-handoff"`). That verdict depends only on whether the
  caller waits, so it stands although the call has no effect rule, unless the timepoint passes
  through an op without an effect rule before the use (it might come back as a timepoint that is
  awaited), or the user is itself such an op (another call may take the pair unready).

A returned timepoint that is immediate, an argument, or made by an op without an effect rule
promises nothing beyond the return: its resource is ready when the call returns, as before.
"""

from __future__ import annotations

from stream.dialect.abi import handed_pairs, is_private
from stream.ir.attributes import SymbolRefAttr
from stream.ir.core import Module, Op, Value
from stream.ir.rule_table import OpSet, Requirement
from stream.ir.types import TimepointType
from stream.ir.walk import Function, defining_ops, function
from verify.events import Site
from verify.model import Builder

__all__ = ["CALL_OPS", "after_call", "returned_timepoints"]

CALL_OPS = OpSet("CALL_OPS", "The call ops (a private callee's summary applies to them).", {"util.call", "func.call"},
                 requires=Requirement(traits=frozenset({"call"})))
_PASS_THROUGH = OpSet("_PASS_THROUGH", "Timepoint ops a returned timepoint's waits pass through (joins: the union of their inputs').",
                      {"stream.timepoint.join"})
_NOTHING = OpSet("_NOTHING", "Timepoint ops whose timepoint waits for nothing.", {"stream.timepoint.immediate"})

# {result index of a handed resource: (its timepoint's index, the ops that timepoint waits for)}
Handed = dict[int, tuple[int, frozenset[Op]]]


def _callee(module: Module | None, op: Op) -> Function | None:
    callee = op.properties.get("callee")
    if module is None or not isinstance(callee, SymbolRefAttr) or callee.nested:
        return None
    f = function(module, callee.root)
    return f if f is not None and is_private(f) and len(f.blocks) == 1 else None


def returned_timepoints(f: Function) -> Handed | None:
    """For each resource `f` returns with a timepoint made by its own modelled work: the index of
    that timepoint, and the ops it transitively waits for. None when `f` cannot say."""
    from verify.rules import EFFECTS

    ops = f.body.ops
    if not ops or ops[-1].name not in ("util.return", "func.return"):
        return None
    defs = defining_ops(f.body)
    memo: dict[Value, frozenset[Op] | None] = {}

    def closure(t: Value, depth: int = 0) -> frozenset[Op] | None:
        """What `t` waits for: the modelled ops that reach it; None if an unmodelled one does."""
        if t in memo:
            return memo[t]
        d = defs.get(t)
        res: frozenset[Op] | None
        if d is None or d.name in _NOTHING or depth > 200:
            res = frozenset() if depth <= 200 else None
        elif d.name not in EFFECTS:
            res = None
        else:
            parts = [closure(v, depth + 1) for v in d.operands if isinstance(v.type, TimepointType)]
            if any(p is None for p in parts):
                res = None
            else:
                acc: set[Op] = set() if d.name in _PASS_THROUGH else {d}
                for p in parts:
                    acc |= p  # type: ignore[arg-type]
                res = frozenset(acc)
        memo[t] = res
        return res

    ret = ops[-1]
    out: Handed = {}
    for i, j in handed_pairs(f, ret).items():
        c = closure(ret.operands[j])
        if c is None:
            return None
        if c:
            out[i] = (j, c)
    return out


def after_call(b: Builder, op: Op, site: Site) -> None:
    """Add the callee's promises about the timepoints it returns (see the module docstring)."""
    f = _callee(b.model.module, op)
    if f is None:
        return
    # Summarised once per caller model (not in a process-wide cache keyed by the callee's id).
    if f.op in b.call_summaries:
        handed = b.call_summaries[f.op]
    else:
        handed = b.call_summaries[f.op] = returned_timepoints(f)
    if not handed:
        return
    name = f"@{f.name}"
    reached: dict[int, tuple[int, frozenset[Op]]] = {}
    for i, (j, c) in sorted(handed.items(), key=lambda kv: len(kv[1][1])):
        if j >= len(op.results) or i >= len(op.results):
            return
        preds = [(site.start, f"returned by the call to {name}")]
        preds += [(e, "covered, in the callee") for k, (e, ck) in reached.items() if k != j and ck <= c]
        t = op.results[j]
        if j not in reached:
            e = b.reach(f"timepoint {t.name_hint and '%' + t.name_hint or '#' + str(j)} returned by {name}", preds, op)
            reached[j] = (e, c)
            b.timepoint(t, e)
        r_site = b.graph.site_of[reached[j][0]]
        assert r_site is not None
        b.model.ready[op.results[i]] = r_site
        b.model.call_handoffs[r_site] = t

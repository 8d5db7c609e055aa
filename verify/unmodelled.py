"""Ops without an effect rule make the obligations they touch undecided, never violated.

The model treats an op it has no rule for (`util.optimization_barrier`, `arith.select` of
resources or timepoints, `util.call`, an op of an unknown dialect) conservatively so that
nothing it could do is ever *proved* (`verify.rules.unknown_op`: it reads and writes every
resource operand on the host; the storage it returns may alias anything; a timepoint it returns
orders nothing). That is the right direction for a proof and the wrong one for a verdict: the
op may not read at all (a barrier only passes its operand on), or it may forward the timepoint
it was given. So a violation that depends on such an op is not a counterexample:

* an obligation one of whose ops (or accesses) is an unmodelled op, or whose storage an
  unmodelled op returned, is undecided;
* an ordering obligation (races, waits, lifetimes, packs) is undecided when an unmodelled op
  takes part in the timeline before its later op in program order: it takes or returns a
  timepoint or fence, or an op consumes (transitively, through joins and the like) an ordering
  value one returned. Nothing after the later op in program order can order it, so a violation
  with every such op after it stays a violation.

`Unmodelled(model).why(ob)` says which op makes a failing obligation undecided (the reason, with
the op named), or None when the violation stands. `Decider.decide` applies it.
"""

from __future__ import annotations

from collections.abc import Container

from stream.ir.core import Op, Value
from stream.ir.types import OpaqueType, ResourceType, TimepointType, Type
from verify.events import Site
from verify.model import FunctionModel
from verify.obligations import Obligation
from verify.storage import AllocKind

__all__ = ["Unmodelled", "is_unmodelled"]

_ORDERING_SHAPES = frozenset({"order", "order_any", "order_if_overlap", "conflict", "pack"})


def _ordering(t: Type) -> bool:
    return isinstance(t, TimepointType) or (isinstance(t, OpaqueType) and t.text == "!hal.fence")


def is_unmodelled(op: Op, summarized: Container[Op] = ()) -> bool:
    """No effect rule, not pure, not a call with a summary (`summarized`, verify.calls), and it
    touches storage or the timeline."""
    from verify.rules import EFFECTS, PURE

    if op.name in EFFECTS or op.name in PURE or op in summarized:
        return False
    return any(isinstance(v.type, ResourceType) or _ordering(v.type) for v in (*op.operands, *op.results))


def _describe(op: Op, model: FunctionModel | None = None) -> str:
    why = model.storage.call_reasons.get(op) if model is not None else None
    return f"'{op.name}' at {op.location} has no effect rule" + (f" ({why})" if why else "")


class Unmodelled:
    def __init__(self, model: FunctionModel) -> None:
        self.model = model
        self.ops: dict[int, Op] = {}  # id(op) -> op, every unmodelled op of the function
        # The first top-level position where an unmodelled op takes part in the timeline, and
        # the op responsible (see the module docstring).
        self.timeline: tuple[int, Op] | None = None
        tainted: dict[Value, Op] = {}
        for index, top in enumerate(model.func.body.ops):
            for op in top.walk():
                culprit: Op | None = None
                if is_unmodelled(op, model.storage.call_summaries):
                    self.ops[id(op)] = op
                    if any(_ordering(v.type) for v in (*op.operands, *op.results)):
                        culprit = op
                for v in op.operands:
                    if culprit is None and v in tainted:
                        culprit = tainted[v]
                if culprit is None:
                    continue
                if self.timeline is None:
                    self.timeline = (index, culprit)
                for r in op.results:
                    if _ordering(r.type):
                        tainted[r] = culprit

    def why(self, ob: Obligation) -> str | None:
        """None when the failing obligation `ob` is a real violation; else why it is undecided."""
        if ob.rule in ("call-handoff", "coarse-fences") and ob.first is not None and ob.second is not None:
            return self._handoff(ob.first, ob.second)
        if not self.ops and self.timeline is None:
            return None
        sites = [s for s in (ob.first, ob.second, *ob.targets) if s is not None]
        sites += [a.site for a in (ob.x, ob.y, *ob.groups[0], *ob.groups[1]) if a is not None]
        for s in sites:
            op = self.ops.get(id(s.op))
            if op is not None:
                return f"{_describe(op, self.model)}: what it reads, writes or waits for is unknown"
        if ob.shape != "range":
            alloc = ob.alloc
            if alloc is not None and alloc.kind is AllocKind.UNKNOWN:
                maker = f"'{alloc.op.name}' at {alloc.op.location}" if alloc.op is not None else "an unmodelled op"
                return f"the storage comes from {maker}, which has no effect rule"
        if ob.shape in _ORDERING_SHAPES and self.timeline is not None and sites:
            index, culprit = self.timeline
            if index <= max((s.order[0] for s in sites if s.order), default=index):
                return f"{_describe(culprit, self.model)}: the ordering it takes part in is unknown"
        return None

    def _handoff(self, returned: Site, user: Site) -> str | None:
        """A call's result used before a wait covering the timepoint it came with
        (`verify.calls`): whether the caller waits does not depend on what the call does, unless
        the user is itself an op without a rule (it may take the pair on, unready), or the
        timepoint reaches such an op before the use (it may come back awaited)."""
        op = self.ops.get(id(user.op))
        if op is not None:
            return f"{_describe(op, self.model)}: it may take the value with its timepoint, unready"
        t = self.model.call_handoffs[returned]
        derived = {t}
        limit = user.order[0] if user.order else len(self.model.func.body.ops)
        for index, top in enumerate(self.model.func.body.ops):
            if index > limit:
                break
            for o in top.walk():
                if o is returned.op or not any(v in derived for v in o.operands):
                    continue
                if is_unmodelled(o, self.model.storage.call_summaries):
                    return f"{_describe(o, self.model)}: the timepoint {returned.name.split(' returned')[0]} passes through it"
                derived.update(r for r in o.results if _ordering(r.type))
        return None

"""The inductive check of one loop, from one path into its header (`Loop`).

`verify.control_flow` states the programs checked (iteration 1, then from every loop-head state
reached, the paths through one more iteration and out of the loop); `Loop` builds them: the
summary of earlier iterations at the header (`verify.loop.head`, `Loop._head_ops`), the demand
of the next iteration at each back edge (`verify.loop.next`, `Loop.back_edge`), and the
loop-head states the back edges lead to (`Loop._successor`).

A state is where each carried resource lives (outer storage, or a past allocation) and which
storage each carried timepoint covers. Coverage starts from what iteration 1 shows and only
shrinks (a pair the demand cannot prove is dropped and its state checked again), and there
are finitely many storage layouts, so this ends; at the end every state reached has been
checked with the coverage that holds in every iteration reaching it. docs/VERIFIER.md
("Loops") states the argument and what it assumes. `MAX_STATES` and `MAX_ROUNDS` bound the
work: a loop that needs more is refused (a diagnostic, never a proof).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stream.ir.attributes import Attribute, DenseArrayAttr, IntegerAttr
from stream.ir.core import Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.types import I32, ResourceType, TimepointType
from stream.ir.walk import Function, defining_ops
from verify.cfg import branch_edges, latches, natural_loop
from verify.discharge import Verdict
from verify.hb import HappensBefore
from verify.loop_frames import Context, Frame, Pairs, Run, State, classifier
from verify.loops import (
    GHOST_HEAD,
    GHOST_NEXT,
    Carrier,
    HeadPlan,
    NextPlan,
    Origin,
    Target,
    forget,
    made_by_head,
    plan_op,
    query_targets,
)
from verify.model import READ, WRITE, FunctionModel, build_model
from verify.obligation import Obligation
from verify.paths import Segment, segments
from verify.storage import declared_sizes
from verify.storage_obligations import slice_membership

if TYPE_CHECKING:  # annotations only: the checker builds loops and is passed to them
    from verify.control_flow import Checker

__all__ = ["Loop", "MAX_STATES", "MAX_ROUNDS"]

MAX_STATES = 8  # loop-head storage layouts
MAX_ROUNDS = 32  # re-checks of loop-head states while their coverage shrinks


class Loop:
    """The inductive check of one loop, from one path into its header."""

    def __init__(self, checker: Checker, g: Function, header: int, pre: Segment, parent: Context = ()) -> None:
        assert pre.arrival is not None
        self.c, self.g, self.header, self.pre = checker, g, header, pre
        self.parent = parent  # the loops entered before this one (it is in their bodies, or after them)
        self.args = g.blocks[header].arguments
        self.init = pre.arrival.args
        self.tp_slots = tuple(j for j, a in enumerate(self.args) if isinstance(a.type, TimepointType))
        self.res_slots = tuple(j for j, a in enumerate(self.args) if isinstance(a.type, ResourceType))
        self.carriers: tuple[Carrier, ...] = tuple([("host", 0)] + [("tp", k) for k in self.tp_slots] + [("gate", j) for j in self.res_slots])
        self.head_at = g.blocks[header].ops[0] if g.blocks[header].ops else g.op
        self.body = natural_loop(g.blocks, header)  # the loop's blocks (an inner loop's are among them)
        self.monotone = self._monotone()
        self.invariant = self._invariant()
        self.outer: dict[Target, Value] = {}
        self.modes: dict[Target, int] = {}
        # Values defined before the loop whose storage the loop writes in place (async level):
        # an earlier iteration ended their versions (`verify.loops`, HeadPlan.ends).
        self.ends: dict[Value, None] = {}
        # Storage made before the loop (by the value that made it: an outer origin) that some
        # iteration's own op writes (`_collect_outer`). Only values from before the loop count,
        # so the set is bounded and the rechecking in `check` ends.
        self.written: set[Value] = set()
        # Target -> the pack slices iterations use on it (`_collect_outer`; the summary uses them).
        self.slices: dict[Target, set[tuple[Op, int]]] = {}
        self.before: set[Value] = set(g.arguments)
        for op in pre.ops:
            for inner in op.walk():
                self.before.update(inner.results)
                self.before.update(a for region in inner.regions for block in region.blocks for a in block.arguments)

    # -- the checks ---------------------------------------------------------------------------------
    def check(self) -> list[Run]:
        """Check the loop (and what follows it on each way out); the runs of the last round. The
        outer storage the loop touches is found while checking; when a later iteration touches
        more of it, everything is checked again with the larger set (each round adds one at
        least, so this ends)."""
        while True:
            known = self._known()
            runs, states = self._attempt()
            if self._known() == known:
                self.c.states[self.header] = max(states, self.c.states.get(self.header, 0))
                return runs

    def _known(self) -> tuple[int, ...]:
        """What rounds of checking find out (each only grows): the recheck ends when it is still."""
        return (len(self.outer), len(self.ends), len(self.written), sum(len(v) for v in self.slices.values()))

    def _name(self) -> str:
        return "the loop" if len(self.c.headers) == 1 else f"the loop at ^bb{self.header}"

    def _iteration(self, head: HeadPlan | None) -> str:
        if head is not None:
            return f"a later iteration of {self._name()}"
        return "the loop's first iteration" if len(self.c.headers) == 1 else f"the first iteration of {self._name()}"

    def _within(self, ctx: Context) -> str:
        """The iterations of the loops this one is in (not those it follows), for a report."""
        outer = [fr for fr in ctx if fr.loop is not self and self.header in fr.loop.body]
        return "".join(f" (in {fr.loop._iteration(fr.plan)})" for fr in reversed(outer))

    def _attempt(self) -> tuple[list[Run], int]:
        mapping = dict(self.pre.mapping)
        for p, a in zip(self.args, self.init):
            mapping[p] = a
        first = segments(self.g, self.g.blocks, self.header, mapping, list(self.pre.ops), self.c.headers,
                         first_step=self.pre.label)
        ctx = (*self.parent, Frame(self, None, len(self.pre.ops)))
        runs = self.c.expand(first, ctx, f"on the path {{}} (out of {self._name()} before its first back edge{self._within(ctx)})")
        coverage: dict[State, Pairs] = {}
        for run in runs:
            if run.loop is not self:
                continue
            if run.successor is None or run.proved is None:
                return runs, 0
            coverage[run.successor] = coverage.get(run.successor, run.proved) & run.proved
        checked: dict[State, tuple[Pairs, list[Run]]] = {}
        queue = list(coverage)
        rounds = 0
        while queue:
            state = queue.pop(0)
            rounds += 1
            if rounds > MAX_ROUNDS or len(coverage) > MAX_STATES:
                raise DiagnosticError.at(self.head_at.location, f"@{self.g.name}: the loop at ^bb{self.header} reaches more than "
                                         f"{MAX_STATES} loop-head states (or {MAX_ROUNDS} rounds); the verifier refuses it (control flow)")
            pairs = coverage[state]
            state_runs = self._from_state(state, pairs)
            checked[state] = (pairs, state_runs)
            for run in state_runs:
                if run.loop is not self or run.successor is None or run.proved is None:
                    continue
                old = coverage.get(run.successor)
                new = run.proved if old is None else old & run.proved
                if old is None or new != old:
                    coverage[run.successor] = new
                    if run.successor not in queue:
                        queue.append(run.successor)
        for state, (pairs, state_runs) in checked.items():
            assert coverage[state] == pairs, "a loop-head state was last checked with more coverage than holds"
            runs.extend(state_runs)
        return runs, len(checked)

    def _from_state(self, state: State, pairs: Pairs) -> list[Run]:
        plan, ghost_ops = self._head_ops(state, pairs)
        try:
            mapping = {k: v for k, v in self.pre.mapping.items() if k not in self.args}
            where = f"^bb{self.header} after earlier iterations"
            head_index = len(self.pre.ops) + len(ghost_ops)
            segs = segments(self.g, self.g.blocks, self.header, mapping, [*self.pre.ops, *ghost_ops], self.c.headers, first_step=where)
            ctx = (*self.parent, Frame(self, plan, head_index))
            return self.c.expand(segs, ctx, f"after {self._name()} ran at least once{self._within(ctx)}, on the path {{}}")
        finally:
            for op in ghost_ops:
                forget(op)

    def back_edge(self, seg: Segment, frame: Frame, ctx: Context) -> Run:
        """Check a path that ends at a back edge of this loop (in `ctx`, where `frame` is this
        loop's), with the next iteration's demands; the run knows which (carrier, target) pairs
        the demands proved and the loop-head state it leads to."""
        assert seg.arrival is not None
        head, head_index = frame.plan, frame.head_index
        label = f"in {self._iteration(head)}{self._within(ctx)}, on the path {seg.label}"
        yields = seg.arrival.args
        models: list[FunctionModel] = []
        failed: list[tuple[Obligation, Verdict]] = []
        # The targets: carried resources, and the outer storage this iteration touches (from a
        # first look at the program's storage and accesses; the demands then name them all).
        probe = build_model(self.g.with_body(seg.ops), self.c.module)
        self._collect_outer(probe, head_index, head)
        targets = tuple([("slot", j) for j in self.res_slots] + sorted(self.outer, key=str))
        demands: list[tuple[Op, NextPlan]] = []
        at = seg.ops[-1] if seg.ops else self.head_at
        for carrier in self.carriers:
            nxt = NextPlan(yields, carrier, targets, dict(self.outer))
            operands = () if carrier[0] == "host" else (yields[carrier[1]],)
            demands.append((plan_op(GHOST_NEXT, operands, (), nxt, at), nxt))
        try:
            run = self.c.run(label, (*seg.ops, *(d for d, _ in demands)), classifier(ctx, (self, [n for _, n in demands], head_index)),
                             failed, models)
        finally:
            for d, _ in demands:
                forget(d)
        model = models[0]
        proved = {(c, t) for c in self.carriers for t in targets}
        ready_by_id = {id(v): site for v, site in model.ready.items()}
        for ob, _verdict in failed:
            sites = {s.id for s in (ob.first, ob.second, *ob.targets) if s is not None}
            for _d, nxt in demands:
                if sites & nxt.sites:
                    about = set(query_targets(nxt, ob.first, ob.second, ob.x, ob.y, ob.value)) or set(targets)
                    if ob.value is not None:
                        # A readiness query is one per consumer and producer, naming one of the
                        # values: every carried value this demand uses that the same producer
                        # makes is uncovered too (naming only the one was a hole: an unawaited
                        # export of a loop's second result was proved).
                        about |= {t for (sid, vid), t in nxt.uses.items() if sid in sites and ready_by_id.get(vid) is ob.first}
                    proved -= {(nxt.carrier, t) for t in about}  # unattributed: the carrier covers nothing
        proved |= self._monotone_timepoints(model, yields, head)
        run.loop = self
        run.proved = frozenset(proved)
        run.successor = self._successor(model, yields, head, head_index)
        if run.successor is None:
            run.unknown = "a loop-carried resource's storage is not known at the back edge"
        return run

    def _monotone_timepoints(self, model: FunctionModel, yields: tuple[Value, ...], head: HeadPlan | None) -> set[tuple[Carrier, Target]]:
        """Carried timepoints the back edge passes on reached after their initial values: an exact
        reachability fact of this program's happens-before graph, where (induction hypothesis)
        the head's timepoint is reached after its initial value too when the state says so.
        Such a timepoint's earlier-iterations site awaits the initial value (`verify.loops`)."""
        hb = HappensBefore(model.graph)
        if hb.cycle is not None:
            return set()
        out: set[tuple[Carrier, Target]] = set()
        unit_of = model.graph.unit_of
        for k in self.tp_slots:
            src = model.tp_event.get(self.init[k])
            dst = model.tp_event.get(yields[k])
            if src is None or (dst is not None and (src == dst or hb.units_before(unit_of[src], unit_of[dst]))):
                out.add((("tp", k), ("mono", k)))
        return out

    # -- loop-head states ----------------------------------------------------------------------------
    def _collect_outer(self, model: FunctionModel, head_index: int, head: HeadPlan | None) -> None:
        """Outer storage the loop's part of the program touches (and how): a target of coverage."""
        carried = set(head.allocs) if head is not None else set()
        later = _issued_from(model, head_index)
        own = {a.id for a in model.storage.allocations if a.op is not None and id(a.op) in later}
        slot_of: dict[int, Target] = {}
        for j in self.res_slots:
            view = model.storage.view(self.args[j]) if head is not None else model.storage.view(self.init[j])
            if view is not None:
                slot_of.setdefault(view.alloc.id, ("slot", j))
        slot_allocs = set(slot_of)
        membership = slice_membership(model) if model.packs else {}
        for a in model.accesses:
            if a.site.order[0] < head_index:
                continue
            alloc = a.alloc
            if a.writes and alloc.value in self.before:
                self.written.add(alloc.value)
            member = membership.get(a.id)
            if member is not None and alloc.id not in own:
                target: Target = slot_of.get(alloc.id) or ("outer", alloc.value)
                self.slices.setdefault(target, set()).add((member[0], member[1]))
            if alloc.id in own or alloc.id in carried or alloc.id in slot_allocs:
                continue
            t: Target = ("outer", alloc.value)
            self.outer.setdefault(t, alloc.value)
            self.modes[t] = self.modes.get(t, 0) | (WRITE if a.writes else READ)
        tied = {a.alloc.id for a in model.accesses
                if a.tie and a.site.order[0] >= head_index and a.alloc.id not in own and a.alloc.id not in carried}
        if tied:
            entry = [*self.g.arguments, *(r for op in self.pre.ops for r in op.results)]
            for v in entry:
                view = model.storage.view(v) if isinstance(v.type, ResourceType) else None
                if view is not None and view.alloc.id in tied:
                    self.ends.setdefault(v, None)

    def _successor(self, model: FunctionModel, yields: tuple[Value, ...], head: HeadPlan | None, head_index: int) -> State | None:
        origins: list[Origin | None] = [None] * len(self.args)
        classes: dict[int, int] = {}
        sizes = _declared_sizes(model.func.body.ops)
        later = _issued_from(model, head_index)
        for j in self.res_slots:
            view = model.storage.view(yields[j])
            if view is None:
                return None
            alloc = view.alloc
            cls = classes.setdefault(alloc.id, len(classes))
            inner = made_by_head(alloc)  # storage an inner loop carried out: the size it was made with
            # The first size spelled for it that is known before the loop (a size taken inside
            # the body, `stream.resource.size` of an inner loop's result, is not).
            size = next((v for c in (sizes.get(yields[j]), sizes.get(alloc.value), inner.size if inner is not None else None)
                         if (v := self._outside(c, model, head_index)) is not None), None)
            if head is not None and alloc.id in head.allocs:
                prior = head.origins[head.allocs[alloc.id]]
                assert prior is not None
                origins[j] = Origin("past", key=prior.key, cls=cls, alloc_kind=prior.alloc_kind, size=prior.size or size)
            elif alloc.op is not None and id(alloc.op) in later:
                idx = alloc.op.results.index(alloc.value) if alloc.value in alloc.op.results else 0
                origins[j] = Origin("past", key=(str(alloc.op.location), idx), cls=cls, alloc_kind=alloc.kind, size=size)
            else:
                origins[j] = Origin("outer", value=alloc.value, size=size)
        return tuple(origins)

    def _outside(self, v: Value | None, model: FunctionModel, head_index: int) -> Value | None:
        """`v` if it is defined before the loop (or is a constant, recreated there), else None."""
        if v is None:
            return None
        for i, op in enumerate(model.func.body.ops):
            if v in op.results:
                if i < len(self.pre.ops):
                    return v
                return v if op.name == "arith.constant" else None
        return v  # an argument

    def _head_ops(self, state: State, pairs: Pairs) -> tuple[HeadPlan, list[Op]]:
        """The ops that stand for earlier iterations: constants the sizes need, the head op, and an
        await for each gated slot."""
        coverage: dict[Carrier, frozenset[Target]] = {c: frozenset(t for cc, t in pairs if cc == c) for c in self.carriers}
        gated = [j for j in self.res_slots if ("slot", j) in coverage.get(("gate", j), frozenset())
                 and (origin := state[j]) is not None and origin.size is not None]
        for j in self.res_slots:
            if j not in gated:
                coverage.pop(("gate", j), None)
        covered = {t for ts in coverage.values() for t in ts if t[0] != "mono"}
        targets = {("slot", j) for j in self.res_slots} | set(self.outer)
        modes = dict(self.modes)
        for j in self.res_slots:
            # A slot holding outer storage that no iteration writes (an outer value passed on)
            # was only read by earlier iterations; any other slot was made (written) by them.
            origin = state[j]
            passed_on = origin is not None and origin.kind == "outer" and origin.value not in self.written
            modes.setdefault(("slot", j), READ if passed_on else WRITE)
        values = list(self.args)
        hidden: dict[int, Value] = {}
        for j in gated:
            values[j] = Value(self.args[j].type, f"{self.args[j].name_hint or 'carried'}_raw")
            hidden[j] = Value(TimepointType(), "awaited")
        after = {k: self.init[k] for k in self.tp_slots if ("mono", k) in coverage.get(("tp", k), frozenset())}
        plan = HeadPlan(self.args, state, coverage, frozenset(targets - covered), modes, dict(self.outer), dict(self.monotone),
                        dict(self.invariant), tuple(values), hidden, after, tuple(self.ends),
                        {t: frozenset(v) for t, v in self.slices.items()})
        ops: list[Op] = []
        pre_defined = {r for op in self.pre.ops for r in op.results} | set(self.g.arguments)
        for j in gated:
            size = state[j].size  # type: ignore[union-attr]
            assert size is not None
            if size not in pre_defined and size not in {r for o in ops for r in o.results}:
                ops.append(Op("arith.constant", results=(size,), properties=self._constant(size), location=self.head_at.location))
        operands = tuple(dict.fromkeys([*self.outer.values(), *self.monotone.values(), *self.invariant.values(), *after.values(),
                                        *self.ends]))
        ops.append(plan_op(GHOST_HEAD, operands, (*values, *hidden.values()), plan, self.head_at))
        for j in gated:
            size = state[j].size  # type: ignore[union-attr]
            ops.append(Op("stream.timepoint.await", operands=(values[j], size, hidden[j]), results=(self.args[j],),  # type: ignore[arg-type]
                          properties={"operandSegmentSizes": DenseArrayAttr(I32, (1, 1, 1))}, location=self.head_at.location))
        return plan, ops

    def _constant(self, v: Value) -> dict[str, Attribute]:
        for op in self.g.op.walk():
            if v in op.results and op.name == "arith.constant":
                return dict(op.properties)
        raise AssertionError("a size that is neither defined before the loop nor a constant")

    def _back_edges(self) -> list[tuple[Value, ...]]:
        blocks = self.g.blocks
        edges: list[tuple[Value, ...]] = []
        for i in latches(blocks, self.header):
            # Every edge to the header (a switch may have several).
            edges.extend(args for dest, args in branch_edges(blocks[i].ops[-1]) if dest == self.header)
        return edges

    def _invariant(self) -> dict[int, Value]:
        """Index slots every back edge passes one value defined before the loop (on the path in,
        or a function argument): after an iteration they hold that value."""
        edges = self._back_edges()
        before = {r for op in self.pre.ops for r in op.results} | set(self.g.arguments)
        out: dict[int, Value] = {}
        for j, arg in enumerate(self.args):
            if isinstance(arg.type, (ResourceType, TimepointType)) or not edges:
                continue
            passed = {e[j] for e in edges}
            if len(passed) == 1 and (v := next(iter(passed))) in before:
                out[j] = v
        return out

    def _monotone(self) -> dict[int, Value]:
        """Index slots every back edge increments by a non-negative constant: at least their initial value."""
        defs = defining_ops(self.g.op.regions[0])
        edges = self._back_edges()
        out: dict[int, Value] = {}
        for j, (arg, init) in enumerate(zip(self.args, self.init)):
            if isinstance(arg.type, (ResourceType, TimepointType)) or not edges:
                continue
            if all(_increment_of(e[j], arg, defs) for e in edges):
                out[j] = init
        return out


def _issued_from(model: FunctionModel, index: int) -> set[int]:
    """The ops (ids, nested ones too) of the program's top-level ops from `index` on: what the
    loop's part of a checked program issues."""
    return {id(inner) for op in model.func.body.ops[index:] for inner in op.walk()}


def _increment_of(v: Value, arg: Value, defs: dict[Value, Op]) -> bool:
    op = defs.get(v)
    if op is None or op.name != "arith.addi":
        return False
    a, b = op.operands
    other = b if a is arg else a if b is arg else None
    if other is None:
        return False
    c = defs.get(other)
    value = c.properties.get("value") if c is not None and c.name == "arith.constant" else None
    return isinstance(value, IntegerAttr) and value.value >= 0


def _declared_sizes(ops: tuple[Op, ...]) -> dict[Value, Value]:
    """The first size each resource value is declared with (`%r{%size}`), in program order."""
    out: dict[Value, Value] = {}
    for top in ops:
        for op in top.walk():
            for value, size in declared_sizes(op):
                out.setdefault(value, size)
    return out

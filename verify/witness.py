"""Counterexample executions, built by Z3 over the racing window.

For a violated obligation with sites `a` (first) and `b` (second), let `K` be their key events
(starts and ends), `A` every event with a path to one of `K` on `a`'s side, `B` likewise on
`b`'s side. Events that are ancestors of both sides and follow no key event (`C`) can all run
first, in any topological order; the others (`W`, the window) get a Z3 time variable each, with
`t_u < t_v` for every edge inside `W`, plus the violation itself (e.g. `b` starts before `a`
ends) and the symbolic sizes of the range condition. The model is the interleaving.

`Witness.order` is a complete prefix of a real execution: `C` in topological order, then `W`
by model time. Every event's predecessors come before it (tests replay this against every
edge). Z3 answering `unsat` here would mean the two engines disagree: that is an internal
error, never silently ignored.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import z3

from verify.discharge import DEFAULT_RLIMIT, Verdict, cond_exprs, cond_z3
from verify.events import Ev, Site
from verify.model import FunctionModel
from verify.obligations import Obligation
from verify.properties import property_class

__all__ = ["Witness", "Step", "build_witness", "WitnessError"]

MAX_STEPS = 40


class WitnessError(RuntimeError):
    """Z3 found no execution for a violation the verifier reported (an internal error)."""


@dataclass(slots=True)
class Step:
    event: int
    lane: str
    verb: str
    what: str
    detail: str = ""
    time: int = 0
    start_event: int = -1  # for an `end` step: the start event of the same op


@dataclass(slots=True)
class Witness:
    steps: list[Step]  # what the text shows (long witnesses elide their middle: a "..." step)
    order: list[int]  # a prefix of an execution: every event's predecessors come first
    omitted: int  # events of `order` run before the window and not shown
    values: dict[int, int] = field(default_factory=dict)  # atom id -> value
    times: dict[int, int] = field(default_factory=dict)  # event -> Z3 time (window events)
    all_steps: list[Step] = field(default_factory=list)  # every step, none elided (the trace)


def build_witness(model: FunctionModel, ob: Obligation, verdict: Verdict, before: object, rlimit: int = DEFAULT_RLIMIT) -> Witness | None:
    """The execution in which `ob` fails (None for facts that need no schedule, e.g. a leak)."""
    g = model.graph
    a, b = ob.first, ob.second
    later: tuple[Site, Site] | None = None  # pack: the pair whose uses come back after the other slice's
    if ob.shape == "pack":
        (a, b), later = _pack_pairs(ob, before)
    if a is None or not property_class(ob.cls).witness:
        return None
    side_a = [a.start, a.end]
    side_b: list[int] = []
    if b is not None:
        side_b = [b.start, b.end]
    targets = list(ob.targets) if ob.shape == "order_any" else ([b] if b is not None else [])
    for other in targets[1:]:
        side_b.extend((other.start, other.end))
    if later is not None:
        side_a.extend((later[0].start, later[0].end))
        side_b.extend((later[1].start, later[1].end))
    anc_a = g.ancestors(side_a)
    anc_b = g.ancestors(side_b) if side_b else set()
    keys = set(side_a) | set(side_b)
    both = anc_a | anc_b
    after_keys = _descendants(g, keys, both)
    common = {e for e in (anc_a & anc_b) if e not in after_keys and e not in keys} if side_b else {e for e in anc_a if e not in after_keys and e not in keys}
    window = [e for e in both if e not in common]
    ctx = model.symbols.ctx
    t = {e: z3.Int(f"w{e}", ctx) for e in window}
    solver = z3.Solver(ctx=ctx)
    solver.set("rlimit", rlimit)
    for u, v in zip(g.src, g.dst):
        if u in t and v in t:
            solver.add(t[u] < t[v])
    for e in window:
        solver.add(t[e] >= 0)
    violation, stop = _violation(ob, a, b, targets, t, later)
    solver.add(*violation)
    exprs = cond_exprs(ob.cond) if ob.cond else []
    if ob.cond is not None and ob.shape != "fact":
        solver.add(cond_z3(model, ob.cond))
    # Concrete values for every symbol the reported ranges mention, consistent with the facts.
    exprs += [e for acc in (ob.x, ob.y) if acc is not None for e in (acc.lo, acc.hi)]
    if ob.range_check is not None:
        exprs += [ob.range_check.offset, ob.range_check.length, ob.range_check.size]
    solver.add(*model.symbols.assumptions(exprs)[0])
    # Prefer the most telling interleaving: the later op of the program starts first.
    result = z3.unknown
    if b is not None and b is not a and ob.shape in ("conflict", "pack", "order", "order_if_overlap"):
        result = solver.check(t[b.start] < t[a.start])
    if result != z3.sat:
        result = solver.check()
    if result == z3.unknown:
        return None
    if result != z3.sat:
        raise WitnessError(f"no execution exhibits the {ob.cls} the verifier reported at {a.op.location}")
    m = solver.model()
    times = {e: m.eval(v, model_completion=True).as_long() for e, v in t.items()}
    values = model.symbols.model_values(m, exprs) if exprs else dict(verdict.values)
    values = {**verdict.values, **values} if not exprs else values
    common_order = _topo(g, common)
    window_order = sorted(window, key=lambda e: (times[e], e))
    cut = max((times[e] for e in stop), default=None)
    shown = [e for e in window_order if cut is None or times[e] <= cut]
    context = [e for e in common_order if _is_context(g, e, a, b)]
    all_steps = [_step(model, e, ob, values, times.get(e, -1)) for e in context + shown]
    omitted = len(common_order) - len(context)
    steps = all_steps
    if len(steps) > MAX_STEPS:
        steps = steps[: MAX_STEPS // 2] + [Step(-1, "", "...", f"{len(steps) - MAX_STEPS} more events")] + steps[-MAX_STEPS // 2 :]
    return Witness(steps, common_order + window_order, omitted, values, times, all_steps)


def _violation(
    ob: Obligation, a: Site, b: Site | None, targets: list[Site], t: dict[int, z3.ArithRef],
    later: tuple[Site, Site] | None = None,
) -> tuple[list[z3.BoolRef], list[int]]:
    """Constraints saying the bad thing happens, and the events after which it has happened."""
    if b is None:
        return [], [a.start]
    if later is not None:  # pack, interleaved: `a` before `b`, and `b` before a later use `x` of a's slice
        x, y = later
        return [t[a.start] < t[b.end], t[y.start] < t[x.end]], [a.start, b.start, x.start]
    if ob.shape in ("conflict", "pack"):
        if a is b:
            return [], [a.start]
        return [t[b.start] < t[a.end], t[a.start] < t[b.end]], [a.start, b.start]
    if ob.shape in ("order", "order_if_overlap", "order_any"):
        return [t[x.start] < t[a.end] for x in targets], [a.start] + [x.start for x in targets]
    return [], [a.start, b.start]


def _pack_pairs(ob: Obligation, before: object) -> tuple[tuple[Site | None, Site | None], tuple[Site, Site] | None]:
    """Why the uses of two slices that may share bytes are not separated in time (the pack
    obligation failed: neither every use of slice j precedes every use of slice i, nor the other
    way round). Either a use `x` of j and a use `y` of i are unordered: they may overlap, one
    execution shows it. Or every pair is ordered but in both directions (the uses interleave): a
    pair with `a` before `b` and a pair with `y` before `x`, where `a`, `x` use one slice and
    `b`, `y` the other; returned as ((a, b), (x, y)), which every execution exhibits."""
    xs, ys = ob.groups
    for x in xs:
        for y in ys:
            if not before(x.site, y.site) and not before(y.site, x.site):  # type: ignore[operator]
                return (x.site, y.site), None
    forward = next(((x.site, y.site) for x in xs for y in ys if before(x.site, y.site)), None)  # type: ignore[operator]
    backward = next(((x.site, y.site) for x in xs for y in ys if before(y.site, x.site)), None)  # type: ignore[operator]
    if forward is None or backward is None:
        return (ob.first, ob.second), None
    (sa, sb), (sx, sy) = forward, backward
    if before(sa, sx):  # type: ignore[operator]
        return (sa, sb), (sx, sy)  # j at `sa`, then i at `sb`, then j again at `sx` (after `sy`)
    return (sy, sx), (sb, sa)  # i at `sy`, then j at `sx`, then i again at `sb` (after `sa`)


def _descendants(g: object, keys: set[int], within: set[int]) -> set[int]:
    succ: dict[int, list[int]] = {}
    for u, v in zip(g.src, g.dst):  # type: ignore[attr-defined]
        if u in within and v in within:
            succ.setdefault(u, []).append(v)
    seen = set(keys)
    queue = deque(keys)
    while queue:
        u = queue.popleft()
        for v in succ.get(u, ()):
            if v not in seen:
                seen.add(v)
                queue.append(v)
    return seen - keys


def _topo(g: object, events: set[int]) -> list[int]:
    preds: dict[int, int] = {e: 0 for e in events}
    succ: dict[int, list[int]] = {}
    for u, v in zip(g.src, g.dst):  # type: ignore[attr-defined]
        if u in events and v in events:
            preds[v] += 1
            succ.setdefault(u, []).append(v)
    ready = sorted(e for e, n in preds.items() if n == 0)
    queue = deque(ready)
    out: list[int] = []
    while queue:
        u = queue.popleft()
        out.append(u)
        for v in succ.get(u, ()):
            preds[v] -= 1
            if preds[v] == 0:
                queue.append(v)
    return out


def _is_context(g: object, e: int, a: Site, b: Site | None) -> bool:
    """Events run before the window that a reader needs: the issue and start of the units the
    two sites belong to."""
    units = {a.unit} | ({b.unit} if b is not None else set())
    unit = g.unit_of[e]  # type: ignore[attr-defined]
    kind = g.kinds[e]  # type: ignore[attr-defined]
    if unit in units and kind in (Ev.START, Ev.HOST):
        site = g.site_of[e]  # type: ignore[attr-defined]
        return site is not None and not site.path
    if kind == Ev.ISSUE:
        site = g.site_of[e] if g.site_of[e] is not None else g.units[unit].site  # type: ignore[attr-defined]
        return site is not None and site.unit in units
    return False


def _step(model: FunctionModel, e: int, ob: Obligation, values: dict[int, int], time: int) -> Step:
    g = model.graph
    kind = Ev(g.kinds[e])
    unit = g.units[g.unit_of[e]]
    site = g.site_of[e]
    if kind == Ev.ISSUE:
        return Step(e, "host", "issue", unit.name, time=time)
    if kind == Ev.REACH:
        return Step(e, "timeline", "reach", unit.name, time=time)
    if kind == Ev.HOST:
        name = site.name if site is not None else unit.name
        return Step(e, "host", name, "", _detail(model, ob, site, values) if site is not None else "", time)
    verb = "start" if kind == Ev.START else "end"
    assert site is not None
    detail = _detail(model, ob, site, values) if kind == Ev.START else ""
    return Step(e, site.lane, verb, site.name, detail, time, site.start if kind == Ev.END else -1)


def _detail(model: FunctionModel, ob: Obligation, site: Site | None, values: dict[int, int]) -> str:
    for acc in (ob.x, ob.y, *ob.groups[0], *ob.groups[1]):
        if acc is not None and acc.site is site:
            lo = model.symbols.evaluate(acc.lo, values)
            hi = model.symbols.evaluate(acc.hi, values)
            verb = "reads+writes" if acc.reads and acc.writes else "writes" if acc.writes else "reads" if acc.reads else "touches"
            return f"{verb} [{lo}, {hi})"
    return ""

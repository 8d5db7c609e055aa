"""The ops a loop's inductive check is written with: the state at the loop header after earlier
iterations (`verify.loop.head`) and the demands the next iteration makes at a back edge
(`verify.loop.next`). Neither is an IR op a user writes: `verify.control_flow` builds them into
the straight-line programs it checks, with a plan each (`HeadPlan`, `NextPlan`) that says what
they stand for; the rules here give them storage, symbols and effects.

What orders a later iteration after an earlier one is a *carrier*: a carried timepoint
(`("tp", k)`: the next iteration awaits it), a carried resource that was awaited before the
back edge (`("gate", j)`: a user of the value is ordered after the await it comes from, as any
user of an await's result is; `stream.dialect.awaits.Gates`), or the host (`("host", 0)`: work
the host did synchronously, as async-level ops outside execute regions are, or waited for with a
`sync` await, is done before the next iteration starts; its site is a host op).

`verify.loop.head` defines the loop-carried values as they are at the start of an iteration
after the first:

* a carried resource lives in the storage its `Origin` names: an outer allocation (made before
  the loop, or an argument), or an allocation an earlier iteration made (`past`: fresh storage
  of the kind the loop body allocates, of the size it was made with; slots of one class share
  it);
* for each carrier, one device site, awaiting nothing, stands for every access of earlier
  iterations to the storage the carrier covers (`HeadPlan.coverage`): it accesses that storage
  (mode: what the body does to it) and ends when the carried timepoint is reached, or, for a
  gate, when a hidden timepoint is reached that an await of the resource (built after the
  head op) waits for; the carried resources it covers are produced by it, and a past allocation
  it covers is made by it;
* one more site stands for earlier accesses no carrier covers (`orphans`): nothing orders it, so
  any conflicting later access is a hazard;
* a carried timepoint that every back edge passes on reached after its initial value (an exact
  reachability fact checked at each back edge under this same hypothesis for the head,
  `("mono", k)` in its coverage) is reached after its initial value in every iteration, so its
  site awaits the initial value;
* at the async level, values defined before the loop that live in storage the loop writes in
  place (`ends`) have their versions ended by an in-place write of each: an
  earlier iteration's tie replaced the bytes they name, so a later reader of one or a second
  in-place write of one is a broken tie (rule A2), as in straight-line code; the sites that
  write their storage make these in-place writes, so they end when those sites do;
* every target some carrier covers is accessed by a site of its own that ends before each
  covering carrier is reached (the coverage says every real access does), and a carried
  resource is produced by its slot's site; targets no carrier covers are accessed (and produced)
  by one site ordered by nothing;
* carried indices are fresh symbols; one that every back edge increments by a non-negative
  constant is at least its initial value (`monotone`); one that every back edge passes the same
  value defined before the loop (a constant size or offset, as IREE's lowered loops pass on the
  size of what an iteration allocated) is that value (`invariant`): a head state after an
  iteration came through a back edge, and a value from before the loop does not change.

`verify.loop.next`, one per carrier at a back edge, demands that everything covered at the head
is covered again: its device site awaits the carried timepoint passed on (or, for a gate, uses
the resource passed on, and so is ordered after its awaits) and writes (and uses) every target.
The obligations of these sites are queries (`verify.control_flow` weakens the coverage until
they hold), not violations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import z3

from stream.ir.core import Op, Value
from stream.ir.types import IndexType, IntegerType
from verify.events import Site
from verify.model import READ, WRITE, Access, Builder
from verify.rules.table import effect
from verify.storage import Allocation, AllocKind, Walker, storage_rule
from verify.symbolic import Expr, Symbols, evaluator

__all__ = ["GHOST_HEAD", "GHOST_NEXT", "Origin", "Target", "Carrier", "HeadPlan", "NextPlan", "plan_op", "forget", "query_targets",
           "made_by_head"]

GHOST_HEAD = "verify.loop.head"
GHOST_NEXT = "verify.loop.next"

# ("slot", j): carried resource j; ("outer", v): the storage of an outer value v the loop touches.
Target = tuple[str, object]
# ("tp", k): carried timepoint k; ("gate", j): carried resource j, awaited before the back edge;
# ("host", 0): the host itself (work it did synchronously, or after a host wait, is done).
Carrier = tuple[str, int]


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a carried resource's storage is at the header: `outer` (the storage of `value`) or
    `past` (made by the op at `key` in an earlier iteration; one storage per `cls`)."""

    kind: str
    value: Value | None = None
    key: tuple[str, int] = ("", 0)
    cls: int = 0
    alloc_kind: AllocKind = AllocKind.VALUE
    size: Value | None = None  # past: the size it was made with (a value defined before the loop)

    def describe(self) -> str:
        if self.kind == "outer":
            return f"outer %{self.value.name_hint if self.value is not None else '?'}"
        return f"made at {self.key[0]} in an earlier iteration"


@dataclass(slots=True, eq=False)
class HeadPlan:
    header_args: tuple[Value, ...]
    origins: tuple[Origin | None, ...]  # per carried slot (None for non-resources)
    coverage: dict[Carrier, frozenset[Target]]  # carrier -> targets it covers
    orphans: frozenset[Target]
    modes: dict[Target, int]  # READ / WRITE per target (what the loop body does to it)
    outer_values: dict[Target, Value]
    monotone: dict[int, Value]  # index slot -> its initial value
    invariant: dict[int, Value] = field(default_factory=dict)  # index slot -> what every back edge passes
    values: tuple[Value, ...] = ()  # what the head op defines: the carried values, a gated slot's raw value instead
    hidden: dict[int, Value] = field(default_factory=dict)  # gated slot -> the hidden timepoint its await waits for
    # Carried timepoint slot -> its initial value, for the slots every back edge passes on a
    # timepoint reached after the one it got: their site starts after the initial value.
    after: dict[int, Value] = field(default_factory=dict)
    # Async level: values defined before the loop whose storage the loop writes in place. An
    # earlier iteration's in-place write ended their versions (value semantics), so a later
    # reader of one sees bytes it does not name and a later in-place write consumes it twice.
    ends: tuple[Value, ...] = ()
    # Target -> the pack slices (pack op, slice index) the loop's iterations use on it: the
    # summary's access of the target is a use of each (PACK_OVERLAP sees slices interleave
    # across iterations: slice #0 in one, #1, then #0 again in the next).
    slices: dict[Target, frozenset[tuple[Op, int]]] = field(default_factory=dict)
    # Of the model last built with this plan's op (the rules reset them for each model):
    sites: set[int] = field(default_factory=set)  # the summary sites
    allocs: dict[int, int] = field(default_factory=dict)  # allocation id -> carried slot (past storage)


@dataclass(slots=True, eq=False)
class NextPlan:
    yields: tuple[Value, ...]
    carrier: Carrier
    targets: tuple[Target, ...]
    outer_values: dict[Target, Value]
    sites: set[int] = field(default_factory=set)  # of the model last built
    accesses: dict[int, Target] = field(default_factory=dict)  # access id -> target
    uses: dict[tuple[int, int], Target] = field(default_factory=dict)  # (site id, id(value)) -> target


_PLANS: dict[int, HeadPlan | NextPlan] = {}


def plan_op(name: str, operands: tuple[Value, ...], results: tuple[Value, ...], plan: HeadPlan | NextPlan, at: Op) -> Op:
    """A ghost op with its plan (kept until `forget`)."""
    op = Op(name, operands=operands, results=results, location=at.location)
    _PLANS[id(op)] = plan
    return op


def forget(op: Op) -> None:
    _PLANS.pop(id(op), None)


def made_by_head(alloc: Allocation) -> Origin | None:
    """The origin a loop head's summary gave the storage `alloc` it makes (past storage of an
    earlier iteration), or None when `alloc` is not made by a head."""
    plan = _PLANS.get(id(alloc.op)) if alloc.op is not None else None
    if not isinstance(plan, HeadPlan) or alloc.id not in plan.allocs:
        return None
    return plan.origins[plan.allocs[alloc.id]]


def _head(op: Op) -> HeadPlan:
    plan = _PLANS[id(op)]
    assert isinstance(plan, HeadPlan)
    return plan


def _next(op: Op) -> NextPlan:
    plan = _PLANS[id(op)]
    assert isinstance(plan, NextPlan)
    return plan


def _target_value(plan: HeadPlan | NextPlan, t: Target, values: tuple[Value, ...]) -> Value:
    kind, what = t
    if kind == "slot":
        assert isinstance(what, int)
        return values[what]
    return plan.outer_values[t]


# -- storage ---------------------------------------------------------------------------------------
@storage_rule(GHOST_HEAD)
def _head_storage(w: Walker, op: Op) -> None:
    plan = _head(op)
    plan.allocs.clear()  # this plan's op may be in several programs: record the current one's
    by_cls: dict[int, Value] = {}
    # The declared size of a past storage: its own, else what a use of any slot of its class
    # spells (slots of one class are the same storage).
    cls_size: dict[int, Value] = {}
    for j, origin in enumerate(plan.origins):
        if origin is not None and origin.kind != "outer":
            declared = origin.size if origin.size is not None else w.first_size.get(plan.header_args[j])
            if declared is not None:
                cls_size.setdefault(origin.cls, declared)
    for j, origin in enumerate(plan.origins):
        if origin is None:
            continue
        arg = plan.values[j]
        if origin.kind == "outer":
            assert origin.value is not None
            w.storage.alias(arg, origin.value, new_version=True)
        elif origin.cls in by_cls:
            w.storage.alias(arg, by_cls[origin.cls])
        else:
            declared = cls_size.get(origin.cls)
            size = w.size(declared) if declared is not None else w.symbols.fresh("loop_size", arg, op.location, "size of a loop-carried resource")
            alloc = w.storage.allocate(arg, origin.alloc_kind, op, size, w.device(op), op.location)
            plan.allocs[alloc.id] = j
            by_cls[origin.cls] = arg


@storage_rule(GHOST_NEXT)
def _next_storage(w: Walker, op: Op) -> None:
    return None  # no results


# -- symbols ---------------------------------------------------------------------------------------
@evaluator(GHOST_HEAD)
def _head_symbols(s: Symbols, op: Op) -> list[Expr]:
    plan = _head(op)
    out: list[Expr] = []
    for j, r in enumerate(op.results):
        e = s.fresh("loop_carried", r, op.location, f"loop-carried value #{j} at the loop header")
        init = plan.monotone.get(j)
        if init is not None and isinstance(r.type, (IndexType, IntegerType)):
            s.fact((e, s.expr(init)), _at_least(e, s.expr(init)), kind="loop:monotone")
        passed = plan.invariant.get(j)
        if passed is not None and isinstance(r.type, (IndexType, IntegerType)):
            s.fact((e, s.expr(passed)), _equal(e, s.expr(passed)), kind="loop:invariant")
        out.append(e)
    return out


def _at_least(e: Expr, lo: Expr) -> Callable[[Symbols], z3.BoolRef]:
    return lambda sy: sy.z3(e) >= sy.z3(lo)


def _equal(e: Expr, v: Expr) -> Callable[[Symbols], z3.BoolRef]:
    return lambda sy: sy.z3(e) == sy.z3(v)


# -- effects ---------------------------------------------------------------------------------------
@effect(GHOST_HEAD)
def _head_effect(b: Builder, op: Op) -> None:
    """The summary of earlier iterations. Every access they made to a target some carrier covers
    is done before each carrier covering it is reached (that is what the coverage says), so each
    such target gets one site, issued first and awaiting nothing, that accesses it and ends before
    the sites standing for those carriers' reach start. (One site per carrier accessing all it
    covers would order a target's accesses before that carrier only: a consumer ordered by
    another carrier covering it would see them unordered, a false alarm.) The targets no carrier
    covers are accessed by one more site, ordered by nothing."""
    plan = _head(op)
    plan.sites.clear()  # site ids are per model: only the model being built
    written: dict[Site, set[int]] = {}  # summary site -> the allocations it writes
    groups: list[tuple[Carrier, frozenset[Target]]] = sorted(plan.coverage.items())  # type: ignore[assignment]
    covering: dict[Target, list[Carrier]] = {}
    for carrier, targets in groups:
        for t in targets:
            if t[0] != "mono":
                covering.setdefault(t, []).append(carrier)

    def access(site: Site, t: Target) -> None:
        a = b.whole(site, _target_value(plan, t, plan.values), plan.modes.get(t, WRITE), "earlier iterations")
        if a is not None and a.writes:
            written.setdefault(site, set()).add(a.alloc.id)
        if a is not None:
            b.model.slice_uses.extend((pack, i, a) for pack, i in sorted(plan.slices.get(t, ()), key=lambda s: (id(s[0]), s[1])))

    by_target: dict[Target, Site] = {}
    for t in sorted(covering, key=str):
        # A tp carrier whose timepoint is reached after its initial value in every iteration has
        # its accesses start after that value (`after`): so do the accesses it covers.
        awaits = tuple(dict.fromkeys(plan.after[c[1]] for c in covering[t] if c[0] == "tp" and c[1] in plan.after))
        site = b.submit(op, awaits, "earlier iterations")
        plan.sites.add(site.id)
        access(site, t)
        by_target[t] = site
    for carrier, targets in groups:
        if carrier[0] == "host":
            reach = b.host(op, "earlier iterations")
        else:
            after = (plan.after[carrier[1]],) if carrier[0] == "tp" and carrier[1] in plan.after else ()
            reach = b.submit(op, after, "earlier iterations")
        plan.sites.add(reach.id)
        for t in sorted(targets, key=str):
            if t in by_target:
                b.graph.edge(by_target[t].end, reach.start, "earlier iterations: done before the carrier covering them")
        if carrier[0] == "tp":
            b.timepoint(plan.values[carrier[1]], reach.end)
        elif carrier[0] == "gate":
            b.timepoint(plan.hidden[carrier[1]], reach.end)
    orphan: Site | None = None
    if plan.orphans:
        orphan = b.submit(op, (), "earlier iterations (ordered by no carried timepoint)")
        plan.sites.add(orphan.id)
        for t in sorted(plan.orphans, key=str):
            if t[0] != "mono":
                access(orphan, t)
    if plan.ends and b.level == "async":
        for v in plan.ends:
            view = b.view(v)
            writers = [s for s, allocs in written.items() if view is not None and view.alloc.id in allocs]
            for s in writers or [b.submit(op, (), "earlier iterations (in-place writes)")]:
                plan.sites.add(s.id)
                b.whole(s, v, WRITE, "earlier iterations", tie=True)
    for j, origin in enumerate(plan.origins):
        if origin is None:
            continue
        slot: Target = ("slot", j)
        if origin.kind == "outer" and plan.modes.get(slot) == READ:
            # Outer storage no iteration writes, passed on: its bytes were made before the loop
            # (those writes are on every path and ordered by the storage rules), so earlier
            # iterations produce nothing a user must wait for.
            passed = b.host(op, "earlier iterations (a value passed on)")
            plan.sites.add(passed.id)
            b.produce(passed, (plan.values[j],))
            continue
        made: Site | None = by_target.get(slot) or (orphan if slot in plan.orphans else None)
        if made is None:  # covered by nothing and touched by nothing: still made before
            made = b.submit(op, (), "earlier iterations")
            plan.sites.add(made.id)
        b.produce(made, (plan.values[j],))
        view = b.view(plan.values[j])
        if view is not None and view.alloc.id in plan.allocs:
            b.model.allocas.setdefault(view.alloc.id, made)


@effect(GHOST_NEXT)
def _next_effect(b: Builder, op: Op) -> None:
    plan = _next(op)
    plan.sites.clear()
    plan.accesses.clear()
    plan.uses.clear()
    kind, slot = plan.carrier
    if kind == "host":
        site = b.host(op, "the next iteration")
    else:
        site = b.submit(op, (plan.yields[slot],) if kind == "tp" else (), "the next iteration")
    plan.sites.add(site.id)
    for t in plan.targets:
        v = _target_value(plan, t, plan.yields)
        a = b.whole(site, v, WRITE, "the next iteration")
        if a is not None:
            plan.accesses[a.id] = t
        if t[0] == "slot":
            b.use(site, v)
            plan.uses[(site.id, id(v))] = t


def query_targets(plan: NextPlan, first: object, second: object, x: Access | None, y: Access | None,
                  value: Value | None) -> Iterator[Target]:
    """The targets an obligation of the demand's site is about."""
    for a in (x, y):
        if a is not None and a.id in plan.accesses:
            yield plan.accesses[a.id]
    for s in (first, second):
        sid = getattr(s, "id", None)
        if sid in plan.sites and value is not None and (sid, id(value)) in plan.uses:
            yield plan.uses[(sid, id(value))]


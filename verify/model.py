"""The verification model of one function: events and edges, sites, accesses and lifetime facts.

`build_model(function, module)` walks the function in program order. Every op's contribution
comes from the effect rule table (`verify.rules.EFFECTS`, one rule per op name); unknown ops
that touch resources get the conservative rule (a read and write of every resource operand,
on the host at the top level). The `Builder` below is the vocabulary the rules use: host ops,
device submissions, nested sites in regions, accesses with byte ranges, readiness uses,
timepoints and lifetime facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stream.dialect.abi import handed_in_pairs, signalled_fences, wait_fences
from stream.dialect.awaits import PURE_HOST_USERS, Gates
from stream.ir.core import Module, Op, Value
from stream.ir.diagnostics import DiagnosticError
from stream.ir.types import ResourceType
from stream.ir.verifier import function_level
from stream.ir.walk import Function
from verify.bindings import BindingContext
from verify.events import Ev, EventGraph, Site, Unit
from verify.storage import Allocation, StorageMap, View, analyze_storage
from verify.symbolic import ZERO, Expr, Symbols

__all__ = ["READ", "WRITE", "TOUCH", "Access", "Use", "FunctionModel", "Builder", "build_model"]

TOUCH, READ, WRITE = 0, 1, 2  # TOUCH: no data access (cache control), still a use of the memory
RW = READ | WRITE


@dataclass(slots=True, eq=False)
class Access:
    """`site` touches `length` bytes at `lo` (absolute, in `view.alloc`) with `mode`.

    `local` is the offset inside the accessed value (`value`, of declared size `view.size`);
    `label` is how the op spells the access (`ro`, `wo`, `rw`, `source`, `target`, ...).
    `transfer`: a transfer-style command, allowed to touch another device's memory.
    `tie`: an in-place write that ends the version `view.version` (async level).
    """

    id: int
    site: Site
    value: Value
    view: View
    local: Expr
    length: Expr
    mode: int
    label: str
    transfer: bool = False
    tie: bool = False
    lo: Expr = field(init=False)  # absolute offset in the allocation
    hi: Expr = field(init=False)
    alloc: Allocation = field(init=False)

    def __post_init__(self) -> None:
        self.lo = self.view.offset + self.local
        self.hi = self.lo + self.length
        self.alloc = self.view.alloc

    @property
    def writes(self) -> bool:
        return bool(self.mode & WRITE)

    @property
    def reads(self) -> bool:
        return bool(self.mode & READ)


@dataclass(slots=True, eq=False)
class Use:
    """Async level: `site` consumes `value`, which must be ready (produced) before it starts."""

    site: Site
    value: Value


@dataclass(slots=True, eq=False)
class RangeCheck:
    """A structural byte-range fact to prove: `length` bytes at `offset` fit in `size`."""

    site: Site | None
    op: Op
    what: str
    offset: Expr
    length: Expr
    size: Expr
    access: Access | None = None
    value: Value | None = None  # the resource the range is in
    unit: str = "bytes"  # what offset, length and size count ("elements of dim 1" for tensor indices)


@dataclass(slots=True, eq=False)
class FunctionModel:
    func: Function
    module: Module | None
    level: str
    storage: StorageMap
    graph: EventGraph = field(default_factory=EventGraph)
    accesses: list[Access] = field(default_factory=list)
    uses: list[Use] = field(default_factory=list)
    ready: dict[Value, Site] = field(default_factory=dict)
    allocas: dict[int, Site] = field(default_factory=dict)  # allocation id -> alloca site
    deallocas: list[tuple[Site, Allocation]] = field(default_factory=list)
    retains: list[tuple[Site, Allocation, int]] = field(default_factory=list)  # +1 retain, -1 release
    ranges: list[RangeCheck] = field(default_factory=list)
    packs: list[Op] = field(default_factory=list)
    # Accesses that stand for uses of a pack's slice without addressing it (a loop's summary of
    # earlier iterations, whose uses of slices it holds as whole-storage accesses): (pack, slice).
    slice_uses: list[tuple[Op, int, Access]] = field(default_factory=list)
    escapes: dict[int, Site] = field(default_factory=dict)  # allocation id -> a site handing it out
    completions: list[Site] = field(default_factory=list)  # after these the caller may observe memory (async ABI fences)
    return_site: Site | None = None
    tp_event: dict[Value, int | None] = field(default_factory=dict)
    executes: dict[Op, int] = field(default_factory=dict)
    # The async ("coarse-fences") ABI: the function signals fences with `chain_external` and the
    # caller observes results and its own buffers once they are signalled, not at the return.
    async_abi: bool = False
    handoffs: list[tuple[Site, Value]] = field(default_factory=list)  # async ABI: values handed to the caller
    # The fences that guard every input (`stream.dialect.abi.wait_fences`) and, for each, the
    # site at which it is signalled (its imports share one reach: the same fence, reached once).
    wait_fences: tuple[Value, ...] = ()
    fence_sites: dict[Value, Site] = field(default_factory=dict)
    # Private functions: each argument allocation handed in with a timepoint -> the site at which
    # the caller's timepoint is reached (accesses to it must follow).
    arg_guards: dict[int, Site] = field(default_factory=dict)
    # Private functions: an allocation returned with a timepoint is observed by the caller once
    # that timepoint is reached (these sites), not at the return.
    deferred: dict[int, list[Site]] = field(default_factory=dict)
    # Calls to private functions: each returned-timepoint site -> the call's timepoint result
    # (`verify.calls`); a resource handed over with it is ready there.
    call_handoffs: dict[Site, Value] = field(default_factory=dict)
    # Calls to coarse-fences functions (`verify.rules.fence_ops`): the signal sites whose fence
    # is not fresh (why); uses of what they return are undecided. And the rules' own state.
    opaque_handoffs: dict[Site, str] = field(default_factory=dict)
    fence_state: object = None
    ready_escapes: set[int] = field(default_factory=set)  # allocations handed out ready (not with a timepoint)
    # What the report says about how the function was checked (a dispatch keeping its whole
    # bindings because its executable cannot be read: `verify.bindings`).
    notes: list[str] = field(default_factory=list)
    bindings: BindingContext | None = None  # the executables read for narrowing dispatch bindings
    # Globals (verify.globals, verify.rules.globals): a loaded resource global's storage -> the
    # site at which the timepoint stored with it is reached (its companion, as loaded), and the
    # companion's name; each timepoint global's current timepoint event in this function (its
    # value at entry, or what the function stored); the sites at which storage stored into a
    # global with a timepoint is observed by a later loader; stores of immutable globals.
    global_guards: dict[int, tuple[Site, str]] = field(default_factory=dict)
    global_timepoints: dict[str, int | None] = field(default_factory=dict)
    global_entries: dict[str, Site] = field(default_factory=dict)
    global_stores: list[tuple[Site, Value, str]] = field(default_factory=list)
    global_handoffs: dict[int, list[tuple[Access, str]]] = field(default_factory=dict)
    immutable_stores: list[tuple[Site, str]] = field(default_factory=list)

    @property
    def symbols(self) -> Symbols:
        return self.storage.symbols


@dataclass(slots=True, eq=False)
class _Frame:
    """An open container: a region body being walked."""

    unit: Unit
    site: Site
    parallel: bool
    context: str
    children: list[Site] = field(default_factory=list)
    index: int = 0


class Builder:
    """What the effect rules use to describe an op."""

    def __init__(self, model: FunctionModel) -> None:
        self.model = model
        self.graph = model.graph
        self.storage = model.storage
        self.symbols = model.storage.symbols
        self.level = model.level
        self.frames: list[_Frame] = []
        self.last_host: int | None = None
        # A pure host op using awaited values (stream.dialect.awaits.PURE_HOST_USERS): after the
        # host ops before it, but what follows on the host is not ordered after it, only what
        # uses its results (`dep_events`: the events of such ops the current op depends on).
        self.detached = False
        self.dep_events: frozenset[int] = frozenset()
        self.op_host_events: list[int] = []
        self.top_index = 0
        self._external_signals: dict[Value, list[int]] = {}
        self._external_waits: list[tuple[int, tuple[Value, ...]]] = []
        self._external_sources: dict[Value, int | None] = {}
        # What each private callee's return promises (verify.calls), summarised once per model.
        self.call_summaries: dict[Op, dict[int, tuple[int, frozenset[Op]]] | None] = {}

    # -- placement ----------------------------------------------------------------------------
    @property
    def in_region(self) -> bool:
        return bool(self.frames)

    def device(self, op: Op) -> frozenset[str] | None:
        return self.storage.op_device.get(op)

    @staticmethod
    def lane_of(devices: frozenset[str] | None) -> str:
        return "|".join("@" + d for d in sorted(devices)) if devices else "device"

    def _host_event(self, kind: Ev, unit: Unit, site: Site | None, why: str = "program order") -> int:
        e = self.graph.event(kind, unit.id, site)
        if self.last_host is not None:
            self.graph.edge(self.last_host, e, why)
        for d in self.dep_events:
            self.graph.edge(d, e, "uses the result of a pure op")
        self.op_host_events.append(e)
        if not self.detached:
            self.last_host = e
        return e

    # -- sites --------------------------------------------------------------------------------
    def host(self, op: Op, name: str = "", lane: str = "host") -> Site:
        """A host op: one event on the host lane, after everything the host did before."""
        if self.in_region:
            return self.nested(op, name)
        unit = self.graph.unit("host", lane, name or op.name)
        site = Site(len(self.graph.sites), op, unit.id, (), (), -1, -1, lane, True, (self.top_index,), "host", self.device(op), name or op.name)
        e = self._host_event(Ev.HOST, unit, site)
        site.start = site.end = unit.entry = unit.exit = e
        unit.site = site
        self.graph.sites.append(site)
        return site

    def op_site(self, op: Op, name: str = "") -> Site:
        """An op that does device work: nested in the current region, or (outside any region,
        at the tensor and async levels before scheduling) a synchronous op on the host lane."""
        if self.in_region:
            return self.nested(op, name)
        return self.host(op, name, lane=self.lane_of(self.device(op)))

    def submit(self, op: Op, awaits: tuple[Value, ...], name: str) -> Site:
        """A device op issued by the host: issue on the host lane, start once issued and every
        awaited timepoint is reached, end before its result timepoint is reached."""
        if self.in_region:
            raise DiagnosticError.at(op.location, f"'{op.name}' cannot be nested in a region")
        devices = self.device(op)
        lane = self.lane_of(devices)
        issue_unit = self.graph.unit("host", "host", name)
        issue = self._host_event(Ev.ISSUE, issue_unit, None)
        issue_unit.entry = issue_unit.exit = issue
        unit = self.graph.unit("device", lane, name)
        site = Site(len(self.graph.sites), op, unit.id, (), (), -1, -1, lane, False, (self.top_index,), f"on {lane}", devices, name)
        self.graph.sites.append(site)
        unit.site = site
        issue_unit.site = site
        site.start = unit.entry = self.graph.event(Ev.START, unit.id, site)
        site.end = unit.exit = self.graph.event(Ev.END, unit.id, site)
        self.graph.edge(issue, site.start, f"issue {name}")
        for t in awaits:
            e = self.model.tp_event.get(t)
            if e is not None:
                self.graph.edge(e, site.start, "await")
        self.graph.edge(site.start, site.end, "runs")
        return site

    def nested(self, op: Op, name: str = "") -> Site:
        frame = self.frames[-1]
        parent = frame.site
        path = parent.path + (frame.index,)
        frame.index += 1
        site = Site(
            len(self.graph.sites), op, frame.unit.id, path, parent.parallel + (frame.parallel,), -1, -1,
            parent.lane, False, parent.order + (path[-1],), frame.context, self.device(op), name or op.name.removeprefix("stream."),
        )
        self.graph.sites.append(site)
        site.start = self.graph.event(Ev.START, frame.unit.id, site)
        site.end = self.graph.event(Ev.END, frame.unit.id, site)
        self.graph.edge(site.start, site.end, "runs")
        frame.children.append(site)
        return site

    def open(self, site: Site, parallel: bool, context: str) -> None:
        """Start walking the body of a container `site` (its children become nested sites)."""
        self.frames.append(_Frame(self.graph.units[site.unit], site, parallel, context))

    def close(self) -> None:
        """Order the children of the innermost container: in block order, or all unordered
        between the container's start and end."""
        frame = self.frames.pop()
        g, s = self.graph, frame.site
        if frame.parallel:
            for c in frame.children:
                g.edge(s.start, c.start, "wave start")
                g.edge(c.end, s.end, "wave end")
        else:
            prev = s.start
            for c in frame.children:
                g.edge(prev, c.start, "in order" if prev != s.start else "region start")
                prev = c.end
            g.edge(prev, s.end, "region end")

    def walk(self, ops: tuple[Op, ...]) -> None:
        from verify.rules import apply_rule

        for op in ops:
            apply_rule(self, op)

    # -- timepoints ---------------------------------------------------------------------------
    def timepoint(self, value: Value, event: int | None) -> None:
        self.model.tp_event[value] = event

    def reach(self, name: str, preds: list[tuple[int, str]], op: Op | None = None) -> int:
        """A timepoint reached once all of `preds` happened (its own unit; with `op`, also a
        site, so that obligations can name it)."""
        unit = self.graph.unit("reach", "timeline", name)
        site = None
        if op is not None:
            site = Site(len(self.graph.sites), op, unit.id, (), (), -1, -1, "timeline", False, (self.top_index,), "timeline", None, name)
            self.graph.sites.append(site)
            unit.site = site
        e = self.graph.event(Ev.REACH, unit.id, site)
        unit.entry = unit.exit = e
        if site is not None:
            site.start = site.end = e
        for p, why in preds:
            self.graph.edge(p, e, why)
        return e

    def wait_fence_site(self, fence: Value, op: Op) -> Site:
        """The site at which the wait fence `fence` is signalled by the caller (one per fence,
        shared by all its imports; `op` names it)."""
        site = self.model.fence_sites.get(fence)
        if site is None:
            e = self.reach("wait fence signalled", [], op)
            site = self.graph.site_of[e]
            assert site is not None
            self.model.fence_sites[fence] = site
        return site

    def exit_event(self, site: Site) -> int:
        """The event after which what `site` did is visible outside its unit."""
        return self.graph.units[site.unit].exit

    def external_signal(self, values: tuple[Value, ...], event: int) -> None:
        for v in values:
            self._external_signals.setdefault(v, []).append(event)

    def signalled_values(self) -> set[Value]:
        """The fences a `chain_external` of this program signals."""
        return set(self._external_signals)

    def external_wait(self, event: int, values: tuple[Value, ...]) -> None:
        self._external_waits.append((event, values))

    def external_source(self, value: Value, event: int | None) -> None:
        self._external_sources[value] = event

    def link_externals(self) -> None:
        """A timepoint imported from an external value this function itself signals (through
        `chain_external` or `timepoint.export`) is reached only after that signal."""
        for event, values in self._external_waits:
            for v in values:
                for s in self._external_signals.get(v, ()):
                    self.graph.edge(s, event, "external signal")
                src = self._external_sources.get(v)
                if src is not None:
                    self.graph.edge(src, event, "exported timepoint")

    # -- accesses -----------------------------------------------------------------------------
    def view(self, value: Value) -> View | None:
        return self.storage.view(value)

    def access(
        self, site: Site, value: Value, offset: Expr, length: Expr, mode: int, label: str, transfer: bool = False, tie: bool = False,
        checked: bool = True,
    ) -> Access | None:
        """`site` touches `length` bytes of `value` at `offset`; `checked`: the range must fit in
        the value (a range already known to lie in a checked one needs no check of its own)."""
        view = self.storage.view(value)
        if view is None:
            return None
        a = Access(len(self.model.accesses), site, value, view, offset, length, mode, label, transfer, tie)
        self.model.accesses.append(a)
        if checked:
            self.model.ranges.append(RangeCheck(site, site.op, f"the {label} range", offset, length, view.size, a, value))
        return a

    def range_check(self, site: Site, value: Value, offset: Expr, length: Expr, label: str) -> None:
        """`length` bytes of `value` at `offset` must fit in it (no access of its own)."""
        view = self.storage.view(value)
        if view is not None:
            self.model.ranges.append(RangeCheck(site, site.op, f"the {label} range", offset, length, view.size, None, value))

    def whole(self, site: Site, value: Value, mode: int, label: str, transfer: bool = False, tie: bool = False) -> Access | None:
        view = self.storage.view(value)
        if view is None:
            return None
        a = Access(len(self.model.accesses), site, value, view, ZERO, view.size, mode, label, transfer, tie)
        self.model.accesses.append(a)
        return a

    def use(self, site: Site, value: Value) -> None:
        if self.level in ("async", "tensor") and isinstance(value.type, ResourceType):
            self.model.uses.append(Use(site, value))

    def produce(self, site: Site, values: tuple[Value, ...]) -> None:
        for v in values:
            if isinstance(v.type, ResourceType):
                self.model.ready[v] = site

    def escape(self, site: Site, value: Value, handed: bool = False) -> None:
        """`value`'s storage leaves the function at `site` (ready, unless `handed` over with a
        timepoint by a private function)."""
        view = self.storage.view(value)
        if view is not None:
            self.model.escapes.setdefault(view.alloc.id, site)
            if not handed:
                self.model.ready_escapes.add(view.alloc.id)


def _order_after_awaits(b: Builder, op: Op, after: frozenset[Value], gates: Gates, sites: list[Site]) -> None:
    """`stream.timepoint.await` is pure (`stream.dialect.awaits`): an op using a value that
    carries awaited timepoints starts after them (a host op with effects: so does all that
    follows it on the host; a pure host op or a submission: only itself). A barrier's timepoint covers what its resource
    carries."""
    events = [e for e in (b.model.tp_event.get(t) for t in after) if e is not None]
    for site in sites:
        if site.path == ():
            for e in events:
                b.graph.edge(e, site.start, "awaited value used")
    if op.name == "stream.timepoint.barrier":
        reach = b.model.tp_event.get(op.results[-1])
        for t in gates.barrier_carried(op):
            covered = b.model.tp_event.get(t)
            if covered is not None and reach is not None:
                b.graph.edge(covered, reach, "barrier of an awaited value")


def build_model(func: Function, module: Module | None = None) -> FunctionModel:
    """The model of one function (`DiagnosticError` for functions it cannot reason about:
    control flow is refused by `analyze_storage`)."""
    storage = analyze_storage(func, module)
    # A function of host ops only (imports, exports, calls, awaits, loads) is still checked when
    # it handles resources: by the async-level rules, whose readiness is the strictest.
    level = function_level(func.op) or ("async" if _handles_resources(func) else "host")
    model = FunctionModel(func, module, level, storage)
    model.bindings = BindingContext(module, func.op)
    # Decided for the whole function, not the path being checked: a loop iteration or a branch
    # without the `chain_external` still belongs to a function that signals its fence.
    signalled = signalled_fences(func)
    model.async_abi = bool(signalled)
    model.wait_fences = wait_fences(func)
    b = Builder(model)
    from verify.rules import apply_rule
    from verify.rules.fence_ops import record_fence_uses

    for i, j in handed_in_pairs(func).items():
        x, t = func.arguments[i], func.arguments[j]
        e = b.reach(f"the caller's timepoint {_named(t)} handed in with {_named(x)}", [], func.op)
        b.timepoint(t, e)
        view = storage.view(x)
        site = b.graph.site_of[e]
        if view is not None and site is not None:
            model.arg_guards.setdefault(view.alloc.id, site)
    gates = Gates()
    # SSA order: the host events of detached pure ops a value depends on (through ops that make
    # no host event of their own, such as arith); an op using it comes after them.
    deps: dict[Value, frozenset[int]] = {}
    for i, op in enumerate(func.body.ops):
        b.top_index = i
        first = len(b.graph.sites)
        after = gates.step(op)
        mine: frozenset[int] = (frozenset().union(*(deps.get(v, frozenset()) for inner in op.walk() for v in inner.operands))
                                if deps else frozenset())  # most functions have no detached pure op: skip the walk
        b.detached = bool(after) and op.name in PURE_HOST_USERS
        b.dep_events, b.op_host_events = mine, []
        apply_rule(b, op)
        if b.detached:
            out = frozenset(b.op_host_events) or mine
        else:
            out = mine if not b.op_host_events else frozenset()  # on the host lane: program order carries it
        if out:
            for r in op.results:
                deps[r] = out
        b.detached, b.dep_events = False, frozenset()
        _order_after_awaits(b, op, after, gates, b.graph.sites[first:])
        if model.fence_state is not None:
            record_fence_uses(b, op, first)
    for fence in model.wait_fences:  # declared (coarse-fences) but never imported: never waited on
        b.wait_fence_site(fence, func.op)
    if model.global_stores:
        from verify.rules.globals import finish_stores

        finish_stores(b)
    _signalled_later(b, signalled)
    b.link_externals()
    return model


def _signalled_later(b: Builder, fences: set[Value]) -> None:
    """A fence the function signals, but not on this program (a loop iteration ending at its back
    edge, or a path of it), is signalled, if ever, by a `chain_external` the host issues after
    every host op here: so it is reached only after them. Without this, a host wait in a loop
    body on the function's own signal fence, signalled after the loop, looked satisfiable (the
    fence seemed to be the caller's) and a deadlock was proved. Only true orderings are added."""
    pending = [f for f in fences if f not in b.signalled_values()]
    if not pending:
        return
    site = b.host(b.model.func.op, "the rest of the function")
    reach = b.reach("external fence signalled after this program", [(site.start, "issued after every host op here")], b.model.func.op)
    b.external_signal(tuple(sorted(pending, key=id)), reach)


def _handles_resources(func: Function) -> bool:
    return any(isinstance(v.type, ResourceType) for op in func.op.walk() for v in (*op.operands, *op.results))


def _named(v: Value) -> str:
    return f"%{v.name_hint}" if v.name_hint else "an argument"

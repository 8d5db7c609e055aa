"""The event graph of one function: events, happens-before edges and the sites they belong to.

Events (SPEC §3.1): a host op is one event on the host lane, in program order; a device op
(execute region, alloca, dealloca, constants upload) has an *issue* event on the host lane and
*start*/*end* events on its device; every op inside a region has *start*/*end* events; a
timepoint that no op's end defines (a join, an import, a chained fence) has a *reach* event.
Edges are the facts of SPEC §3.1, each with the reason it exists (for explanations).

Events are grouped in *units*: a host op or an issue (one event), a device op with everything
nested in it (entry = its start, exit = its end), or a reach event. The graph is built so that
edges between different units always leave a unit by its exit and enter a unit by its entry;
`verify.hb` relies on this (and checks it) to decide happens-before exactly from a small
unit-level graph plus the region structure.

A *site* is an op instance that can be ordered: it has a start and an end event (the same
event for host sites), the unit it belongs to, and its position in the region structure.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from stream.ir.core import Op

__all__ = ["Ev", "Site", "Unit", "EventGraph"]


class Ev(enum.IntEnum):
    HOST = 0  # a host op
    ISSUE = 1  # the host submits a device op
    START = 2
    END = 3
    REACH = 4  # a timepoint is reached


@dataclass(slots=True, eq=False)
class Site:
    """An op instance that accesses storage or takes part in ordering.

    `path` is the op's position in each enclosing container of its unit (empty for the unit's
    own op) and `parallel[i]` says whether the container at depth i runs its children
    unordered (`cmd.concurrent`, `async.concurrent`) or in order (execute bodies,
    `cmd.serial`). `order` sorts sites in program order.
    """

    id: int
    op: Op
    unit: int
    path: tuple[int, ...]
    parallel: tuple[bool, ...]
    start: int
    end: int
    lane: str
    host: bool
    order: tuple[int, ...]
    context: str
    device: frozenset[str] | None = None
    name: str = ""  # how witnesses name it: "dispatch @mm1", "execute #1", "await", ...


@dataclass(slots=True, eq=False)
class Unit:
    id: int
    kind: str  # host | device | reach
    entry: int
    exit: int
    lane: str
    site: Site | None = None
    name: str = ""  # what the unit is, for witnesses ("execute #1", "await", ...)


@dataclass(slots=True, eq=False)
class EventGraph:
    kinds: list[int] = field(default_factory=list)
    unit_of: list[int] = field(default_factory=list)
    site_of: list[Site | None] = field(default_factory=list)
    src: list[int] = field(default_factory=list)
    dst: list[int] = field(default_factory=list)
    why: list[str] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    sites: list[Site] = field(default_factory=list)
    _preds: list[list[int]] | None = None

    def __len__(self) -> int:
        return len(self.kinds)

    def event(self, kind: Ev, unit: int, site: Site | None = None) -> int:
        self.kinds.append(int(kind))
        self.unit_of.append(unit)
        self.site_of.append(site)
        self._preds = None
        return len(self.kinds) - 1

    def edge(self, u: int, v: int, why: str) -> None:
        self.src.append(u)
        self.dst.append(v)
        self.why.append(why)
        self._preds = None

    def unit(self, kind: str, lane: str, name: str = "") -> Unit:
        unit = Unit(len(self.units), kind, -1, -1, lane, None, name)
        self.units.append(unit)
        return unit

    def preds(self) -> list[list[int]]:
        """Edge indices into each event (computed once)."""
        if self._preds is None:
            preds: list[list[int]] = [[] for _ in self.kinds]
            for i, v in enumerate(self.dst):
                preds[v].append(i)
            self._preds = preds
        return self._preds

    def ancestors(self, targets: list[int]) -> set[int]:
        """Every event with a path to one of `targets`, and the targets themselves."""
        preds = self.preds()
        seen = set(targets)
        stack = list(targets)
        src = self.src
        while stack:
            v = stack.pop()
            for e in preds[v]:
                u = src[e]
                if u not in seen:
                    seen.add(u)
                    stack.append(u)
        return seen

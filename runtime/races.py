"""Dynamic race and lifetime checking with vector clocks (`--check-races`).

Happens-before is built exactly as SPEC section 3.1 defines it, not from the timing of a run:

* the host is one logical thread (component 0); its clock ticks at every submission, host wait,
  host access and host signal;
* each submission is a logical thread of its own (a fresh component). Its start clock joins the
  host clock at issue and, for each (semaphore, value) it waits on, the clock of the signal that
  reached that value (IREE's "late waiter" frontier rule); two submissions on one queue are
  therefore unordered unless a semaphore orders them;
* inside a command buffer, top-level commands and `cmd.serial` children tick the submission's
  component in order; each child of a `cmd.concurrent` section is a fresh component forked from the
  section's start, and the section's end joins them all - so children are mutually unordered;
* `stream.timepoint.await` is a pure op (`stream.dialect.awaits`): only an await marked `sync`
  joins the clocks of the signals it waited for into the host clock. A plain await's results
  carry its timepoint: the first host op with effects using one (or a value derived from it)
  joins those clocks then; a pure host op using one (an export) accesses memory in host program
  order with those clocks joined, leaving the host clock alone (`detach`); and a timeline op
  using one (an execute, alloca, dealloca) waits on them itself, without ordering the host (IREE's
  ChainDependentAwaits). The executor's host still blocks at
  every await; the detector does not credit that to ops that do not use the awaited values.

Control flow changes none of this: the host runs a loop body or a branch op by op
(`runtime.control_flow`), each run of an op is an access of its own (a fresh submission, a fresh
host site), and what a block argument, an iter_arg or a region result carries is what the value
bound to it carries (`runtime.gates`). So an iteration that does not await the timepoint carried
from the previous one is reported the first time a second iteration runs (the note names the two
submissions of the one op), and a loop that runs once, or not at all, reports nothing.

Shadow state keeps, per allocation, the accesses seen so far as (byte range, read/write, epoch).
Each new access is checked against every overlapping earlier one: unless the earlier epoch is
covered by the new access's clock, the pair is unordered, and a finding names both accesses and
the bytes. Because the clocks come from the program's structure, the verdict does not depend on
the schedule the driver happened to pick: every unordered conflicting pair among the accesses a
run performs is reported, under any driver (FastTrack-style; an earlier access fully covered by a
later write that is ordered after it is dropped, which loses no race: anything unordered with the
dropped access and conflicting with it is either unordered with the covering write too, or
ordered after that write and hence after the dropped access).

Classes (SPEC section 3.3), the pair ordered by issue order (so classification does not depend
on timing either), as the verifier names them: an earlier write and a later read (an `rw` binding
reads too) is MISSED_WAIT when the reader is the host or another submission (it should have
waited on the writer's timepoint), RACE_READ_AFTER_WRITE inside one submission; an earlier
read-only access and a later write is RACE_WRITE_AFTER_READ; two writes otherwise
RACE_WRITE_AFTER_WRITE. Also USE_BEFORE_ALLOC (an access not ordered after the alloca that gives
the storage), USE_AFTER_FREE (an access not ordered before the dealloca, or after the storage is
gone), MISSED_WAIT on an input (coarse-fences ABI, `stream.dialect.abi`: an access to an
import or a resource argument not ordered after the caller's wait fence; the import of that
fence is a barrier submission whose component everything awaiting it inherits), DOUBLE_FREE, BORROWED_INPUT_MUTATED (a write to an import without `consume` or to a
constant), AFFINITY_MISMATCH (a dispatch or fill on one device binding storage placed on another;
copies, flushes, invalidates and discards are the transfers that may cross devices), MISSED_WAIT
at completion (a device access to caller-visible storage not finished when the caller may look:
at the return, or at the fences the async ABI signals) and LEAK (a queue-ordered allocation never
freed; a warning). The last `stream.resource.release` of an allocation the function owns frees it,
as a dealloca does.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from typing import Any

from runtime.memory import Allocation
from runtime.semaphore import Fence

__all__ = ["RaceDetector", "Finding", "AccessSite"]

HOST = 0


@dataclass(slots=True)
class AccessSite:
    """Who accesses memory: a command (or host op) with its description and position.
    `comp`/`local` are its vector-clock component and the clock local to its submission (None
    for the host); `seq` orders sites by issue (submission index, command index)."""

    describe: str
    location: str
    comp: int
    local: dict[int, float] | None
    seq: tuple[int, int]
    submission: int  # 0 for the host
    host: bool = False


@dataclass(frozen=True, slots=True)
class _Access:
    lo: int
    hi: int
    write: bool
    comp: int
    clock: float
    site: AccessSite
    read: bool = True


@dataclass(frozen=True, slots=True)
class Finding:
    """One dynamic violation. `severity` is "error" or "warning" (LEAK)."""

    kind: str
    allocation: str
    lo: int
    hi: int
    first: str
    second: str
    location: str
    first_role: str = ""
    second_role: str = ""
    severity: str = "error"
    note: str = ""

    def __str__(self) -> str:
        head = f"{self.location}: {self.severity}: {self.kind} on {self.allocation}"
        if self.hi > self.lo:
            head += f" bytes [{self.lo}, {self.hi})"
        lines = [head]
        width = max(len(self.first_role), len(self.second_role)) + 1
        if self.first:
            lines.append(f"  {(self.first_role + ':').ljust(width)} {self.first}")
        if self.second:
            lines.append(f"  {(self.second_role + ':').ljust(width)} {self.second}")
        if self.note:
            lines.append(f"  {self.note}")
        return "\n".join(lines)


@dataclass
class _AllocState:
    accesses: list[_Access] = field(default_factory=list)
    ready_comp: int | None = None  # the alloca's component: accesses must be ordered after it
    freed_site: AccessSite | None = None
    freed_clock: dict[int, float] | None = None
    deallocas: int = 0


class RaceDetector:
    """Vector-clock race and lifetime detector; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._comps = itertools.count(1)
        self.host_clock: dict[int, float] = {HOST: 1}
        self._allocs: dict[int, _AllocState] = {}
        self.findings: list[Finding] = []
        self._seen: set[tuple[Any, ...]] = set()
        self._seq = itertools.count(1)
        self._detached: dict[int, float] | None = None  # a pure host op's clock: see detach
        # Coarse-fences ABI: one component per wait fence, reached only by the barrier its import
        # submits; an access to an input ("import" storage) must be ordered after each of them.
        self.input_guards: dict[Any, int] = {}

    def input_guard(self, key: Any) -> int:
        """The component standing for the caller's wait fence `key` (created on first use)."""
        with self._lock:
            comp = self.input_guards.get(key)
            if comp is None:
                comp = self.input_guards[key] = self.new_component()
            return comp

    # -- clocks --------------------------------------------------------------------------------
    def new_component(self) -> int:
        return next(self._comps)

    def next_seq(self) -> int:
        return next(self._seq)

    def _host_tick(self) -> None:
        self.host_clock[HOST] += 1

    def on_issue(self, sub: Any) -> None:
        """A submission is issued by the host: it is ordered after everything the host did."""
        with self._lock:
            sub.issue_clock = dict(self.host_clock)
            if not sub.component:
                sub.component = self.new_component()
            self._host_tick()

    def on_ready(self, sub: Any) -> None:
        """All waits reached: join the clocks of the signals that reached them."""
        vc = dict(sub.issue_clock or {})
        for sem, value in sub.waits.points:
            record = sem.signal_for(value)
            if record is not None and record[1] is not None:
                _join(vc, record[1])
        sub.start_clock = vc

    def end_clock(self, sub: Any) -> dict[int, float]:
        """The clock a submission's signals carry: its start joined with its final local clock."""
        vc = dict(sub.start_clock or sub.issue_clock or {})
        final = sub.final_local
        if final:
            _join(vc, final)
        vc[sub.component] = max(vc.get(sub.component, 0), 1)
        return vc

    def host_signal_clock(self) -> dict[int, float]:
        with self._lock:
            clock = dict(self.host_clock)
            self._host_tick()
            return clock

    def host_await(self, fence: Fence) -> None:
        with self._lock:
            for sem, value in fence.points:
                record = sem.signal_for(value)
                if record is not None and record[1] is not None:
                    _join(self.host_clock, record[1])
            self._host_tick()

    def detach(self, fence: Fence) -> None:
        """Until `reattach`, host accesses are those of a pure host op using awaited values
        (stream.dialect.awaits.PURE_HOST_USERS): at their place in host program order, ordered
        after the signals that reached `fence` too, but without joining those into the host
        clock: a later host op is ordered after the awaited work only if it uses the op's results
        (which carry the timepoints on, stream.dialect.awaits.Gates) or awaits it itself."""
        with self._lock:
            clock: dict[int, float] = {}
            for sem, value in fence.points:
                record = sem.signal_for(value)
                if record is not None and record[1] is not None:
                    _join(clock, record[1])
            self._detached = clock

    def reattach(self) -> None:
        self._detached = None

    def host_site(self, describe: str, location: str) -> AccessSite:
        with self._lock:
            self._host_tick()
            return AccessSite(describe, location, HOST, None, (next(self._seq), 0), 0, host=True)

    # -- memory events ---------------------------------------------------------------------------
    def _state(self, alloc: Allocation) -> _AllocState:
        st = self._allocs.get(alloc.id)
        if st is None:
            st = self._allocs[alloc.id] = _AllocState()
        return st

    def on_alloca(self, alloc: Allocation, sub: Any) -> None:
        """A queue-ordered allocation: accesses must be ordered after this submission."""
        with self._lock:
            self._state(alloc).ready_comp = sub.component

    def _covered(self, comp: int, clock: float, start: dict[int, float], local: dict[int, float] | None) -> bool:
        have = start.get(comp, 0)
        if local is not None:
            have = max(have, local.get(comp, 0))
        return clock <= have

    def access(self, alloc: Allocation, lo: int, hi: int, write: bool, site: AccessSite, start: dict[int, float] | None,
               read: bool | None = None) -> None:
        """Check and record one access by `site` whose submission started with clock `start`
        (the host clock for host sites). `read` defaults to `not write`; an `rw` binding is both."""
        reads = not write if read is None else read
        if hi <= lo:
            return
        with self._lock:
            st = self._state(alloc)
            if site.host:
                clock_start = self.host_clock
                if self._detached is not None:  # the host so far and the awaited signals
                    clock_start = dict(self.host_clock)
                    _join(clock_start, self._detached)
            else:
                clock_start = start or {}
            own = site.local.get(site.comp, 0) if site.local is not None else clock_start.get(site.comp, 0)
            if write and (alloc.kind == "constant" or (alloc.kind == "import" and not alloc.consumed)):
                what = "a constant" if alloc.kind == "constant" else "an input imported without `consume` (borrowed)"
                self._report("BORROWED_INPUT_MUTATED", alloc, lo, hi, "", site.describe, site.location,
                             "", "write", note=f"{alloc.label} is {what}; the program must not write it", key=(alloc.id,))
            if st.ready_comp is not None and not self._covered(st.ready_comp, 1, clock_start, site.local):
                self._report("USE_BEFORE_ALLOC", alloc, lo, hi, "", site.describe, site.location, "", "access",
                             note=f"not ordered after the alloca of {alloc.label}: its timepoint was not awaited", key=(alloc.id, site.seq))
            if alloc.kind == "import":
                for comp in self.input_guards.values():
                    if not self._covered(comp, 1, clock_start, site.local):
                        self._report("MISSED_WAIT", alloc, lo, hi, "", site.describe, site.location, "wait fence", "access",
                                     note=f"not ordered after the wait fence that guards {alloc.label} (the caller may still "
                                     "be writing it)", key=(alloc.id, site.seq, "wait fence"))
            if st.freed_site is not None:
                self._report("USE_AFTER_FREE", alloc, lo, hi, st.freed_site.describe, site.describe, site.location,
                             "dealloca", "access", note="the access ran after the storage was freed", key=(alloc.id, site.seq))
            kept: list[_Access] = []
            for a in st.accesses:
                overlap = a.lo < hi and lo < a.hi
                if overlap and (write or a.write) and a.site.seq != site.seq:
                    if not self._covered(a.comp, a.clock, clock_start, site.local):
                        self._race(alloc, a, _Access(lo, hi, write, site.comp, own, site, reads))
                    elif write and lo <= a.lo and a.hi <= hi:
                        continue  # ordered before this covering write: drop (see module docstring)
                kept.append(a)
            kept.append(_Access(lo, hi, write, site.comp, own, site, reads))
            st.accesses = kept

    def _race(self, alloc: Allocation, a: _Access, b: _Access) -> None:
        first, second = (a, b) if a.site.seq <= b.site.seq else (b, a)
        if first.write and second.read:
            cross = second.site.host or first.site.host or first.site.submission != second.site.submission
            kind, roles = ("MISSED_WAIT" if cross else "RACE_READ_AFTER_WRITE"), ("write", "read")
        elif not first.write:
            kind, roles = "RACE_WRITE_AFTER_READ", ("read", "write")
        else:
            kind, roles = "RACE_WRITE_AFTER_WRITE", ("write", "write")
        lo, hi = max(a.lo, b.lo), min(a.hi, b.hi)
        note = "the two accesses are not ordered by any timepoint, wait or serial order"
        if (first.site.describe, first.site.location) == (second.site.describe, second.site.location) \
                and first.site.submission != second.site.submission:
            # A loop (or a function called twice) ran the op again: say so, the two sides read the same.
            note += (f"; both are this op, run by two submissions (#{first.site.submission} and #{second.site.submission}): "
                     "another run of its block, such as the previous iteration of a loop, is not awaited")
        self._report(kind, alloc, lo, hi, first.site.describe, second.site.describe, second.site.location, *roles,
                     note=note, key=(alloc.id, first.site.seq, second.site.seq))

    def on_dealloca(self, alloc: Allocation, site: AccessSite, start: dict[int, float] | None) -> None:
        """A dealloca starts: every access so far must be ordered before it."""
        with self._lock:
            st = self._state(alloc)
            clock_start = start or {}
            for a in st.accesses:
                if not self._covered(a.comp, a.clock, clock_start, site.local):
                    self._report("USE_AFTER_FREE", alloc, a.lo, a.hi, a.site.describe, site.describe, site.location,
                                 "access", "dealloca", note="the access is not ordered before the dealloca",
                                 key=(alloc.id, a.site.seq, "free"))
            st.freed_site = site
            st.freed_clock = dict(clock_start)
            st.accesses = []

    def on_release_free(self, alloc: Allocation, site: AccessSite) -> None:
        """The host drops the last claim on an owned allocation (`stream.resource.release`), which
        may free it at once: every access so far must be ordered before, by the host's waits, and
        none may follow (SPEC section 3.3: a host access after a release is USE_AFTER_FREE)."""
        with self._lock:
            st = self._state(alloc)
            for a in st.accesses:
                if not self._covered(a.comp, a.clock, self.host_clock, None):
                    self._report("USE_AFTER_FREE", alloc, a.lo, a.hi, a.site.describe, site.describe, site.location,
                                 "access", "release", note="the access is not ordered before the release that drops the "
                                 "last claim on the resource", key=(alloc.id, a.site.seq, "release"))
            st.freed_site = site
            st.freed_clock = dict(self.host_clock)
            st.accesses = []

    def affinity(self, alloc: Allocation, lo: int, hi: int, site: AccessSite, devices: frozenset[str]) -> None:
        """A dispatch or fill on `devices` touches storage that lives elsewhere (no transfer)."""
        with self._lock:
            where = "|".join("@" + d for d in sorted(alloc.placement or ()))
            self._report("AFFINITY_MISMATCH", alloc, lo, hi, "", site.describe, site.location, "", "access",
                         note=f"runs on {'|'.join('@' + d for d in sorted(devices))} but the resource lives on {where}",
                         key=(alloc.id, site.seq, "affinity"))

    def completion(self, allocations: list[Allocation], observers: list[dict[int, float]], describe: str,
                   location: str) -> None:
        """The caller may observe `allocations` (its own storage, and what it got back) once one
        of the `observers` clocks is reached (the host at the return, with the synchronous ABI; the
        signalled fences, with the async ABI): every device access to them must be ordered before
        one of those clocks. Checked after the run drained, so that every access was recorded;
        the clocks, taken from the program's structure, make that timing irrelevant."""
        with self._lock:
            for alloc in allocations:
                st = self._allocs.get(alloc.id)
                for a in st.accesses if st is not None else ():
                    if a.site.host or any(self._covered(a.comp, a.clock, o, None) for o in observers):
                        continue
                    self._report("MISSED_WAIT", alloc, a.lo, a.hi, a.site.describe, describe, location,
                                 "write" if a.write else "read", "caller",
                                 note="the access is not finished when the caller may observe the memory",
                                 key=(alloc.id, a.site.seq, "completion"))

    def double_free(self, alloc: Allocation, site: AccessSite, why: str) -> None:
        with self._lock:
            self._report("DOUBLE_FREE", alloc, 0, 0, "", site.describe, site.location, "", "dealloca", note=why,
                         key=(alloc.id, site.seq))

    def leak(self, alloc: Allocation, where: str) -> None:
        with self._lock:
            self._report("LEAK", alloc, 0, 0, "", "", where, severity="warning",
                         note=f"{alloc.label} ({alloc.size} bytes, {alloc.lifetime or 'transient'}) is never deallocated",
                         key=(alloc.id,))

    def static_overlap(self, kind: str, alloc: Allocation, lo: int, hi: int, site: AccessSite, note: str) -> None:
        """A conflict inside one command (a dispatch binding bytes both ro and wo, an overlapping copy)."""
        with self._lock:
            self._report(kind, alloc, lo, hi, site.describe, site.describe, site.location, "op", "op", note=note,
                         key=(alloc.id, site.seq, "self"))

    def _report(self, kind: str, alloc: Allocation, lo: int, hi: int, first: str, second: str, location: str,
                first_role: str = "", second_role: str = "", *, note: str = "", severity: str = "error",
                key: tuple[Any, ...] = ()) -> None:
        full = (kind, *key)
        if full in self._seen:
            return
        self._seen.add(full)
        self.findings.append(Finding(kind, alloc.label, lo, hi, first, second, location, first_role, second_role, severity, note))


def _join(into: dict[int, float], other: dict[int, float]) -> None:
    for k, v in other.items():
        if v > into.get(k, 0):
            into[k] = v

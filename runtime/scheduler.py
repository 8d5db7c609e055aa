"""Queue submissions, their readiness, completion and failure, and deadlock analysis.

Every device-side operation is a `Submission` of IREE's shape `(device, queue, wait fence, signal
list, payload)` (`iree/hal/device.h`). The `Scheduler` holds what is common to all drivers:

* a submission becomes ready when every (semaphore, value) it waits on is reached, in whatever order
  that happens: there is no implicit FIFO between submissions on one queue, only semaphores order
  them (SPEC section 3.1 rule 6);
* on success its signal semaphores advance to their values; on failure (a kernel raised, a memory
  fault), or when something it waits on failed, every signal semaphore fails with that status, so
  a failure reaches everything downstream and finally the host wait that observes it;
* when nothing is ready or running and some wait is still unmet, `deadlock()` explains it: which
  submission waits on which value, and whether that is a cycle or a value nobody will signal.

Drivers (`runtime.drivers`) decide where and when ready submissions run. All scheduler state,
and the semaphores it creates, share one lock, so signals, readiness and quiescence are atomic.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from runtime.memory import MemoryFault
from runtime.semaphore import Fence, TimelineSemaphore
from runtime.status import BlockedWait, DeadlockError, ExecutionError, HalError, Status, StatusCode

__all__ = ["Submission", "Scheduler", "WorkFailure", "WorkContext"]

_ids = itertools.count(1)


class WorkFailure(Exception):
    """Raised by a payload to fail its submission with a given status."""

    def __init__(self, status: Status) -> None:
        super().__init__(str(status))
        self.status = status


@dataclass(eq=False, slots=True)
class Submission:
    """One queue operation. `work(ctx)` is its payload (None for a barrier); `label` names it in
    messages and traces ("execute on @dev0 at prog.mlir:12:5"). `memory` is the bytes an alloca
    must reserve from its device's pool before it can run."""

    kind: str
    device: str
    queue: int
    waits: Fence
    signals: tuple[tuple[TimelineSemaphore, int], ...]
    work: Callable[[WorkContext], None] | None
    label: str
    memory: int = 0
    state: str = "new"  # new | pending | ready | parked | running | done | failed
    unmet: int = 0
    failure: Status | None = None
    issue_clock: dict[int, float] | None = None
    start_clock: dict[int, float] | None = None
    component: int = 0  # this submission's vector-clock component (race detection)
    id: int = field(default_factory=lambda: next(_ids))
    anchor: Any = None  # where its trace slice is, for flow arrows from its signals (runtime.trace.Anchor)
    final_local: dict[int, float] | None = None  # its command buffer's clock at the end (race detection)

    def __repr__(self) -> str:
        return f"<Submission #{self.id} {self.label} {self.state}>"


@dataclass(slots=True)
class WorkContext:
    """What a payload gets: where it runs (for traces), how to run concurrent children, and the
    driver's random source (chaos)."""

    scheduler: Scheduler
    submission: Submission
    lane: str
    run_concurrent: Callable[..., None]  # (children, ctx, cost_in_bytes) -> None

    def child(self, lane: str) -> WorkContext:
        return WorkContext(self.scheduler, self.submission, lane, self.run_concurrent)


class Scheduler:
    """Readiness, completion and failure of submissions; subclassed by each driver."""

    name = "base"

    def __init__(self, *, tracer: Any = None, races: Any = None, pools: dict[str, Any] | None = None) -> None:
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.tracer = tracer
        self.races = races
        self.pools = pools if pools is not None else {}
        self.pending: set[Submission] = set()
        self.parked: list[Submission] = []  # allocas waiting for pool memory
        self.inflight = 0  # ready + running
        self.failures: list[Status] = []  # distinct failures (a propagated failure is the same object)
        self.observed: set[int] = set()  # ids of failures a host wait has reported
        self.all_submissions = 0
        self.closed = False
        # Whether threads other than the (blocked) host may signal external semaphores; when
        # False, a host wait at quiescence is a deadlock even if an external semaphore is involved.
        self.other_threads_signal = False
        # Fill fresh and discarded storage with POISON bytes (see runtime.memory).
        self.poison = True

    # -- semaphores ------------------------------------------------------------------------------
    def create_semaphore(self, initial: int = 0, name: str = "", external: bool = True) -> TimelineSemaphore:
        """A semaphore bound to this scheduler (as IREE creates semaphores from a device).
        `external=True` for ones the host or another thread may signal."""
        return TimelineSemaphore(initial, name, lock=self.lock, external=external, cond=self.changed)

    def _check_owned(self, sem: TimelineSemaphore) -> None:
        if sem._lock is not self.lock:
            raise HalError(Status(StatusCode.INVALID_ARGUMENT, f"{sem.name} was not created by this driver (use create_semaphore)"))

    def host_signal(self, sem: TimelineSemaphore, value: int) -> None:
        """Signal from the host (iree_hal_semaphore_signal)."""
        self._check_owned(sem)
        with self.lock:
            clock = self.races.host_signal_clock() if self.races is not None else None
            sem.signal(value, clock)

    # -- submission ------------------------------------------------------------------------------
    def submit(self, sub: Submission) -> None:
        """Enqueue a submission; it runs once its waits are reached."""
        if self.closed:
            raise HalError(Status(StatusCode.FAILED_PRECONDITION, "the driver was shut down"))
        lock = self.lock
        with lock:
            for sem, _ in sub.waits.points:
                if sem._lock is not lock:
                    self._check_owned(sem)
            for sem, _ in sub.signals:
                if sem._lock is not lock:
                    self._check_owned(sem)
            self.all_submissions += 1
            failed = sub.waits.failure()
            unmet = sub.waits.unmet() if failed is None else []
            if unmet:
                self._blocked_at_submit(sub, unmet)
            for sem, _ in sub.signals:
                sem.producers.append(sub)
            if self.races is not None:
                self.races.on_issue(sub)
            if failed is not None:
                self._finish(sub, failed)
                return
            sub.unmet = len(unmet)
            if not unmet:
                self._become_ready(sub)
                return
            sub.state = "pending"
            self.pending.add(sub)
            for sem, value in unmet:
                sem.on_reached(value, lambda status: self._wait_done(sub, status))

    def _blocked_at_submit(self, sub: Submission, unmet: list[tuple[TimelineSemaphore, int]]) -> None:
        """Hook: the sync driver cannot wait and reports a deadlock here."""

    def _wait_done(self, sub: Submission, status: Status | None) -> None:
        if sub.state != "pending":
            return
        if status is not None:
            self.pending.discard(sub)
            self._finish(sub, status)
            return
        sub.unmet -= 1
        if sub.unmet == 0:
            self.pending.discard(sub)
            self._become_ready(sub)

    def _become_ready(self, sub: Submission) -> None:
        if self.races is not None:
            self.races.on_ready(sub)
        if sub.memory and not self.pools[sub.device].reserve(sub.memory):
            sub.state = "parked"
            self.parked.append(sub)
            return
        sub.state = "ready"
        self.inflight += 1
        self._enqueue(sub)

    def _enqueue(self, sub: Submission) -> None:  # pragma: no cover - every driver overrides
        raise NotImplementedError

    # -- running ---------------------------------------------------------------------------------
    def execute(self, sub: Submission, ctx: WorkContext) -> Status | None:
        """Run a payload outside the lock (traced when a tracer is set)."""
        tracer = self.tracer
        if tracer is None:
            return self._run_payload(sub, ctx)
        from runtime.trace import Anchor

        track = tracer.track(sub.device, ctx.lane)
        start = tracer.now()
        for sem, value in sub.waits.points:
            record = sem.signal_for(value)
            if record is not None and record[2] is not None:
                tracer.flow(record[2], track, start)
        status = self._run_payload(sub, ctx)
        end = tracer.now()
        args = {"submission": sub.label, "waits": [f"{s.name}>={v}" for s, v in sub.waits.points],
                "signals": [f"{s.name}={v}" for s, v in sub.signals]}
        if status is not None:
            args["failed"] = str(status)
        tracer.slice(track, sub.kind, start, end, cat="submission", args=args)
        sub.anchor = Anchor(track[0], track[1], round(max(start, end - 0.001), 3))
        return status

    def _run_payload(self, sub: Submission, ctx: WorkContext) -> Status | None:
        """Run a payload; turn what it raises into a Status."""
        if sub.work is None:
            return None
        try:
            sub.work(ctx)
        except WorkFailure as e:
            return e.status
        except MemoryFault as e:
            return Status(StatusCode.DATA_LOSS, str(e), sub.label, e)
        except Exception as e:  # a bug in a payload: fail the submission, never the worker thread
            return Status(StatusCode.INTERNAL, f"{type(e).__name__}: {e}", sub.label, e)
        return None

    def complete(self, sub: Submission, status: Status | None) -> None:
        """Record the outcome of a run submission (lock taken here)."""
        with self.lock:
            self.inflight -= 1
            self._finish(sub, status)  # notifies the host and drain

    def _finish(self, sub: Submission, status: Status | None) -> None:
        for sem, _ in sub.signals:
            try:
                sem.producers.remove(sub)
            except ValueError:
                pass
        if status is None:
            sub.state = "done"
            clock = self.races.end_clock(sub) if self.races is not None else None
            anchor = sub.anchor
            for sem, value in sub.signals:
                sem.signal(value, clock, anchor)
        else:
            sub.state = "failed"
            sub.failure = status
            if all(f is not status for f in self.failures):
                self.failures.append(status)
            for sem, _ in sub.signals:
                sem.fail(status)
        self.changed.notify_all()

    def retry_parked(self) -> None:
        """After memory was freed: let parked allocas that now fit run (lock held by caller)."""
        still: list[Submission] = []
        for sub in self.parked:
            if self.pools[sub.device].reserve(sub.memory):
                sub.state = "ready"
                self.inflight += 1
                self._enqueue(sub)
            else:
                still.append(sub)
        self.parked = still

    # -- the host side -----------------------------------------------------------------------------
    def host_wait(self, fence: Fence, what: str) -> None:
        """Block the host until `fence` is reached. Raises ExecutionError when it failed and
        DeadlockError when it never can be reached."""
        with self.lock:
            while True:
                failure = fence.failure()
                if failure is not None:
                    self._observed(failure)
                    raise ExecutionError(failure, what)
                if fence.reached():
                    return
                if self.quiescent() and not self._external_may_signal(fence):
                    raise self.deadlock(f"deadlock: {what} can never complete", fence, what)
                self.changed.wait(self._wait_slice())

    def _wait_slice(self) -> float | None:
        return None

    def _external_may_signal(self, fence: Fence) -> bool:
        """Whether another thread may still signal something this wait (transitively) needs."""
        if not self.other_threads_signal:
            return False
        return any(sem.external and not sem.producers for sem, _ in fence.unmet()) or self._any_external_pending()

    def quiescent(self) -> bool:
        """Nothing ready or running: without an outside signal, no semaphore will move again."""
        return self.inflight == 0

    def drain(self, what: str) -> None:
        """Wait until every submission finished; report unobserved failures and stuck ones."""
        with self.lock:
            while not (self.quiescent() and (not self.pending or not self._any_external_pending())):
                self.changed.wait(self._wait_slice())
            if self.pending or self.parked:
                raise self.deadlock(f"deadlock: at {what}, submissions remain that can never run", None, what)
            unobserved = [f for f in self.failures if id(f) not in self.observed]
            if unobserved:
                self.observed.update(id(f) for f in unobserved)
                raise ExecutionError(unobserved[0], f"{what} (no host wait covered the failing work)")

    def _any_external_pending(self) -> bool:
        return self.other_threads_signal and any(
            sem.external and not sem.producers for sub in self.pending for sem, _ in sub.waits.unmet()
        )

    def _observed(self, status: Status) -> None:
        self.observed.add(id(status))

    def jitter(self) -> None:
        """Hook (chaos): called before each command; a random short sleep there."""

    def pack_order(self, n: int) -> list[int] | None:
        """Hook (chaos): the order in which `stream.resource.pack` places its n slices; None for
        the default (largest first)."""
        return None

    def shutdown(self) -> None:
        self.closed = True

    # -- deadlock analysis -------------------------------------------------------------------------
    def deadlock(self, summary: str, fence: Fence | None, what: str) -> DeadlockError:
        """Explain why the pending submissions (and the host's `fence`) can never proceed."""
        blocked: list[BlockedWait] = []
        edges: dict[str, list[str]] = {}

        def explain(waiter: str, points: list[tuple[TimelineSemaphore, int]]) -> None:
            for sem, value in points:
                producers = [p for p in sem.producers if isinstance(p, Submission) and p.state in ("pending", "parked")]
                edges.setdefault(waiter, []).extend(p.label for p in producers)
                if producers:
                    reason = "only " + ", ".join(p.label for p in producers) + " would signal it, and that is blocked too"
                elif sem.external:
                    reason = "nothing submitted signals it (an external semaphore only the host could signal)"
                else:
                    reason = "nothing pending will ever signal it"
                blocked.append(BlockedWait(waiter, sem.name, value, sem._value, reason))

        if fence is not None:
            explain(f"host ({what})", fence.unmet())
        for sub in sorted(self.pending, key=lambda s: s.id):
            explain(sub.label, sub.waits.unmet())
        for sub in self.parked:
            pool = self.pools[sub.device]
            blocked.append(BlockedWait(
                sub.label, f"@{sub.device} memory pool", sub.memory, pool.live,
                f"needs {sub.memory} bytes but {pool.live} of {pool.capacity} are live and nothing pending frees memory",
            ))
        return DeadlockError(summary, tuple(blocked), _find_cycle(edges))


def _find_cycle(edges: dict[str, list[str]]) -> tuple[str, ...]:
    """A cycle in the wait-for graph, as a closed path of labels (empty when there is none)."""
    color: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> tuple[str, ...]:
        color[node] = 1
        stack.append(node)
        for nxt in edges.get(node, ()):
            if color.get(nxt) == 1:
                return (*stack[stack.index(nxt) :], nxt)
            if color.get(nxt) is None:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        color[node] = 2
        return ()

    for node in list(edges):
        if color.get(node) is None:
            found = visit(node)
            if found:
                return found
    return ()

"""Timeline semaphores and fences, after IREE's HAL (`iree/hal/semaphore.h`, `fence.h`).

A `TimelineSemaphore` holds a monotonically increasing payload. Contract:

* `signal(v)` requires `v` strictly greater than the current payload (each timeline value is
  signalled once; IREE's async layer returns INVALID_ARGUMENT otherwise) and at most `MAX_VALUE`;
* a wait is "payload >= v", may be issued before anyone signals `v`, and may be repeated any number
  of times after `v` is reached;
* `fail(status)` marks the semaphore permanently failed; the first failure wins, later ones are
  dropped; every waiter (present and future) observes the failure's status, and the payload reads
  as `FAILURE_VALUE`;
* signalling a failed semaphore raises its failure (nothing can un-fail it).

A `Fence` is a set of (semaphore, value) points with one value per semaphore (the max, as
`iree_hal_fence_insert` keeps); it is reached when every point is. The empty fence is the
immediate timepoint. A stream timepoint at run time is a Fence.

Semaphores created by the scheduler share its lock, so that a signal, the bookkeeping it triggers
(callbacks) and the scheduler's quiescence test are atomic; standalone semaphores have their own.
Callbacks run with the lock held and must only do bookkeeping.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from runtime.status import HalError, Status, StatusCode

__all__ = ["TimelineSemaphore", "Fence", "MAX_VALUE", "FAILURE_VALUE", "wait_semaphores"]

# IREE keeps payloads under Vulkan's guaranteed maxTimelineSemaphoreValueDifference.
MAX_VALUE = 2**31 - 2
FAILURE_VALUE = 2**31 - 1

WaitCallback = Callable[[Status | None], None]
_ids = itertools.count(1)


class TimelineSemaphore:
    """A timeline semaphore. `producers` lists the pending submissions that will signal it (kept
    by the scheduler, used to explain deadlocks); `external` marks a semaphore that something
    outside the scheduler (the host, another thread) may signal."""

    __slots__ = ("name", "_value", "_failure", "_lock", "_cond", "_waiters", "external", "producers", "signal_log", "id")

    def __init__(
        self,
        initial: int = 0,
        name: str = "",
        *,
        lock: threading.RLock | None = None,
        cond: threading.Condition | None = None,
        external: bool = True,
    ) -> None:
        if not 0 <= initial <= MAX_VALUE:
            raise HalError(Status(StatusCode.INVALID_ARGUMENT, f"initial value {initial} out of range [0, {MAX_VALUE}]"))
        self.id = next(_ids)
        self.name = name or f"semaphore#{self.id}"
        self._value = initial
        self._failure: Status | None = None
        self._lock = lock if lock is not None else threading.RLock()
        self._cond = cond if cond is not None else threading.Condition(self._lock)
        self._waiters: list[tuple[int, WaitCallback]] = []
        self.external = external
        self.producers: list[object] = []
        # Every signal: (value, vector clock of the signaller or None, trace anchor or None). The
        # clock implements IREE's "late waiter" frontier rule for race detection; the anchor lets a
        # trace draw an arrow from the signalling slice to each waiter.
        self.signal_log: list[tuple[int, dict[int, float] | None, object]] = []

    # -- queries -----------------------------------------------------------------------------
    @property
    def value(self) -> int:
        """The payload, or FAILURE_VALUE once failed (as `iree_hal_semaphore_query`)."""
        with self._lock:
            return FAILURE_VALUE if self._failure is not None else self._value

    @property
    def failure(self) -> Status | None:
        return self._failure

    def query(self) -> tuple[int, Status | None]:
        with self._lock:
            return (FAILURE_VALUE if self._failure is not None else self._value), self._failure

    def reached(self, value: int) -> bool:
        """True once the payload is >= value (never for a failed semaphore)."""
        return self._failure is None and self._value >= value

    # -- signalling ----------------------------------------------------------------------------
    def signal(self, value: int, clock: dict[int, float] | None = None, anchor: object = None) -> None:
        """Advance the payload to `value` (strictly increasing) and wake the waiters it satisfies."""
        with self._lock:
            if self._failure is not None:
                raise HalError(self._failure)
            if value <= self._value:
                raise HalError(Status(
                    StatusCode.INVALID_ARGUMENT,
                    f"{self.name}: signal to {value} does not advance the timeline (payload is {self._value}); "
                    "each timeline value must be signalled exactly once",
                ))
            if value > MAX_VALUE:
                raise HalError(Status(StatusCode.INVALID_ARGUMENT, f"{self.name}: value {value} exceeds {MAX_VALUE}"))
            self._value = value
            self.signal_log.append((value, clock, anchor))
            fire = [cb for target, cb in self._waiters if target <= value]
            if fire:
                self._waiters = [(t, cb) for t, cb in self._waiters if t > value]
            for cb in fire:
                cb(None)
            self._cond.notify_all()

    def fail(self, status: Status) -> bool:
        """Fail the semaphore permanently. Returns False when it had already failed (the first
        failure is kept, as IREE's CTS `DoubleFailurePreservesFirst` requires)."""
        with self._lock:
            if self._failure is not None:
                return False
            self._failure = status
            fire = [cb for _, cb in self._waiters]
            self._waiters = []
            for cb in fire:
                cb(status)
            self._cond.notify_all()
            return True

    # -- waiting -------------------------------------------------------------------------------
    def on_reached(self, value: int, callback: WaitCallback) -> None:
        """Call `callback(None)` once the payload reaches `value`, or `callback(status)` when the
        semaphore fails; immediately (with the lock held) when either already happened."""
        with self._lock:
            if self._failure is not None:
                callback(self._failure)
            elif self._value >= value:
                callback(None)
            else:
                self._waiters.append((value, callback))

    def wait(self, value: int, timeout: float | None = None) -> None:
        """Block the calling thread until the payload reaches `value`. Raises HalError with
        DEADLINE_EXCEEDED on timeout, or with the failure's status when the semaphore failed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while True:
                if self._failure is not None:
                    raise HalError(self._failure)
                if self._value >= value:
                    return
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise HalError(Status(StatusCode.DEADLINE_EXCEEDED, f"{self.name} did not reach {value} (payload {self._value})"))
                self._cond.wait(remaining)

    def signal_for(self, value: int) -> tuple[int, dict[int, float] | None, object] | None:
        """The record of the signal that first reached `value` (IREE's frontier "late waiter"
        rule: a waiter imports the frontier of the signal that reached its value), or None when
        the initial payload already covered it."""
        for record in self.signal_log:
            if record[0] >= value:
                return record
        return None

    def __repr__(self) -> str:
        state = f"failed: {self._failure.code.name}" if self._failure else f"value {self._value}"
        return f"<TimelineSemaphore {self.name} {state}>"


@dataclass(frozen=True, slots=True)
class Fence:
    """A set of (semaphore, value) points, one per semaphore; reached when all are.

    `Fence()` is the immediate timepoint. `join` keeps the max value per semaphore.
    """

    points: tuple[tuple[TimelineSemaphore, int], ...] = ()

    @staticmethod
    def of(points: Iterable[tuple[TimelineSemaphore, int]]) -> Fence:
        best: dict[TimelineSemaphore, int] = {}
        for sem, value in points:
            if value > best.get(sem, -1):
                best[sem] = value
        return Fence(tuple(best.items()))

    @staticmethod
    def join(fences: Iterable[Fence]) -> Fence:
        best: dict[TimelineSemaphore, int] = {}
        for f in fences:
            for sem, value in f.points:
                if value > best.get(sem, -1):
                    best[sem] = value
        return Fence(tuple(best.items()))

    @property
    def is_immediate(self) -> bool:
        return not self.points

    def reached(self) -> bool:
        return all(sem.reached(v) for sem, v in self.points)

    def failure(self) -> Status | None:
        for sem, _ in self.points:
            if sem.failure is not None:
                return sem.failure
        return None

    def unmet(self) -> list[tuple[TimelineSemaphore, int]]:
        return [(s, v) for s, v in self.points if not s.reached(v)]

    def wait(self, timeout: float | None = None) -> None:
        """Block until every point is reached (wait-all)."""
        wait_semaphores(self.points, "all", timeout)

    def __repr__(self) -> str:
        if not self.points:
            return "<Fence immediate>"
        return "<Fence " + ", ".join(f"{s.name}>={v}" for s, v in self.points) + ">"


@dataclass(slots=True)
class _WaitState:
    """What the callbacks of one `wait_semaphores` call share: points not yet reached, first failure."""

    left: int
    failure: Status | None = None


def wait_semaphores(points: Iterable[tuple[TimelineSemaphore, int]], mode: str = "all", timeout: float | None = None) -> None:
    """Wait for all (mode="all") or any (mode="any") of several semaphore points, as
    `iree_hal_device_wait_semaphores` does. An empty list is reached at once. A failed semaphore
    makes the wait raise ABORTED carrying the failure (IREE returns ABORTED and the caller queries
    the semaphores for the real status; here the first failure rides along as the message).
    DEADLINE_EXCEEDED on timeout."""
    points = list(points)
    if mode not in ("all", "any"):
        raise ValueError(f"wait mode must be 'all' or 'any', not {mode!r}")
    if not points:
        return
    event = threading.Event()
    lock = threading.Lock()
    state = _WaitState(len(points))

    def make_callback() -> WaitCallback:
        def done(status: Status | None) -> None:
            with lock:
                if status is not None:
                    if state.failure is None:
                        state.failure = status
                    event.set()
                    return
                state.left -= 1
                if mode == "any" or state.left == 0:
                    event.set()

        return done

    for sem, value in points:
        sem.on_reached(value, make_callback())
    if not event.wait(timeout):
        unmet = ", ".join(f"{s.name}>={v} (payload {s._value})" for s, v in points if not s.reached(v))
        raise HalError(Status(StatusCode.DEADLINE_EXCEEDED, f"wait-{mode} timed out; unmet: {unmet}"))
    failure = state.failure
    if failure is not None:
        raise HalError(Status(StatusCode.ABORTED, f"a waited semaphore failed: {failure}", failure.origin, failure.cause))

"""The three drivers: `sync`, `task` and `chaos` (SPEC section 6).

* `SyncDriver` is IREE's local-sync: every submission runs inline on the submitting (host) thread
  as soon as it is submitted, so runs are deterministic. A submission whose waits are not already
  reached can never run (local-sync would block forever on the inline wait): it is reported as a
  `DeadlockError` naming the wait, instead of hanging.
* `TaskDriver` is IREE's local-task: one worker thread per device queue takes ready submissions
  (in whatever order they became ready - there is no FIFO between submissions), and a shared pool
  runs the children of `stream.cmd.concurrent` sections. numpy releases the GIL inside kernels,
  so devices and concurrent children really overlap. Small sections (by bytes touched) run inline
  on the queue's worker: concurrency is a permission, not an obligation, and handing a 1 KiB
  kernel to another thread costs more than running it.
  Worker and pool threads are kept between runs (`_Threads`) instead of being started and joined
  by every driver. While a task driver runs it lowers the interpreter's GIL switch interval (0.5 ms by default,
  restored when the last running task driver shuts down): the host and the device workers hand
  work to each other thousands of times per run, and with CPython's default 5 ms every handoff
  can wait for a forced switch (measured in bench/bench_runtime.py: 3x slower on small kernels).
* `ChaosDriver` is the task driver plus seeded randomness: random delays before submissions and
  commands, a random choice among ready submissions, a random order (and random inline or pooled
  execution) of concurrent children, a random (valid) placement of `resource.pack` slices. It
  exposes missing waits and layout assumptions that a friendly schedule hides.
"""

from __future__ import annotations

import functools
import itertools
import os
import queue as queue_mod
import random
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from runtime.scheduler import Scheduler, Submission, WorkContext
from runtime.semaphore import TimelineSemaphore
from runtime.status import BlockedWait, DeadlockError

__all__ = ["SyncDriver", "TaskDriver", "ChaosDriver", "make_driver", "DRIVERS"]

Child = Callable[[WorkContext], None]


class SyncDriver(Scheduler):
    """Inline execution on the host thread."""

    name = "sync"

    def __init__(self, *, pool_threads: int | None = None, inline_bytes: int = 0, switch_interval: float | None = None,
                 **kw: Any) -> None:
        # The task driver's thread options mean nothing here: everything runs on the host thread.
        super().__init__(**kw)

    def _blocked_at_submit(self, sub: Submission, unmet: list[tuple[TimelineSemaphore, int]]) -> None:
        blocked = []
        for sem, value in unmet:
            parked = [p for p in sem.producers if isinstance(p, Submission) and p.state == "parked"]
            if parked:
                pool = self.pools[parked[0].device]
                reason = (f"its producer {parked[0].label} waits for {parked[0].memory} bytes of pool memory "
                          f"({pool.live} of {pool.capacity} are live), and the sync driver cannot wait")
            else:
                reason = ("the sync driver runs submissions inline when they are submitted, and nothing submitted so far "
                          "has signalled this value (only a later submission or the host could; use --driver task)")
            blocked.append(BlockedWait(sub.label, sem.name, value, sem._value, reason))
        raise DeadlockError(f"deadlock: {sub.label} waits on a value that is not signalled yet (sync driver)", tuple(blocked))

    def _enqueue(self, sub: Submission) -> None:
        sub.state = "running"
        ctx = WorkContext(self, sub, f"queue {sub.queue}", self._run_concurrent)
        status = self.execute(sub, ctx)
        self.complete(sub, status)

    def _run_concurrent(self, children: list[Child], ctx: WorkContext, cost: int = 0) -> None:
        for child in children:
            child(ctx)


class _Batch:
    """The children of one concurrent section, taken one by one by the submitting thread and by
    any pool thread that joins in. The submitting thread can always finish the batch alone, so a
    saturated pool never deadlocks."""

    __slots__ = ("children", "next", "left", "done", "errors", "lock")

    def __init__(self, children: list[Child]) -> None:
        self.children = children
        self.next = itertools.count()
        self.left = len(children)
        self.done = threading.Event()
        self.errors: list[BaseException] = []
        self.lock = threading.Lock()

    def work(self, ctx: WorkContext) -> None:
        while True:
            i = next(self.next)
            if i >= len(self.children):
                return
            if not self.errors:  # once a child failed, the rest are cancelled
                try:
                    self.children[i](ctx)
                except BaseException as e:  # noqa: BLE001 - re-raised by the submitting thread
                    with self.lock:
                        self.errors.append(e)
            with self.lock:
                self.left -= 1
                if self.left == 0:
                    self.done.set()


class _SwitchInterval:
    """Lowers `sys.setswitchinterval` while at least one task driver runs; restores it after."""

    _lock = threading.Lock()
    _users = 0
    _saved = 0.005

    @classmethod
    def acquire(cls, interval: float) -> None:
        with cls._lock:
            if cls._users == 0:
                cls._saved = sys.getswitchinterval()
                sys.setswitchinterval(min(interval, cls._saved))
            cls._users += 1

    @classmethod
    def release(cls) -> None:
        with cls._lock:
            cls._users -= 1
            if cls._users == 0:
                sys.setswitchinterval(cls._saved)


class TaskDriver(Scheduler):
    """A worker thread per device queue, a shared pool for concurrent sections."""

    name = "task"

    def __init__(self, *, pool_threads: int | None = None, inline_bytes: int = 256 * 1024,
                 switch_interval: float | None = 0.0005, **kw: Any) -> None:
        super().__init__(**kw)
        self.inline_bytes = inline_bytes
        self._switch_interval = switch_interval
        self._interval_held = False
        self._workers: dict[tuple[str, int], _QueueWorker] = {}
        self._pool_threads = pool_threads if pool_threads is not None else max(1, os.cpu_count() or 1)
        self._pool_queue: queue_mod.SimpleQueue[tuple[_Batch, WorkContext] | None] = queue_mod.SimpleQueue()
        self._pool: list[threading.Event] = []  # one per pool thread: set when it stopped

    # -- queues ------------------------------------------------------------------------------------
    def _enqueue(self, sub: Submission) -> None:
        key = (sub.device, sub.queue)
        worker = self._workers.get(key)
        if worker is None:
            if self._switch_interval is not None and not self._interval_held:
                _SwitchInterval.acquire(self._switch_interval)
                self._interval_held = True
            worker = self._workers[key] = _QueueWorker(self, key)
        worker.inbox.put(sub)

    def next_ready(self, worker: _QueueWorker) -> Submission | None:
        """The next submission for a queue's worker to run (blocking), None once it must stop.
        In the order they became ready: there is no FIFO among submissions, only among ready ones."""
        return worker.inbox.get()

    def before_submission(self, sub: Submission) -> None:
        """Hook (chaos): called on the worker before a submission runs."""

    # -- concurrent sections -------------------------------------------------------------------------
    def run_concurrent(self, children: list[Child], ctx: WorkContext, cost: int = 0) -> None:
        if len(children) <= 1 or self._inline(children, cost):
            for child in self._order(children):
                child(ctx)
            return
        batch = _Batch(self._order(children))
        self._start_pool()
        for _ in range(min(len(children) - 1, self._pool_threads)):
            self._pool_queue.put((batch, ctx))
        batch.work(ctx)
        batch.done.wait()
        if batch.errors:
            raise batch.errors[0]

    def _inline(self, children: list[Child], cost: int) -> bool:
        return cost < self.inline_bytes

    def _order(self, children: list[Child]) -> list[Child]:
        return children

    def _start_pool(self) -> None:
        if self._pool:
            return
        with self.lock:
            if self._pool:
                return
            for k in range(self._pool_threads):
                self._pool.append(_Threads.run(functools.partial(self._pool_loop, k), f"streamproof-pool-{k}"))

    def _pool_loop(self, k: int) -> None:
        while True:
            item = self._pool_queue.get()
            if item is None:
                return
            batch, ctx = item
            batch.work(ctx.child(f"pool {k}"))

    def shutdown(self) -> None:
        super().shutdown()
        with self.lock:
            workers = list(self._workers.values())
        for w in workers:
            w.inbox.put(None)  # after everything already ready, which still runs
        for w in workers:
            w.done.wait()
        for _ in self._pool:
            self._pool_queue.put(None)
        for stopped in self._pool:
            stopped.wait()
        self._pool.clear()
        if self._interval_held:
            self._interval_held = False
            _SwitchInterval.release()


class _Threads:
    """Threads kept between runs, as Dask's threaded scheduler keeps its pool: on a loaded machine
    starting a thread waits for a scheduler time slice, milliseconds per driver. `run(fn)` runs
    `fn` on an idle thread (or a new one) and returns an event set when `fn` has returned; the
    thread then waits for the next `run`. Threads are daemons blocked in a C-level queue."""

    _lock = threading.Lock()
    _idle: list[queue_mod.SimpleQueue[tuple[Callable[[], None], str, threading.Event]]] = []
    MAX_IDLE = 64

    @classmethod
    def run(cls, fn: Callable[[], None], name: str) -> threading.Event:
        done = threading.Event()
        with cls._lock:
            inbox = cls._idle.pop() if cls._idle else None
        if inbox is None:
            inbox = queue_mod.SimpleQueue()
            threading.Thread(target=cls._serve, args=(inbox,), name=name, daemon=True).start()
        inbox.put((fn, name, done))
        return done

    @classmethod
    def _serve(cls, inbox: queue_mod.SimpleQueue[tuple[Callable[[], None], str, threading.Event]]) -> None:
        while True:
            fn, name, done = inbox.get()
            threading.current_thread().name = name
            try:
                fn()
            except BaseException:
                done.set()
                raise  # a bug in the driver: this thread ends (threading.excepthook reports it)
            with cls._lock:
                keep = len(cls._idle) < cls.MAX_IDLE
                if keep:
                    cls._idle.append(inbox)
            done.set()
            if not keep:
                return


class _QueueWorker:
    """The thread of one device queue: runs ready submissions one at a time.

    Ready submissions arrive in `inbox` (a C-level queue: handing work to a worker and waking it
    costs no Python-level lock or condition); `ready` holds the ones the worker took but has not
    run yet (only the chaos driver, which picks among them at random, keeps any there)."""

    def __init__(self, driver: TaskDriver, key: tuple[str, int]) -> None:
        self.driver = driver
        self.key = key
        self.inbox: queue_mod.SimpleQueue[Submission | None] = queue_mod.SimpleQueue()
        self.ready: deque[Submission] = deque()
        self.stopping = False
        self.done = _Threads.run(self._loop, f"streamproof-{key[0]}-q{key[1]}")

    def _loop(self) -> None:
        d = self.driver
        lane = f"queue {self.key[1]}"
        while True:
            sub = d.next_ready(self)
            if sub is None:
                return
            sub.state = "running"
            d.before_submission(sub)
            status = d.execute(sub, WorkContext(d, sub, lane, d.run_concurrent))
            d.complete(sub, status)


class ChaosDriver(TaskDriver):
    """The task driver with seeded random delays and random choices among ready work."""

    name = "chaos"

    def __init__(self, *, seed: int = 0, max_delay: float = 0.002, **kw: Any) -> None:
        super().__init__(**kw)
        self.seed = seed
        self.max_delay = max_delay
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()

    def _random(self) -> float:
        with self._rng_lock:
            return self._rng.random()

    def next_ready(self, worker: _QueueWorker) -> Submission | None:
        """A random one of everything ready on this queue."""
        ready, inbox = worker.ready, worker.inbox
        while not ready or not inbox.empty():
            if not ready and worker.stopping:
                return None
            item = inbox.get()  # blocks only when nothing is ready
            if item is None:
                worker.stopping = True
            else:
                ready.append(item)
        with self._rng_lock:
            i = self._rng.randrange(len(ready))
        sub = ready[i]
        del ready[i]
        return sub

    def before_submission(self, sub: Submission) -> None:
        self.jitter()

    def jitter(self) -> None:
        """Sleep a random short time (half of the calls sleep)."""
        r = self._random()
        if r < 0.5:
            time.sleep(r * 2 * self.max_delay)

    def _inline(self, children: list[Child], cost: int) -> bool:
        return self._random() < 0.3

    def pack_order(self, n: int) -> list[int] | None:
        order = list(range(n))
        with self._rng_lock:
            self._rng.shuffle(order)
        return order

    def _order(self, children: list[Child]) -> list[Child]:
        out = list(children)
        with self._rng_lock:
            self._rng.shuffle(out)
        return out


DRIVERS = {"sync": SyncDriver, "task": TaskDriver, "chaos": ChaosDriver}


def make_driver(name: str, *, seed: int = 0, **kw: Any) -> Scheduler:
    """A driver by name ('sync', 'task' or 'chaos')."""
    cls = DRIVERS.get(name)
    if cls is None:
        raise ValueError(f"unknown driver '{name}' (choose from {', '.join(DRIVERS)})")
    if cls is ChaosDriver:
        return ChaosDriver(seed=seed, **kw)
    return cls(**kw)

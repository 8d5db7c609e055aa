"""Random submission graphs against a model of what must happen (runtime-notes section 5.3 (c)).

Submission i signals its own semaphore S_i to 1 and waits on a random set of the others' (any
index: waits on later submissions, cycles and self-waits included), sometimes on an orphan
semaphore nobody signals, and sometimes fails. Submitted in a random order, then the host waits for
every S_i. The model is a least fixpoint: i runs when every S_j it waits on is reached, and S_j is
reached when j ran and did not fail.

* a submission runs only after everything it waits on ran, and at most once;
* exactly the submissions the model says run do run;
* the host wait succeeds when all can run, raises the failure when one failed, and otherwise
  raises a DeadlockError that lists every stuck submission and a cycle exactly when the stuck
  ones wait on each other in a cycle - always within a bounded time.

The sync driver runs submissions inline, so its model is sequential: the first submission whose
waits are not met yet when it is submitted is a deadlock, reported at once.
"""

from __future__ import annotations

import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rt_support import bounded

from runtime.drivers import make_driver
from runtime.scheduler import Submission, WorkContext, WorkFailure
from runtime.semaphore import Fence
from runtime.status import DeadlockError, ExecutionError, Status, StatusCode


@st.composite
def graphs(draw: st.DrawFn) -> tuple[list[set[int]], set[int], set[int], list[int]]:
    n = draw(st.integers(1, 7))
    waits = [draw(st.sets(st.integers(0, n - 1), max_size=3)) for _ in range(n)]
    if draw(st.integers(0, 3)) == 0:  # mostly acyclic, so that the success path is common too
        waits = [{j for j in w if j < i} for i, w in enumerate(waits)]
    orphans = draw(st.sets(st.integers(0, n - 1), max_size=1))
    failing = draw(st.sets(st.integers(0, n - 1), max_size=1))
    order = draw(st.permutations(range(n)))
    return waits, orphans, failing, list(order)


def has_cycle(nodes: set[int], waits: list[set[int]]) -> bool:
    color: dict[int, int] = {}

    def visit(i: int) -> bool:
        color[i] = 1
        for j in waits[i] & nodes:
            if color.get(j) == 1 or (j not in color and visit(j)):
                return True
        color[i] = 2
        return False

    return any(i not in color and visit(i) for i in nodes)


@pytest.mark.parametrize("driver", ["task", "chaos"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=graphs(), seed=st.integers(0, 1000))
def test_async_drivers_follow_the_model(driver: str, graph: tuple[list[set[int]], set[int], set[int], list[int]],
                                        seed: int) -> None:
    waits, orphans, failing, order = graph
    n = len(waits)
    d = make_driver(driver, seed=seed, max_delay=0.0005) if driver == "chaos" else make_driver(driver)
    try:
        sems = [d.create_semaphore(0, f"S{i}", external=False) for i in range(n)]
        orphan = d.create_semaphore(0, "orphan", external=False)
        ran: list[int] = []
        early: list[int] = []  # ran before something it waits on (checked by the test thread)
        lock = threading.Lock()

        def work(i: int):  # type: ignore[no-untyped-def]
            def run(ctx: WorkContext) -> None:
                with lock:
                    if not all(j in ran for j in waits[i]):
                        early.append(i)
                    ran.append(i)
                if i in failing:
                    raise WorkFailure(Status(StatusCode.INTERNAL, f"submission {i} failed", f"sub {i}"))

            return run

        for i in order:
            points = [(sems[j], 1) for j in waits[i]] + ([(orphan, 1)] if i in orphans else [])
            d.submit(Submission("execute", f"dev{i % 2}", i % 3, Fence.of(points), ((sems[i], 1),), work(i), f"sub {i}"))
        good = succeeding(waits, orphans, failing)
        failed = {i for i in failing if i not in orphans and waits[i] <= good}  # it runs, and fails
        try:
            bounded(lambda: d.host_wait(Fence.of([(s, 1) for s in sems]), "host wait"), 20)
        except ExecutionError as e:
            assert failed and e.status.message in {f"submission {i} failed" for i in failed}
        except DeadlockError as e:
            assert not failed and good != set(range(n))
            stuck = set(range(n)) - good
            assert {b.waiter for b in e.blocked} >= {f"sub {i}" for i in stuck}
            assert bool(e.cycle) == has_cycle(stuck, waits)
        else:
            assert good == set(range(n))
        with d.lock:  # submissions still running (after a failure was seen) finish first
            while d.inflight:
                d.changed.wait(1)
        assert early == [], "ran before one of its waits"
        assert len(ran) == len(set(ran)), "a submission ran twice"
        assert set(ran) == good | failed
    finally:
        d.shutdown()


def succeeding(waits: list[set[int]], orphans: set[int], failing: set[int]) -> set[int]:
    """The model: submissions that run and succeed - all their waits are reached by such ones
    (a failing submission's semaphore fails, so nothing behind it runs)."""
    done: set[int] = set()
    changed = True
    while changed:
        changed = False
        for i, w in enumerate(waits):
            if i not in done and i not in orphans and i not in failing and w <= done:
                done.add(i)
                changed = True
    return done


@settings(max_examples=60, deadline=None)
@given(graph=graphs())
def test_sync_driver_follows_the_sequential_model(graph: tuple[list[set[int]], set[int], set[int], list[int]]) -> None:
    waits, orphans, _, order = graph
    n = len(waits)
    d = make_driver("sync")
    sems = [d.create_semaphore(0, f"S{i}", external=False) for i in range(n)]
    orphan = d.create_semaphore(0, "orphan", external=False)
    ran: list[int] = []
    done: set[int] = set()
    expected_stuck = None
    for i in order:
        if i in orphans or not waits[i] <= done:
            expected_stuck = i
            break
        done.add(i)
    try:
        for i in order:
            points = [(sems[j], 1) for j in waits[i]] + ([(orphan, 1)] if i in orphans else [])
            d.submit(Submission("execute", "dev0", 0, Fence.of(points), ((sems[i], 1),),
                                lambda ctx, i=i: ran.append(i), f"sub {i}"))
    except DeadlockError as e:
        assert expected_stuck is not None and f"sub {expected_stuck}" in str(e)
        assert ran == order[: order.index(expected_stuck)]
    else:
        assert expected_stuck is None and ran == order
        d.host_wait(Fence.of([(s, 1) for s in sems]), "host wait")

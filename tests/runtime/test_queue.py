"""Queue submissions and semaphores, after IREE's HAL CTS `cts/queue/semaphore_submission_test.cc`
(and the pool-exhaustion case of `queue_alloca_test.cc`).

Tests named after CTS cases run on the asynchronous drivers (task, chaos): the CTS tags them
`async_queue` because local-sync would deadlock on its inline wait, and so does our sync driver -
except that it reports the deadlock instead of hanging, which is tested too. Every wait in here is
bounded (`bounded`), so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from rt_support import bounded

from runtime.drivers import make_driver
from runtime.memory import DevicePool
from runtime.scheduler import Scheduler, Submission, WorkContext, WorkFailure
from runtime.semaphore import Fence, TimelineSemaphore, wait_semaphores
from runtime.status import DeadlockError, ExecutionError, Status, StatusCode

ASYNC = ("task", "chaos")


@pytest.fixture(params=ASYNC)
def driver(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    d = make_driver(request.param, seed=11)
    yield d
    d.shutdown()


def sub(device: str, waits: list[tuple[TimelineSemaphore, int]], signals: list[tuple[TimelineSemaphore, int]],
        work: Callable[[WorkContext], None] | None = None, label: str = "", queue: int = 0) -> Submission:
    return Submission("execute", device, queue, Fence.of(waits), tuple(signals), work, label or f"batch on {device}")


def wait(d: Scheduler, points: list[tuple[TimelineSemaphore, int]]) -> None:
    bounded(lambda: d.host_wait(Fence.of(points), "host wait"))


def test_submit_with_no_command_buffers(driver: Scheduler) -> None:
    s = driver.create_semaphore(0, "s")
    driver.submit(sub("dev0", [], [(s, 1)]))
    wait(driver, [(s, 1)])
    assert s.value == 1


def test_submit_and_signal(driver: Scheduler) -> None:
    s = driver.create_semaphore(0, "s")
    ran: list[str] = []
    driver.submit(sub("dev0", [], [(s, 1)], lambda ctx: ran.append(ctx.lane)))
    wait(driver, [(s, 1)])
    assert ran == ["queue 0"]


def test_submit_with_wait(driver: Scheduler) -> None:
    w, s = driver.create_semaphore(0, "w"), driver.create_semaphore(0, "s")
    ran: list[int] = []
    driver.submit(sub("dev0", [(w, 1)], [(s, 1)], lambda ctx: ran.append(1)))
    time.sleep(0.02)
    assert ran == [] and s.value == 0
    driver.host_signal(w, 1)
    wait(driver, [(s, 1)])
    assert ran == [1]


def test_cross_queue_wait_before_signal(driver: Scheduler) -> None:
    """A submission on one queue waits on a value that a submission made later, on another
    queue, signals: submission order is not execution order."""
    s1, s2 = driver.create_semaphore(0, "s1"), driver.create_semaphore(0, "s2")
    order: list[str] = []
    driver.submit(sub("dev0", [(s1, 1)], [(s2, 1)], lambda ctx: order.append("waiter"), queue=1))
    driver.submit(sub("dev0", [], [(s1, 1)], lambda ctx: order.append("signaller"), queue=0))
    wait(driver, [(s2, 1)])
    assert order == ["signaller", "waiter"]


def test_multi_queue_fan_out_different_values_before_signal(driver: Scheduler) -> None:
    s = driver.create_semaphore(0, "s")
    done = [driver.create_semaphore(0, f"done{i}") for i in range(3)]
    seen: dict[int, int] = {}
    for i in range(3):
        driver.submit(sub(f"dev{i}", [(s, i + 1)], [(done[i], 1)], lambda ctx, i=i: seen.__setitem__(i, s._value)))
    for value in (1, 2, 3):
        driver.host_signal(s, value)
        wait(driver, [(done[value - 1], 1)])
        assert seen[value - 1] >= value
        assert all(d.value == 0 for d in done[value:])  # later values still blocked


def test_submit_with_multiple_semaphores(driver: Scheduler) -> None:
    a, b = driver.create_semaphore(0, "a"), driver.create_semaphore(0, "b")
    c, d = driver.create_semaphore(0, "c"), driver.create_semaphore(0, "d")
    driver.submit(sub("dev0", [(a, 1), (b, 1)], [(c, 1), (d, 1)]))
    driver.host_signal(a, 1)
    time.sleep(0.02)
    assert c.value == 0  # one wait of two is not enough
    driver.host_signal(b, 1)
    wait(driver, [(c, 1), (d, 1)])


def test_wait_all_host_and_device_semaphores(driver: Scheduler) -> None:
    host, dev = driver.create_semaphore(0, "host"), driver.create_semaphore(0, "device")
    driver.submit(sub("dev0", [], [(dev, 1)]))
    driver.host_signal(host, 1)
    wait(driver, [(host, 1), (dev, 1)])


def test_wait_any_host_and_device_semaphores_device_signals(driver: Scheduler) -> None:
    """wait-any over a host semaphore nobody signals and one a device batch signals."""
    host, dev = driver.create_semaphore(0, "host"), driver.create_semaphore(0, "device")
    driver.submit(sub("dev0", [], [(dev, 1)]))
    bounded(lambda: wait_semaphores([(host, 1), (dev, 1)], "any", timeout=5))
    assert host.value == 0 and dev.value == 1


def test_wait_any_host_and_device_semaphores_host_signals(driver: Scheduler) -> None:
    """wait-any where the device batch is blocked and the host signals the other semaphore."""
    gate, host, dev = (driver.create_semaphore(0, n) for n in ("gate", "host", "device"))
    driver.submit(sub("dev0", [(gate, 1)], [(dev, 1)]))
    threading.Timer(0.02, lambda: driver.host_signal(host, 1)).start()
    bounded(lambda: wait_semaphores([(host, 1), (dev, 1)], "any", timeout=5))
    assert dev.value == 0
    driver.host_signal(gate, 1)
    wait(driver, [(dev, 1)])


def test_intermediate_semaphore_between_device_batches(driver: Scheduler) -> None:
    mid, end = driver.create_semaphore(0, "mid"), driver.create_semaphore(0, "end")
    order: list[str] = []
    driver.submit(sub("dev0", [(mid, 1)], [(end, 1)], lambda ctx: order.append("second")))
    driver.submit(sub("dev1", [], [(mid, 1)], lambda ctx: order.append("first")))
    wait(driver, [(end, 1)])
    assert order == ["first", "second"]


def test_two_batches_waiting_on_one_former_batch_amongst_two(driver: Scheduler) -> None:
    a, b, c, d = (driver.create_semaphore(0, n) for n in "abcd")
    order: list[str] = []
    driver.submit(sub("dev0", [], [(a, 1)], lambda ctx: order.append("A")))
    driver.submit(sub("dev1", [], [(b, 1)], lambda ctx: order.append("B")))
    driver.submit(sub("dev0", [(a, 1)], [(c, 1)], lambda ctx: order.append("C")))
    driver.submit(sub("dev1", [(a, 1)], [(d, 1)], lambda ctx: order.append("D")))
    wait(driver, [(b, 1), (c, 1), (d, 1)])
    assert order.index("A") < order.index("C") and order.index("A") < order.index("D")


def test_two_batches_waiting_on_different_semaphore_values(driver: Scheduler) -> None:
    s, c1, c2 = driver.create_semaphore(0, "s"), driver.create_semaphore(0, "c1"), driver.create_semaphore(0, "c2")
    driver.submit(sub("dev0", [(s, 1)], [(c1, 1)]))
    driver.submit(sub("dev1", [(s, 2)], [(c2, 1)]))
    driver.submit(sub("dev2", [], [(s, 1)]))
    wait(driver, [(c1, 1)])
    time.sleep(0.02)
    assert c2.value == 0
    driver.submit(sub("dev2", [(s, 1)], [(s, 2)]))
    wait(driver, [(c2, 1)])


def test_batch_waiting_on_another_and_host_signal(driver: Scheduler) -> None:
    dev, host, out = driver.create_semaphore(0, "dev"), driver.create_semaphore(0, "host"), driver.create_semaphore(0, "out")
    driver.submit(sub("dev0", [(dev, 1), (host, 1)], [(out, 1)]))
    driver.submit(sub("dev1", [], [(dev, 1)]))
    time.sleep(0.02)
    assert out.value == 0
    driver.host_signal(host, 1)
    wait(driver, [(out, 1)])


def test_device_batch_signal_another_and_host(driver: Scheduler) -> None:
    a, b = driver.create_semaphore(0, "a"), driver.create_semaphore(0, "b")
    driver.submit(sub("dev0", [], [(a, 1), (b, 5)]))
    wait(driver, [(b, 5)])
    assert a.value == 1


def test_batch_waiting_on_smaller_value_after_signaled(driver: Scheduler) -> None:
    s, out = driver.create_semaphore(0, "s"), driver.create_semaphore(0, "out")
    driver.host_signal(s, 2)
    driver.submit(sub("dev0", [(s, 1)], [(out, 1)]))
    wait(driver, [(out, 1)])


def test_batch_waiting_on_smaller_value_before_signaled(driver: Scheduler) -> None:
    s, out = driver.create_semaphore(0, "s"), driver.create_semaphore(0, "out")
    driver.submit(sub("dev0", [(s, 1)], [(out, 1)]))
    driver.host_signal(s, 2)
    wait(driver, [(out, 1)])


def test_propagate_fail_signal(driver: Scheduler) -> None:
    """Failing a waited semaphore fails the waiter's signal semaphores with the same status, and
    on down the chain; the waiters never run."""
    w, s, t = driver.create_semaphore(0, "w"), driver.create_semaphore(0, "s"), driver.create_semaphore(0, "t")
    ran: list[str] = []
    driver.submit(sub("dev0", [(w, 1)], [(s, 1)], lambda ctx: ran.append("first")))
    driver.submit(sub("dev1", [(s, 1)], [(t, 1)], lambda ctx: ran.append("second")))
    w.fail(Status(StatusCode.CANCELLED, "cancelled by the host"))
    with pytest.raises(ExecutionError) as e:
        wait(driver, [(t, 1)])
    assert e.value.status.code is StatusCode.CANCELLED
    assert s.failure is not None and s.failure.code is StatusCode.CANCELLED
    assert ran == []


def test_payload_failure_fails_signals_and_reaches_the_host(driver: Scheduler) -> None:
    s, t = driver.create_semaphore(0, "s"), driver.create_semaphore(0, "t")

    def boom(ctx: WorkContext) -> None:
        raise WorkFailure(Status(StatusCode.INTERNAL, "the kernel raised", "dispatch @k at p.mlir:3:5"))

    driver.submit(sub("dev0", [], [(s, 1)], boom))
    driver.submit(sub("dev0", [(s, 1)], [(t, 1)]))
    with pytest.raises(ExecutionError) as e:
        wait(driver, [(t, 1)])
    assert "the kernel raised" in str(e.value) and "dispatch @k at p.mlir:3:5" in str(e.value)


def test_no_fifo_between_submissions_on_one_queue(driver: Scheduler) -> None:
    """IREE has no implicit ordering between submissions on one queue: a blocked submission does
    not hold back a later one on the same queue."""
    gate, first, second = (driver.create_semaphore(0, n) for n in ("gate", "first", "second"))
    driver.submit(sub("dev0", [(gate, 1)], [(first, 1)]))
    driver.submit(sub("dev0", [], [(second, 1)]))
    wait(driver, [(second, 1)])
    assert first.value == 0
    driver.host_signal(gate, 1)
    wait(driver, [(first, 1)])


def test_waiting_threads_see_each_signal(driver: Scheduler) -> None:
    """A second host thread signals while the host is blocked (other_threads_signal)."""
    driver.other_threads_signal = True
    s, out = driver.create_semaphore(0, "s"), driver.create_semaphore(0, "out")
    driver.submit(sub("dev0", [(s, 1)], [(out, 1)]))
    t = threading.Timer(0.05, lambda: driver.host_signal(s, 1))
    t.start()
    wait(driver, [(out, 1)])
    t.join()


# -- deadlocks ---------------------------------------------------------------------------------------
def test_cycle_is_reported_as_a_deadlock(driver: Scheduler) -> None:
    x, y = driver.create_semaphore(0, "x", external=False), driver.create_semaphore(0, "y", external=False)
    driver.submit(sub("dev0", [(x, 1)], [(y, 1)], label="P on @dev0"))
    driver.submit(sub("dev1", [(y, 1)], [(x, 1)], label="Q on @dev1"))
    start = time.monotonic()
    with pytest.raises(DeadlockError) as e:
        wait(driver, [(y, 1)])
    assert time.monotonic() - start < 5
    assert set(e.value.cycle) == {"P on @dev0", "Q on @dev1"} and e.value.cycle[0] == e.value.cycle[-1]
    assert any(b.waiter == "P on @dev0" and b.semaphore == "x" for b in e.value.blocked)


def test_value_nobody_signals_is_reported(driver: Scheduler) -> None:
    lonely, out = driver.create_semaphore(0, "lonely"), driver.create_semaphore(0, "out")
    driver.submit(sub("dev0", [(lonely, 3)], [(out, 1)], label="stuck batch"))
    with pytest.raises(DeadlockError) as e:
        wait(driver, [(out, 1)])
    reasons = {b.waiter: b.reason for b in e.value.blocked}
    assert "nothing submitted signals it" in reasons["stuck batch"]
    assert "stuck batch" in reasons["host (host wait)"]
    assert "lonely >= 3 (now 0)" in str(e.value)


def test_sync_driver_reports_wait_before_signal() -> None:
    """local-sync runs submissions inline, so one that waits on a later submission's value would
    block forever; the sync driver reports it at once."""
    d = make_driver("sync")
    s, out = d.create_semaphore(0, "s"), d.create_semaphore(0, "out")
    with pytest.raises(DeadlockError) as e:
        bounded(lambda: d.submit(sub("dev0", [(s, 1)], [(out, 1)], label="early waiter")))
    assert "sync driver" in str(e.value) and "early waiter" in str(e.value)
    assert d.pending == set()


def test_sync_driver_runs_inline_in_submission_order() -> None:
    d = make_driver("sync")
    order: list[str] = []
    s = d.create_semaphore(0, "s")
    d.submit(sub("dev0", [], [(s, 1)], lambda ctx: order.append("a")))
    order.append("host")
    d.submit(sub("dev1", [(s, 1)], [(s, 2)], lambda ctx: order.append("b")))
    assert order == ["a", "host", "b"] and s.value == 2


@pytest.mark.parametrize("placement", [(("dev0", 0), ("dev1", 0)), (("dev0", 0), ("dev0", 1))], ids=["devices", "queues"])
def test_device_queues_run_at_the_same_time(placement: tuple[tuple[str, int], tuple[str, int]]) -> None:
    """The task driver's queues are real threads: a batch on @dev0 and one on @dev1 that each
    wait (outside the semaphores) for the other to start can only finish if they overlap; so can
    two queues of one device."""
    d = make_driver("task")
    started = [threading.Event(), threading.Event()]

    def body(i: int) -> Callable[[WorkContext], None]:
        def run(ctx: WorkContext) -> None:
            started[i].set()
            if not started[1 - i].wait(5):
                raise WorkFailure(Status(StatusCode.DEADLINE_EXCEEDED, "the other queue never started"))

        return run

    try:
        a, b = d.create_semaphore(0, "a"), d.create_semaphore(0, "b")
        (dev_a, q_a), (dev_b, q_b) = placement
        d.submit(sub(dev_a, [], [(a, 1)], body(0), queue=q_a))
        d.submit(sub(dev_b, [], [(b, 1)], body(1), queue=q_b))
        wait(d, [(a, 1), (b, 1)])
    finally:
        d.shutdown()


# -- queue-ordered allocation against a pool -----------------------------------------------------------
@pytest.mark.parametrize("name", ("sync", *ASYNC))
def test_basic_alloca(name: str) -> None:
    """After the CTS's BasicAlloca and device.h's canonical sequence: alloca(signal 1),
    execute(wait 1, signal 2), dealloca(wait 2, signal 3); the pool counts the block while it is
    live and the execute sees committed storage."""
    pools = {"dev0": DevicePool("dev0")}
    d = make_driver(name, pools=pools)
    try:
        s = d.create_semaphore(0, "timeline")
        live_during: list[int] = []
        d.submit(Submission("alloca", "dev0", 0, Fence(), ((s, 1),), None, "alloca", memory=256))
        d.submit(sub("dev0", [(s, 1)], [(s, 2)], lambda ctx: live_during.append(pools["dev0"].live)))

        def free(ctx: WorkContext) -> None:
            pools["dev0"].release(256)

        d.submit(Submission("dealloca", "dev0", 0, Fence(((s, 2),)), ((s, 3),), free, "dealloca"))
        wait(d, [(s, 3)])
        assert live_during == [256] and pools["dev0"].live == 0 and pools["dev0"].peak == 256
    finally:
        d.shutdown()

@pytest.mark.parametrize("name", ASYNC)
def test_alloca_parks_on_pool_exhaustion_and_retries_after_dealloca(name: str) -> None:
    """After the CTS's ExplicitFixedBlockPoolNotificationRetry: with 100 bytes of capacity, an
    80-byte alloca waits until the dealloca of an earlier 80-byte block frees it."""
    pools = {"dev0": DevicePool("dev0", capacity=100)}
    d = make_driver(name, seed=2, pools=pools)
    try:
        a1, a2, f1 = (d.create_semaphore(0, n) for n in ("alloca1", "alloca2", "free1"))
        d.submit(Submission("alloca", "dev0", 0, Fence(), ((a1, 1),), None, "alloca 1", memory=80))
        d.submit(Submission("alloca", "dev0", 0, Fence(), ((a2, 1),), None, "alloca 2", memory=80))
        wait(d, [(a1, 1)])
        time.sleep(0.02)
        assert a2.value == 0 and pools["dev0"].live == 80

        def free(ctx: WorkContext) -> None:
            pools["dev0"].release(80)
            with d.lock:
                d.retry_parked()

        d.submit(Submission("dealloca", "dev0", 0, Fence(((a1, 1),)), ((f1, 1),), free, "dealloca 1"))
        wait(d, [(a2, 1)])
        assert pools["dev0"].live == 80 and pools["dev0"].peak == 80
    finally:
        d.shutdown()


def test_alloca_that_can_never_fit_is_a_deadlock() -> None:
    pools = {"dev0": DevicePool("dev0", capacity=64)}
    d = make_driver("task", pools=pools)
    try:
        a = d.create_semaphore(0, "a", external=False)
        d.submit(Submission("alloca", "dev0", 0, Fence(), ((a, 1),), None, "alloca of 100", memory=100))
        with pytest.raises(DeadlockError) as e:
            wait(d, [(a, 1)])
        assert "needs 100 bytes" in str(e.value)
    finally:
        d.shutdown()


def test_concurrent_children_run_on_the_pool_and_overlap() -> None:
    """The task driver's pool runs the children of a large concurrent section at the same time:
    two children that each wait for the other to start can only finish if they overlap."""
    d = make_driver("task", inline_bytes=0)
    try:
        started = [threading.Event(), threading.Event()]

        def child(i: int) -> Callable[[WorkContext], None]:
            def run(ctx: WorkContext) -> None:
                started[i].set()
                if not started[1 - i].wait(5):
                    raise RuntimeError("children did not overlap")

            return run

        s = d.create_semaphore(0, "s")
        d.submit(sub("dev0", [], [(s, 1)], lambda ctx: ctx.run_concurrent([child(0), child(1)], ctx, 1 << 20)))
        wait(d, [(s, 1)])
    finally:
        d.shutdown()


def test_drivers_reuse_their_threads() -> None:
    """Queue workers and pool threads go back to an idle set when a driver shuts down and the
    next driver takes them (as Dask's threaded scheduler keeps its pool): many runs, no leak."""
    def one_run() -> None:
        d = make_driver("chaos", seed=1, inline_bytes=0)
        try:
            s = d.create_semaphore(0, "s")
            d.submit(sub("dev0", [], [(s, 1)], lambda ctx: ctx.run_concurrent([lambda c: None] * 3, ctx, 1 << 20)))
            d.submit(sub("dev1", [(s, 1)], [(s, 2)]))
            wait(d, [(s, 2)])
        finally:
            d.shutdown()

    one_run()
    before = threading.active_count()
    for _ in range(20):
        one_run()
    assert threading.active_count() <= before

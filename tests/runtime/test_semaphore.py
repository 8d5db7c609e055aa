"""Timeline semaphores and fences, after IREE's HAL CTS `cts/core/semaphore_test.cc`.

Each test is named after the CTS case it mirrors; the state machine at the end checks the
semaphore against a three-line model under random sequences of signals, failures and waits.
"""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from runtime.semaphore import FAILURE_VALUE, MAX_VALUE, Fence, TimelineSemaphore, wait_semaphores
from runtime.status import HalError, Status, StatusCode


def test_no_op() -> None:
    sem = TimelineSemaphore(123)
    assert sem.query() == (123, None)


def test_normal_signaling() -> None:
    sem = TimelineSemaphore(2)
    sem.signal(3)
    assert sem.value == 3
    sem.signal(40)
    assert sem.value == 40


def test_signal_must_advance_strictly() -> None:
    sem = TimelineSemaphore(5)
    with pytest.raises(HalError) as e:
        sem.signal(5)
    assert e.value.code is StatusCode.INVALID_ARGUMENT
    with pytest.raises(HalError):
        sem.signal(4)
    assert sem.value == 5


def test_values_are_bounded_like_iree() -> None:
    sem = TimelineSemaphore(0)
    sem.signal(MAX_VALUE)
    with pytest.raises(HalError):
        TimelineSemaphore(MAX_VALUE + 1)


def test_failure() -> None:
    sem = TimelineSemaphore(2)
    sem.fail(Status(StatusCode.UNKNOWN, "boom"))
    value, failure = sem.query()
    assert value == FAILURE_VALUE and failure is not None and failure.code is StatusCode.UNKNOWN


def test_empty_wait() -> None:
    wait_semaphores([], "all", timeout=0)
    wait_semaphores([], "any", timeout=0)
    Fence().wait(timeout=0)


def test_wait_already_signaled() -> None:
    sem = TimelineSemaphore(2)
    sem.wait(1, timeout=0)
    sem.wait(2, timeout=0)
    sem.wait(2, timeout=0)  # a reached value can be waited on any number of times


def test_wait_unsignaled() -> None:
    sem = TimelineSemaphore(2)
    with pytest.raises(HalError) as e:
        sem.wait(3, timeout=0.01)
    assert e.value.code is StatusCode.DEADLINE_EXCEEDED


def test_wait_all_but_not_all_signaled() -> None:
    a, b = TimelineSemaphore(0), TimelineSemaphore(1)
    with pytest.raises(HalError) as e:
        wait_semaphores([(a, 1), (b, 1)], "all", timeout=0.01)
    assert e.value.code is StatusCode.DEADLINE_EXCEEDED


def test_wait_all_and_all_signaled() -> None:
    a, b = TimelineSemaphore(1), TimelineSemaphore(1)
    wait_semaphores([(a, 1), (b, 1)], "all", timeout=0)


def test_wait_any_already_signaled() -> None:
    a, b = TimelineSemaphore(0), TimelineSemaphore(1)
    wait_semaphores([(a, 1), (b, 1)], "any", timeout=0)


def test_fail_then_wait() -> None:
    sem = TimelineSemaphore(0)
    sem.fail(Status(StatusCode.CANCELLED, "stop"))
    with pytest.raises(HalError) as e:
        sem.wait(1, timeout=1)
    assert e.value.code is StatusCode.CANCELLED


def test_failure_preserves_status_code() -> None:
    sem = TimelineSemaphore(0)
    sem.fail(Status(StatusCode.DATA_LOSS, "device lost"))
    assert sem.failure is not None and sem.failure.code is StatusCode.DATA_LOSS
    with pytest.raises(HalError) as e:
        wait_semaphores([(sem, 1)], "all", timeout=1)
    assert e.value.code is StatusCode.ABORTED and "DATA_LOSS" in str(e.value)


def test_double_failure_preserves_first() -> None:
    sem = TimelineSemaphore(0)
    assert sem.fail(Status(StatusCode.CANCELLED, "first"))
    assert not sem.fail(Status(StatusCode.INTERNAL, "second"))
    assert sem.failure is not None and sem.failure.message == "first"


def test_signal_after_failure_is_refused() -> None:
    sem = TimelineSemaphore(0)
    sem.fail(Status(StatusCode.CANCELLED, "stop"))
    with pytest.raises(HalError) as e:
        sem.signal(1)
    assert e.value.code is StatusCode.CANCELLED


def test_wait_before_signal_from_another_thread() -> None:
    sem = TimelineSemaphore(0)
    woke: list[float] = []

    def waiter() -> None:
        sem.wait(2, timeout=5)
        woke.append(time.monotonic())

    t = threading.Thread(target=waiter)
    t.start()
    time.sleep(0.02)
    sem.signal(1)
    time.sleep(0.02)
    assert not woke  # 1 does not satisfy ">= 2"
    signalled = time.monotonic()
    sem.signal(2)
    t.join(5)
    assert woke and woke[0] >= signalled


def test_failure_wakes_a_blocked_waiter() -> None:
    sem = TimelineSemaphore(0)
    errors: list[HalError] = []

    def waiter() -> None:
        try:
            sem.wait(1, timeout=5)
        except HalError as e:
            errors.append(e)

    t = threading.Thread(target=waiter)
    t.start()
    time.sleep(0.02)
    sem.fail(Status(StatusCode.ABORTED, "gone"))
    t.join(5)
    assert len(errors) == 1 and errors[0].code is StatusCode.ABORTED


def test_callbacks_fire_once_in_order_of_reaching() -> None:
    sem = TimelineSemaphore(0)
    fired: list[tuple[int, object]] = []
    for v in (3, 1, 2):
        sem.on_reached(v, lambda status, v=v: fired.append((v, status)))
    sem.signal(1)
    assert fired == [(1, None)]
    sem.signal(3)
    assert sorted(fired, key=lambda p: p[0]) == [(1, None), (2, None), (3, None)]
    sem.on_reached(2, lambda status: fired.append((-2, status)))  # already reached: immediate
    assert fired[-1] == (-2, None)


def test_fence_keeps_the_max_value_per_semaphore() -> None:
    a, b = TimelineSemaphore(0), TimelineSemaphore(0)
    f = Fence.join([Fence(((a, 1),)), Fence(((a, 3), (b, 2))), Fence(((a, 2),))])
    assert sorted((s.name, v) for s, v in f.points) == sorted([(a.name, 3), (b.name, 2)])
    assert not f.reached()
    a.signal(3)
    b.signal(2)
    assert f.reached() and f.failure() is None
    assert Fence().reached() and Fence().is_immediate


class SemaphoreModel(RuleBasedStateMachine):
    """A timeline semaphore against its model: a payload, a first failure, pending waits."""

    def __init__(self) -> None:
        super().__init__()
        self.sem = TimelineSemaphore(0)
        self.value = 0
        self.failure: str | None = None
        self.waits: list[tuple[int, list[object]]] = []

    @rule(delta=st.integers(-2, 3))
    def signal(self, delta: int) -> None:
        target = self.value + delta
        if self.failure is None and target > self.value:
            self.sem.signal(target)
            self.value = target
        else:
            with pytest.raises(HalError):
                self.sem.signal(target)

    @rule(msg=st.sampled_from(["a", "b"]))
    def fail(self, msg: str) -> None:
        first = self.sem.fail(Status(StatusCode.ABORTED, msg))
        assert first == (self.failure is None)
        if self.failure is None:
            self.failure = msg

    @rule(value=st.integers(0, 8))
    def register_wait(self, value: int) -> None:
        seen: list[object] = []
        self.sem.on_reached(value, seen.append)
        self.waits.append((value, seen))

    @invariant()
    def matches_model(self) -> None:
        value, failure = self.sem.query()
        if self.failure is None:
            assert value == self.value and failure is None
        else:
            assert value == FAILURE_VALUE and failure is not None and failure.message == self.failure
        for target, seen in self.waits:
            assert len(seen) <= 1  # a callback fires at most once
            reached_before_failure = seen == [None]
            if reached_before_failure:
                assert target <= self.value
            if seen:
                assert reached_before_failure or (self.failure is not None and isinstance(seen[0], Status))
            else:
                assert self.failure is None and target > self.value


TestSemaphoreModel = SemaphoreModel.TestCase
TestSemaphoreModel.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)

"""Verifying pass outputs in forked processes while the next passes run.

The verification of a pass output (the hook: structural checks, the safety proof, refinement
against the pass input) reads two immutable modules and nothing the next pass writes, so it can
run at the same time as the next transform. `ForkedVerifier` runs each `hook(before, after,
name)` in a child made by `os.fork()`: the child sees the modules as they are (copy-on-write, no
serialization), runs the hook, and writes its outcome to a file the parent reads back.

What comes back, and why it is enough:

* a passing hook returns its report: the child pickles it with `report.module` left out (the
  parent puts its own `after` back), and the parent records it exactly as a serial run would;
* anything else (the hook raised `PassVerificationError`, another exception, the child died or
  its report could not be pickled) comes back as "not passed" and nothing more: the caller runs
  the same hook again in its own process, which raises the very exception a serial run raises
  (the hook is deterministic), with its full report and evidence.

So a forked run proves exactly what a serial run proves: every pass output goes through the same
hook, a pass is recorded as proved only when its hook returned normally, and a failure is the
serial run's failure. Only the wall time differs (and the child's own caches, such as the hook's
record of functions proved before, which the parent does not see: a child may check again a
function a serial run would have reused, never the reverse).

Only where `os.fork` exists (POSIX); `available()` says whether it does.
"""

from __future__ import annotations

import os
import pickle
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stream.ir.core import Module
from stream.ir.gc_pause import paused_gc

__all__ = ["ForkedVerifier", "Outcome", "available"]


def available() -> bool:
    return hasattr(os, "fork")


@dataclass(slots=True)
class Outcome:
    """What one forked verification gave: the report when the hook returned normally (else
    None: run the hook again in-process for its exception), and the child's seconds."""

    report: Any
    seconds: float


@dataclass(slots=True)
class _Child:
    pid: int
    path: str
    after: Module


class ForkedVerifier:
    """At most `workers` forked verifications at once; `submit` waits for a free one."""

    def __init__(self, hook: Callable[[Module, Module, str], Any], workers: int) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.hook = hook
        self.workers = workers
        self.running: dict[int, _Child] = {}  # ticket -> child
        self.done: dict[int, Outcome] = {}

    def submit(self, ticket: int, before: Module, after: Module, name: str) -> None:
        while len(self.running) >= self.workers:
            self._reap(block=True)
        fd, path = tempfile.mkstemp(prefix="streamproof-verify-", suffix=".pickle")
        os.close(fd)
        pid = os.fork()
        if pid == 0:  # the child: verify, write the outcome, leave without running any cleanup
            # A short life with no collections: a collection writes to the header of every object
            # it scans, which would copy every page of the parent's heap into the child.
            code = 0
            try:
                with paused_gc():
                    _verify_in_child(self.hook, before, after, name, path)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        self.running[ticket] = _Child(pid, path, after)

    def result(self, ticket: int) -> Outcome:
        """The outcome of `ticket`, waiting for it if it is still running."""
        while ticket not in self.done:
            if ticket not in self.running:
                raise KeyError(f"no verification {ticket} was submitted")
            self._reap(block=True)
        return self.done.pop(ticket)

    def ready(self, ticket: int) -> bool:
        """Whether `ticket`'s outcome is in (collecting every child that has finished)."""
        self._reap(block=False)
        return ticket in self.done

    def close(self) -> None:
        """Stop every child still running (the pipeline failed or was interrupted)."""
        for child in self.running.values():
            try:
                os.kill(child.pid, signal.SIGKILL)
                os.waitpid(child.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            _remove(child.path)
        self.running.clear()

    def _reap(self, block: bool) -> None:
        """Collect every child that has ended; with `block`, wait until at least one has."""
        while self.running:
            ended = False
            for ticket, child in list(self.running.items()):
                pid, _status = os.waitpid(child.pid, os.WNOHANG)
                if pid:
                    del self.running[ticket]
                    self.done[ticket] = _read(child)
                    ended = True
            if ended or not block:
                return
            time.sleep(0.005)  # verifications take tenths of seconds to minutes: polling is free


def _verify_in_child(hook: Callable[[Module, Module, str], Any], before: Module, after: Module, name: str, path: str) -> None:
    start = time.perf_counter()
    try:
        report = hook(before, after, name)
    except BaseException:
        report = None  # the parent runs the hook again for the exception itself
    if report is not None and hasattr(report, "module"):
        report.module = None  # the parent has it; a module does not need to travel
    outcome = Outcome(report, time.perf_counter() - start)
    try:
        data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        data = pickle.dumps(Outcome(None, outcome.seconds))
    with open(path, "wb") as f:
        f.write(data)


def _read(child: _Child) -> Outcome:
    try:
        with open(child.path, "rb") as f:
            outcome = pickle.load(f)
    except Exception:
        outcome = Outcome(None, 0.0)  # the child died before writing: verify in-process
    finally:
        _remove(child.path)
    if not isinstance(outcome, Outcome):
        return Outcome(None, 0.0)
    if outcome.report is not None and hasattr(outcome.report, "module"):
        outcome.report.module = child.after
    return outcome


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass

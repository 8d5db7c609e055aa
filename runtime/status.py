"""Status codes and the errors the runtime raises.

The codes are IREE's (`iree_status_code_t`), because users read IREE's runtime messages and the
simulation is meant to behave like IREE's HAL: a failure is a `Status` carried by semaphores from
the failing submission to everything that waits on it, and finally to the host.

Errors a user sees:

* `ExecutionError` - the program failed while running (a kernel raised, memory was used after it
  was freed, ...). It names the op, its source location and the original error.
* `DeadlockError` - nothing can make progress and some wait can never be met. It names every
  blocked wait and why (a cycle, or a value nobody will signal).
* `HalError` - misuse of the HAL-level API (signalling a semaphore backwards, a wait that timed
  out); the `code` says which.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

__all__ = ["StatusCode", "Status", "HalError", "ExecutionError", "DeadlockError", "BlockedWait", "MAX_CALL_DEPTH",
           "call_depth_exceeded"]

# How deep `util.call`/`func.call` may nest at run time (the executor and the reference
# interpreter alike). IREE's programs do not recurse; a call chain this deep is a recursion that
# does not end, reported as an error (exit 1) rather than exhausting Python's stack.
MAX_CALL_DEPTH = 256


class StatusCode(enum.Enum):
    """IREE's status codes (the subset the simulation produces)."""

    OK = 0
    CANCELLED = 1
    UNKNOWN = 2
    INVALID_ARGUMENT = 3
    DEADLINE_EXCEEDED = 4
    RESOURCE_EXHAUSTED = 8
    FAILED_PRECONDITION = 9
    ABORTED = 10
    OUT_OF_RANGE = 11
    UNIMPLEMENTED = 12
    INTERNAL = 13
    DATA_LOSS = 15


@dataclass(frozen=True, slots=True)
class Status:
    """A failure: its code, a message, and where it happened.

    `origin` names the submission or command that failed first (e.g. "stream.cmd.dispatch @matmul
    at prog.mlir:12:9 on @dev0"); `cause` is the original Python exception (a kernel's ValueError),
    kept so that the host can re-raise it with its traceback chained.
    """

    code: StatusCode
    message: str
    origin: str = ""
    cause: BaseException | None = field(default=None, compare=False)

    def describe(self) -> str:
        where = f"{self.origin}: " if self.origin else ""
        return f"{where}{self.message}"

    def __str__(self) -> str:
        return f"{self.code.name}; {self.describe()}"


class HalError(Exception):
    """A HAL-level API error with an IREE status code (signal going backwards, wait timeout,
    waiting on a failed semaphore)."""

    def __init__(self, status: Status) -> None:
        super().__init__(str(status))
        self.status = status

    @property
    def code(self) -> StatusCode:
        return self.status.code


class ExecutionError(Exception):
    """The program failed while running. `status` is the first failure, as propagated through
    the semaphores to the host wait that observed it."""

    def __init__(self, status: Status, observed_at: str = "") -> None:
        text = status.describe()
        if observed_at:
            text += f"\n  observed at: {observed_at}"
        super().__init__(text)
        self.status = status
        self.observed_at = observed_at


@dataclass(frozen=True, slots=True)
class BlockedWait:
    """One submission (or the host) waiting on a timepoint that will never be reached."""

    waiter: str  # "execute on @dev0 at prog.mlir:12:5" or "host: stream.timepoint.await at ..."
    semaphore: str  # the semaphore's name
    value: int  # the value waited for
    current: int  # the value the semaphore holds
    reason: str  # "cycle: ..." or "nobody signals it" / "only <x>, itself blocked, signals it"

    def __str__(self) -> str:
        return f"{self.waiter} waits for {self.semaphore} >= {self.value} (now {self.current}): {self.reason}"


class DeadlockError(Exception):
    """No submission can make progress and some wait can never be met."""

    def __init__(self, summary: str, blocked: tuple[BlockedWait, ...] = (), cycle: tuple[str, ...] = ()) -> None:
        lines = [summary]
        if cycle:
            lines.append("  cycle: " + " -> ".join(cycle))
        lines.extend(f"  {b}" for b in blocked)
        super().__init__("\n".join(lines))
        self.summary = summary
        self.blocked = blocked
        self.cycle = cycle


def call_depth_exceeded(stack: list[str], callee: str, where: str) -> ExecutionError:
    """The error for a call of `callee` (at `where`) made with `stack` (function names, outermost
    first) already `MAX_CALL_DEPTH` deep."""
    cycle = ""
    if callee in stack:
        loop = stack[len(stack) - 1 - stack[::-1].index(callee):]
        cycle = " (recursion: " + " -> ".join("@" + n for n in [*loop, callee]) + ")"
    message = (f"call depth exceeds {MAX_CALL_DEPTH} (streamproof's limit, MAX_CALL_DEPTH): @{stack[-1]} calls @{callee}"
               f"{cycle}; a recursion without end?")
    return ExecutionError(Status(StatusCode.RESOURCE_EXHAUSTED, message, where))

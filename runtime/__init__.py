"""The numpy-backed asynchronous multi-device executor (SPEC section 6).

A faithful simulation of IREE's HAL on numpy: timeline semaphores (`runtime.semaphore`), devices
with their own memory and queue-ordered pools (`runtime.memory`), queue submissions ordered only by
semaphores (`runtime.scheduler`), three drivers (`runtime.drivers`: sync, task, chaos), command
buffers with serial and concurrent sections (`runtime.commands`), the host side of cmd-level
programs (`runtime.executor`, `runtime.host_ops`), host control flow shared by both interpreters (`runtime.control_flow`:
blocks, branches, `scf`), numpy kernels (`runtime.kernels`), the reference interpreter for
input-level programs (`runtime.reference`), a vector-clock race detector (`runtime.races`, with what
each value carries across iterations in `runtime.gates`) and
Chrome/Perfetto traces (`runtime.trace`). `runtime` imports only `stream` (the IR).

    from runtime import run_module, run_reference, kernel
"""

from __future__ import annotations

from runtime.api import RunResult, RunStats, run_module, run_reference, run_reference_calls, select_function
from runtime.drivers import ChaosDriver, SyncDriver, TaskDriver, make_driver
from runtime.kernels import DEFAULT_REGISTRY, Kernel, KernelError, KernelRegistry, kernel, load_kernel_file
from runtime.races import Finding
from runtime.semaphore import Fence, TimelineSemaphore
from runtime.status import DeadlockError, ExecutionError, HalError, Status, StatusCode
from runtime.trace import Tracer
from runtime.values import BufferView, InputError, format_value, parse_input

__all__ = [
    "BufferView",
    "ChaosDriver",
    "DEFAULT_REGISTRY",
    "DeadlockError",
    "ExecutionError",
    "Fence",
    "Finding",
    "HalError",
    "InputError",
    "Kernel",
    "KernelError",
    "KernelRegistry",
    "RunResult",
    "RunStats",
    "Status",
    "StatusCode",
    "SyncDriver",
    "TaskDriver",
    "TimelineSemaphore",
    "Tracer",
    "format_value",
    "kernel",
    "load_kernel_file",
    "make_driver",
    "parse_input",
    "run_module",
    "run_reference",
    "run_reference_calls",
    "select_function",
]

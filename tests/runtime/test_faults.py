"""Kernel failures, deadlocks and external fences: every run ends, with a clear error.

* a kernel exception fails its submission's semaphores; everything downstream fails without
  running, and the host await that observes it raises with the kernel's name, the dispatch's
  location and the original exception (kept as the status's cause);
* a failure no host wait covers still surfaces, at the end of the function;
* a wait that can never be met (an external fence nobody signals) is a DeadlockError naming it;
* memory is released in every case (the pools end at zero live bytes);
* the coarse-fences ABI: `timepoint.import` of a wait fence and `chain_external` to a signal fence.
"""

from __future__ import annotations

import numpy as np
import pytest
from rt_support import DRIVERS, bounded, parse

from runtime import DeadlockError, ExecutionError, Fence, HalError, KernelRegistry, make_driver, run_module
from runtime.kernels import DEFAULT_REGISTRY
from runtime.memory import DevicePool

PROGRAM = """
util.func public @f(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %x = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %a, %ta = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) : !stream.resource<transient>{%c32} => !stream.timepoint
  %b, %tb = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev1>) : !stream.resource<external>{%c16} => !stream.timepoint
  %e1 = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%ta) => with(%x as %in: !stream.resource<external>{%c16}, %a as %tmp: !stream.resource<transient>{%c32}) {
    stream.cmd.concurrent {
      stream.cmd.dispatch @FIRST {
        ro %in[%c0 for %c16] : !stream.resource<external>{%c16},
        wo %tmp[%c0 for %c16] : !stream.resource<transient>{%c32}
      } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
      stream.cmd.dispatch @relu {
        ro %in[%c0 for %c16] : !stream.resource<external>{%c16},
        wo %tmp[%c16 for %c16] : !stream.resource<transient>{%c32}
      } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
    }
  } => !stream.timepoint
  %j = stream.timepoint.join max(%e1, %tb) => !stream.timepoint
  %e2 = stream.cmd.execute on(#hal.device.affinity<@dev1>) await(%j) => with(%a as %tmp: !stream.resource<transient>{%c32}, %b as %out: !stream.resource<external>{%c16}) {
    stream.cmd.dispatch @neg {
      ro %tmp[%c0 for %c16] : !stream.resource<transient>{%c32},
      wo %out[%c0 for %c16] : !stream.resource<external>{%c16}
    } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
  } => !stream.timepoint
  %d = stream.resource.dealloca on(#hal.device.affinity<@dev0>) await(%e2) => %a : !stream.resource<transient>{%c32} => !stream.timepoint
  %w = stream.timepoint.await %d => %b : !stream.resource<external>{%c16}
  %o = stream.tensor.export on(#hal.device.affinity<@dev1>) %w : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
"""


def exploding_registry() -> KernelRegistry:
    reg = KernelRegistry(DEFAULT_REGISTRY)

    def explode(x, out):  # type: ignore[no-untyped-def]
        raise ValueError(f"cannot handle shape {x.shape}")

    reg.register("explode", explode)
    return reg


@pytest.mark.parametrize("driver", DRIVERS)
def test_kernel_exception_surfaces_at_the_host_await(driver: str) -> None:
    pools: dict[str, DevicePool] = {}
    module = parse(PROGRAM.replace("@FIRST", "@explode"))
    with pytest.raises(ExecutionError) as e:
        bounded(lambda: run_module(module, [np.ones(4, np.float32)], driver=driver, kernels=exploding_registry(),
                                   pools=pools, inline_bytes=0))
    msg = str(e.value)
    assert "kernel 'explode' failed: ValueError: cannot handle shape (4,)" in msg
    assert "stream.cmd.dispatch @explode at test.mlir:11:7 on @dev0" in msg
    assert "observed at: stream.timepoint.await at test.mlir:29:3" in msg
    assert isinstance(e.value.status.cause, ValueError)
    assert pools and all(p.live == 0 for p in pools.values())


def test_downstream_submissions_do_not_run_after_a_failure() -> None:
    ran: list[str] = []
    reg = exploding_registry()
    reg.register("neg", lambda x, out: ran.append("neg"))
    module = parse(PROGRAM.replace("@FIRST", "@explode"))
    with pytest.raises(ExecutionError):
        bounded(lambda: run_module(module, [np.ones(4, np.float32)], driver="task", kernels=reg))
    assert ran == []


def test_failure_no_host_wait_covers_surfaces_at_the_end() -> None:
    text = PROGRAM.replace("@FIRST", "@explode").replace("await %d => %b", "await %tb => %b")
    with pytest.raises(ExecutionError) as e:
        bounded(lambda: run_module(parse(text), [np.ones(4, np.float32)], driver="task", kernels=exploding_registry()))
    assert "kernel 'explode' failed" in str(e.value) and "the end of @f" in str(e.value)


def test_good_kernels_give_the_result() -> None:
    x = np.array([1.0, -2.0, 3.0, -4.0], np.float32)
    (got,) = run_module(parse(PROGRAM.replace("@FIRST", "@relu")), [x], driver="task").results
    np.testing.assert_array_equal(got, -np.maximum(x, 0))


FENCED = """
util.func public @fenced(%arg0: !hal.buffer_view, %wait: !hal.fence, %signal: !hal.fence) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %x = stream.tensor.import on(#hal.device.affinity<@dev0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
  %tw = stream.timepoint.import on(#hal.device.affinity<@dev0>) %wait : (!hal.fence) => !stream.timepoint
  %r, %tr = stream.resource.alloca uninitialized on(#hal.device.affinity<@dev0>) await(%tw) => !stream.resource<external>{%c16} => !stream.timepoint
  %e = stream.cmd.execute on(#hal.device.affinity<@dev0>) await(%tr) => with(%x as %in: !stream.resource<external>{%c16}, %r as %out: !stream.resource<external>{%c16}) {
    stream.cmd.dispatch @exp {
      ro %in[%c0 for %c16] : !stream.resource<external>{%c16},
      wo %out[%c0 for %c16] : !stream.resource<external>{%c16}
    } attributes {streamproof.binding_types = [tensor<4xf32>, tensor<4xf32>]}
  } => !stream.timepoint
  stream.timepoint.chain_external on(#hal.device.affinity<@dev0>) %e => (%signal : !hal.fence)
  %w = stream.timepoint.await %e => %r : !stream.resource<external>{%c16}
  %o = stream.tensor.export on(#hal.device.affinity<@dev0>) %w : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
  util.return %o : !hal.buffer_view
}
"""


def test_coarse_fences_abi_waits_and_signals_caller_fences() -> None:
    d = make_driver("task")
    wait_sem, signal_sem = d.create_semaphore(0, "caller wait"), d.create_semaphore(0, "caller signal")
    d.host_signal(wait_sem, 1)
    x = np.array([0.0, 1.0, 2.0, 3.0], np.float32)
    result = bounded(lambda: run_module(parse(FENCED), [x, Fence(((wait_sem, 1),)), Fence(((signal_sem, 1),))], driver=d))
    np.testing.assert_allclose(result.results[0], np.exp(x), rtol=1e-6)
    assert signal_sem.value == 1


def test_fences_default_to_immediate_wait_and_fresh_signal() -> None:
    x = np.zeros(4, np.float32)
    (got,) = run_module(parse(FENCED), [x, None, None], driver="sync").results
    np.testing.assert_array_equal(got, np.ones(4, np.float32))


@pytest.mark.parametrize("name", DRIVERS)
def test_wait_fence_nobody_signals_is_a_deadlock(name: str) -> None:
    pools: dict[str, DevicePool] = {}
    d = make_driver(name, pools=pools)
    never = d.create_semaphore(0, "caller wait fence")
    with pytest.raises(DeadlockError) as e:
        bounded(lambda: run_module(parse(FENCED), [np.ones(4, np.float32), Fence(((never, 1),)), None], driver=d))
    assert "caller wait fence >= 1 (now 0)" in str(e.value)
    assert all(p.live == 0 for p in pools.values())


@pytest.mark.parametrize("name", DRIVERS)
def test_waiting_on_the_fence_the_function_signals_is_a_cycle(name: str) -> None:
    """The caller passes one fence as both the wait and the signal fence: the alloca waits for
    what the chain_external after it signals. The report names the cycle (on the sync driver:
    the wait that can never be met when the alloca is submitted)."""
    pools: dict[str, DevicePool] = {}
    d = make_driver(name, pools=pools)
    fence = Fence(((d.create_semaphore(0, "caller fence"), 1),))
    with pytest.raises(DeadlockError) as e:
        bounded(lambda: run_module(parse(FENCED), [np.ones(4, np.float32), fence, fence], driver=d), 10)
    assert "caller fence >= 1 (now 0)" in str(e.value)
    if name != "sync":
        assert any("chain_external" in step for step in e.value.cycle) and any("alloca" in step for step in e.value.cycle)
    assert all(p.live == 0 for p in pools.values())


def test_a_semaphore_of_another_driver_is_refused() -> None:
    other = make_driver("sync").create_semaphore(0, "foreign")
    with pytest.raises(HalError, match="not created by this driver"):
        run_module(parse(FENCED), [np.ones(4, np.float32), Fence(((other, 1),)), None], driver="task")

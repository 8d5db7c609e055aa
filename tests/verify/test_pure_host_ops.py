"""Pure host ops and awaited values (issue 9 item 1, the strict part; `stream.dialect.awaits`).

`stream.tensor.export`, `stream.async.load` / `store` and `stream.tensor.load` / `store` are
`Stream_PureOp`s in IREE's StreamOps.td (`resource.load` / `resource.store` are not): one that uses
an awaited value is ordered after the await, but it does not make the host wait, so a later host
op is ordered after the awaited work only if it uses the pure op's results (SSA order) or an
awaited value itself. The verifier, the passes (propagate-timepoints, the coverage analysis) and
the race detector (`tests/runtime/test_races.py`, `export_after_export`) share that rule.
"""

from __future__ import annotations

import stream.ir as ir
from stream.ir.spec import view
from stream.ir.walk import functions
from streamproof import api
from verify import verify_module

ASYNC = """
util.func public @dhd() -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c123_i8 = arith.constant 123 : i8
  %0 = stream.async.splat %c123_i8 : i8 -> !stream.resource<transient>{%c1}
  %1 = stream.async.transfer %0 : !stream.resource<transient>{%c1} -> !stream.resource<staging>{%c1}
  %2 = stream.async.load %1[%c0] : !stream.resource<staging>{%c1} -> i8
  %3 = arith.addi %2, %2 : i8
  %4 = stream.async.store STORED, %1[%c0] : i8 -> %1 as !stream.resource<staging>{%c1}
  %5 = stream.async.transfer %4 : !stream.resource<staging>{%c1} -> !stream.resource<transient>{%c1}
  util.return %5 : !stream.resource<transient>
}
"""


def classes(m: ir.Module) -> set[str]:
    return {v.cls for v in verify_module(m).violations if v.severity == "error"}


def scheduled(stored: str) -> ir.Module:
    return api.compile(ASYNC.replace("STORED", stored), pipeline="schedule-execution", verify="none").module


def test_a_pure_op_using_a_pure_ops_result_is_ordered_after_it() -> None:
    """The host load and the in-place host store of the awaited staging value are both pure: the
    store is ordered after the load because it stores what the load returned (plus itself), and
    the region capturing the stored value after the store. Schedule-execution's output is proved."""
    m = scheduled("%3")
    text = ir.print_module(m)
    assert "stream.async.load" in text and "stream.async.store" in text
    assert verify_module(m).ok


def test_a_pure_store_that_does_not_use_the_load_is_not_ordered_after_it() -> None:
    """Storing a constant: nothing orders the pure load before the in-place pure store that
    replaces the value it reads (IREE may swap them)."""
    m = scheduled("%c123_i8")
    assert "RACE_WRITE_AFTER_READ" in classes(m)


def test_a_region_using_a_loaded_value_needs_no_device_wait() -> None:
    """The second region captures the staging value the host stored (from what it loaded after
    awaiting the first region): propagate-timepoints adds no device wait for the first region, and
    the output is proved (the wait is implied through SSA)."""
    out = api.compile(ASYNC.replace("STORED", "%3"), pipeline="schedule-execution,propagate-timepoints", verify="none").module
    (f,) = functions(out)
    executes = [op for op in f.body.ops if op.name == "stream.async.execute"]
    assert len(executes) == 2
    assert view(executes[1]).await_timepoint is None
    assert verify_module(out).ok

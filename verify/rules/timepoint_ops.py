"""`stream.timepoint.*`: the timeline (SPEC §3.1 rules 2 and 3).

* `immediate`: already reached (no constraint);
* `join`: reached once every input is reached;
* `await`: a pure op (`stream.dialect.awaits`): its results are its operands under new names
  (ready when the operands are) that carry the timepoint; `verify.model.build_model` orders the
  ops using them after it. Only an await marked `sync` is a host wait ordering every later host
  op and issue;
* `barrier`: the resource passes through; the timepoint is reached no earlier than the barrier
  is issued, (at the async level) than the resource is ready, and than the awaits the resource
  comes through;
* `import`: reached by someone outside, unless this function signals the same external value
  itself (then only after that signal: a wait on it before the signal is a deadlock); the import
  of a wait fence (`stream.dialect.abi`) is the point every input access must follow;
* `export` / `chain_external`: hand the timepoint to the outside; `chain_external` fences mark
  when the caller may observe the function's memory (the async ABI).
"""

from __future__ import annotations

from stream.dialect.awaits import awaited_timepoint, is_sync_await
from stream.ir.core import Op
from stream.ir.types import TimepointType
from verify.model import Builder
from verify.rules.table import effect


@effect("stream.timepoint.immediate")
def immediate(b: Builder, op: Op) -> None:
    b.timepoint(op.results[0], None)


@effect("stream.timepoint.join")
def join(b: Builder, op: Op) -> None:
    inputs = [b.model.tp_event.get(t) for t in op.operands]
    preds = [(e, "joined") for e in inputs if e is not None]
    if not preds:
        b.timepoint(op.results[0], None)
    elif len(preds) == 1:
        b.timepoint(op.results[0], preds[0][0])
    else:
        b.timepoint(op.results[0], b.reach("join", preds))


@effect("stream.timepoint.await")
def await_(b: Builder, op: Op) -> None:
    if is_sync_await(op):
        site = b.host(op, "sync await")
        e = b.model.tp_event.get(awaited_timepoint(op))
        if e is not None:
            b.graph.edge(e, site.start, "sync await")
    for operand, result in zip(op.operands, op.results):
        ready = b.model.ready.get(operand)
        if ready is not None:
            b.model.ready[result] = ready


@effect("stream.timepoint.barrier")
def barrier(b: Builder, op: Op) -> None:
    site = b.host(op, "barrier")
    preds = [(site.start, "barrier issued")]
    ready = b.model.ready.get(op.operands[0])
    if ready is not None:
        preds.append((b.exit_event(ready), "covers the resource's producer"))
        b.model.ready[op.results[0]] = ready
    b.timepoint(op.results[1], b.reach("barrier", preds))


@effect("stream.timepoint.import")
def import_(b: Builder, op: Op) -> None:
    b.host(op, "timepoint import")
    if len(op.operands) == 1 and op.operands[0] in b.model.wait_fences:
        # The caller's wait fence: reached by the caller (never by this function); every input
        # access must be ordered after it (`verify.obligations.wait_fence`).
        b.timepoint(op.results[0], b.wait_fence_site(op.operands[0], op).start)
        return
    reach = b.reach("imported timepoint", [])
    b.external_wait(reach, op.operands)
    b.timepoint(op.results[0], reach)


@effect("stream.timepoint.export")
def export(b: Builder, op: Op) -> None:
    b.host(op, "timepoint export")
    e = b.model.tp_event.get(op.operands[0])
    for r in op.results:
        b.external_source(r, e)


@effect("stream.timepoint.chain_external")
def chain_external(b: Builder, op: Op) -> None:
    site = b.host(op, "chain_external")
    t = op.operands[0]
    preds = [(site.start, "chained")]
    e = b.model.tp_event.get(t) if isinstance(t.type, TimepointType) else None
    if e is not None:
        preds.append((e, "fence signalled when reached"))
    signal = b.reach("external fence signalled", preds, op)
    b.external_signal(tuple(op.operands[1:]), signal)
    fence = b.graph.site_of[signal]
    assert fence is not None
    b.model.completions.append(fence)

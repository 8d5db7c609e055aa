"""Region ops: execute regions (device submissions) and the containers nested in them.

* `stream.async.execute` / `stream.cmd.execute`: a device op; it starts once issued and every
  awaited timepoint is reached; its body runs in block order; its result timepoint is reached
  after it ends. At the async level the captured values must be ready when it starts and its
  results are ready at its timepoint.
* `stream.async.concurrent`, `stream.cmd.concurrent`: children unordered among themselves.
* `stream.cmd.serial`: children in block order.
"""

from __future__ import annotations

from stream.ir.core import Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.types import ResourceType
from verify.model import Builder, RangeCheck
from verify.rules.table import effect
from verify.storage import spec_for
from verify.symbolic import ZERO


def _execute_name(b: Builder, op: Op) -> str:
    k = len(b.model.executes) + 1
    b.model.executes[op] = k
    return f"execute #{k}"


@effect("stream.async.execute", "stream.cmd.execute")
def execute(b: Builder, op: Op) -> None:
    spec = spec_for(op)
    assert spec is not None
    name = _execute_name(b, op)
    await_tp = spec.operand_group(op, "await_timepoint")
    site = b.submit(op, tuple(await_tp), name)
    for outer in spec.operand_group(op, "resource_operands"):
        b.use(site, outer)
    _capture_sizes(b, op, site)
    b.open(site, parallel=False, context=f"{name} on {site.lane}")
    b.walk(op.regions[0].blocks[0].ops)
    b.close()
    if "results" in spec._result_index:
        b.produce(site, spec.result_group(op, "results"))
    b.timepoint(op.results[-1], site.end)


def _capture_sizes(b: Builder, op: Op, site: object) -> None:
    """A capture may not claim more bytes than the captured resource has."""
    block = op.regions[0].blocks[0]
    spec = spec_for(op)
    assert spec is not None
    for i, (outer, inner) in enumerate(zip(spec.operand_group(op, "resource_operands"), block.arguments)):
        ov, iv = b.view(outer), b.view(inner)
        if ov is not None and iv is not None and iv.size != ov.size:
            b.model.ranges.append(RangeCheck(site, op, f"capture #{i}", ZERO, iv.size, ov.size, None, outer))  # type: ignore[arg-type]


def _container(b: Builder, op: Op, parallel: bool) -> None:
    if not b.in_region:
        raise DiagnosticError.at(op.location, f"'{op.name}' must be nested in an execute region")
    parent = b.frames[-1].context
    site = b.nested(op)
    spec = spec_for(op)
    if spec is not None and "resource_operands" in spec._operand_index:
        for outer in spec.operand_group(op, "resource_operands"):
            if isinstance(outer.type, ResourceType):
                b.use(site, outer)
    if "resource_operands" in (spec._operand_index if spec is not None else {}):
        _capture_sizes(b, op, site)
    short = op.name.removeprefix("stream.")
    b.open(site, parallel, f"{short} in {parent}")
    b.walk(op.regions[0].blocks[0].ops)
    b.close()
    b.produce(site, op.results)


@effect("stream.async.concurrent", "stream.cmd.concurrent")
def concurrent(b: Builder, op: Op) -> None:
    _container(b, op, parallel=True)


@effect("stream.cmd.serial")
def serial(b: Builder, op: Op) -> None:
    _container(b, op, parallel=False)

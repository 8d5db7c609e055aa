"""`stream.resource.*`: allocation, deallocation, ownership, views, packing and host access.

* `alloca`: a device op (queue-ordered); the memory is usable once its timepoint is reached;
* `dealloca`: a device op; the memory must not be touched once it starts (everything that uses
  it must happen before), and is reusable after its timepoint;
* `alloc`: a synchronous host allocation, usable at once;
* `retain` / `release`: host ownership claims; a release that drops the last claim frees;
* `subview`: an alias (its range must lie in the source); `pack`: slice layout facts;
* `constants`: a device upload; each result is written by it and ready at its timepoint;
* `load` / `store`: host reads and writes of staging memory.
"""

from __future__ import annotations

from stream.ir.core import Op
from stream.ir.spec import OpSpec
from stream.ir.types import element_byte_width
from verify.model import READ, WRITE, Builder, RangeCheck
from verify.rules.table import effect
from verify.storage import spec_for
from verify.symbolic import const


def _spec(op: Op) -> OpSpec:
    spec = spec_for(op)
    assert spec is not None
    return spec


@effect("stream.resource.alloca")
def alloca(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.submit(op, tuple(spec.operand_group(op, "await_timepoint")), "alloca")
    view = b.view(op.results[0])
    if view is not None:
        b.model.allocas[view.alloc.id] = site
    b.produce(site, (op.results[0],))
    b.timepoint(op.results[1], site.end)


@effect("stream.resource.dealloca")
def dealloca(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.submit(op, tuple(spec.operand_group(op, "await_timepoint")), "dealloca")
    view = b.view(spec.operand_group(op, "operand")[0])
    if view is not None:
        b.model.deallocas.append((site, view.alloc))
    b.timepoint(op.results[0], site.end)


@effect("stream.resource.alloc")
def alloc(b: Builder, op: Op) -> None:
    b.host(op, "alloc")


@effect("stream.resource.retain", "stream.resource.release")
def ownership(b: Builder, op: Op) -> None:
    site = b.host(op, op.name.rsplit(".", 1)[-1])
    view = b.view(op.operands[0])
    if view is not None:
        b.model.retains.append((site, view.alloc, +1 if op.name.endswith("retain") else -1))


@effect("stream.resource.subview")
def subview(b: Builder, op: Op) -> None:
    spec = _spec(op)
    source = spec.operand_group(op, "source")[0]
    view = b.view(source)
    if view is not None:
        offset = b.symbols.expr(spec.operand_group(op, "source_offset")[0])
        length = b.symbols.expr(spec.operand_group(op, "result_size")[0])
        b.model.ranges.append(RangeCheck(None, op, "the subview range", offset, length, view.size, None, source))
    ready = b.model.ready.get(source)
    if ready is not None:
        b.model.ready[op.results[0]] = ready


@effect("stream.resource.pack")
def pack(b: Builder, op: Op) -> None:
    b.model.packs.append(op)


@effect("stream.resource.constants")
def constants(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.submit(op, (), "constants")
    for r in spec.result_group(op, "results"):
        b.whole(site, r, WRITE, "upload")
    b.produce(site, spec.result_group(op, "results"))
    b.timepoint(op.results[-1], site.end)


@effect("stream.resource.load")
def load(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.host(op, "load")
    width = element_byte_width(op.results[0].type) or 1
    offset = b.symbols.expr(spec.operand_group(op, "source_offset")[0])
    b.access(site, spec.operand_group(op, "source")[0], offset, const(width), READ, "load")


@effect("stream.resource.store")
def store(b: Builder, op: Op) -> None:
    spec = _spec(op)
    site = b.host(op, "store")
    value = spec.operand_group(op, "value")[0]
    width = element_byte_width(value.type) or 1
    offset = b.symbols.expr(spec.operand_group(op, "target_offset")[0])
    b.access(site, spec.operand_group(op, "target")[0], offset, const(width), WRITE, "store")

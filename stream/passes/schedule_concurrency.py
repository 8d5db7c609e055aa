"""schedule-concurrency: group independent ops of each execution region into concurrent waves.

Inside every `stream.async.execute` body, ops that neither depend on each other through use-def
chains nor touch overlapping bytes of one storage (one of them writing) are gathered into
`stream.async.concurrent` waves, following the `Waves` analysis (`stream.analysis.waves`) built on
`ResourceHazards`. The hazard test works on storage and byte ranges, not on SSA values, so a reader
of `%x` and an in-place writer of `%x` (or of a value tied to it) never share a wave (IREE #14889).

Option `favor`:
* `min-peak-memory` (default): an op joins the most recent wave unless it depends on it, so the
  program's order, and how long values stay live, is kept;
* `max-concurrency`: every op goes to the latest wave its consumers allow, gathering the most work
  per wave;
* `debug`: no waves at all (the module is returned unchanged).

Invariant established: no two ops of one wave are ordered by a use-def or storage-hazard path in
the input body; every other op keeps its block order relative to the ops it depends on; each wave
captures the values it reads from the body and yields the values used after it (tied to a capture
when written in place). Execute regions keep their interface, and the values computed are
unchanged.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from stream.analysis.region_outlining import build_region_op, outline, remap_op
from stream.analysis.resource_hazards import HazardAnalysis
from stream.analysis.streamability import STRUCTURED, require_straight_line, used_values
from stream.analysis.waves import FAVOR_CHOICES, plan_waves
from stream.ir.core import Block, Module, Op, Region, Value
from stream.ir.types import ResourceType
from stream.ir.walk import bodies, map_scf_blocks, replace_op
from stream.passes.pass_manager import register_pass

__all__ = ["ScheduleConcurrencyOptions", "schedule_concurrency", "schedule_region"]


@dataclass(frozen=True, slots=True)
class ScheduleConcurrencyOptions:
    favor: str = field(default="min-peak-memory", metadata={"choices": FAVOR_CHOICES})


@register_pass("schedule-concurrency", options=ScheduleConcurrencyOptions)
def schedule_concurrency(module: Module, options: ScheduleConcurrencyOptions | None = None) -> Module:
    """Group independent ops inside each execute region into `stream.async.concurrent` waves."""
    options = options or ScheduleConcurrencyOptions()
    if options.favor == "debug":
        return module
    out = module
    for f in bodies(module):
        require_straight_line(f.op, f.name, "schedule-concurrency", STRUCTURED)
        if not any(op.name == "stream.async.execute" for op in f.op.walk()):
            continue
        out = replace_op(out, f.op, f.with_body(_schedule_block(f.body, options.favor)).op)
    return out


def _schedule_block(block: Block, favor: str) -> tuple[Op, ...]:
    """The ops of `block` with every execute region regrouped, in the blocks of `scf` regions
    too (each block is analysed on its own: regions never span blocks)."""
    analysis = HazardAnalysis.of(block)
    ops = tuple(schedule_region(op, analysis, analysis.sizes, favor) if op.name == "stream.async.execute" else op for op in block.ops)
    return map_scf_blocks(Block(block.arguments, ops), lambda b: Block(b.arguments, _schedule_block(b, favor))).ops


def schedule_region(execute: Op, analysis: HazardAnalysis, sizes: dict[Value, Value], favor: str) -> Op:
    """`execute` with its body regrouped into waves (the same op when no wave has two ops)."""
    body = execute.regions[0].blocks[0]
    plan = plan_waves(body, analysis, favor)
    if all(len(w) < 2 for w in plan.waves):
        return execute
    ops = body.ops
    uses = [set(used_values(op)) for op in ops]
    mapping: dict[Value, Value] = {}
    emitted: list[Op] = []
    for kind, index in plan.order:
        if kind == "op" or len(plan.waves[index]) == 1:
            i = index if kind == "op" else plan.waves[index][0]
            emitted.append(remap_op(ops[i], mapping))
            continue
        members = plan.waves[index]
        member_set = set(members)
        defined = {r for i in members for r in ops[i].results}
        captures: list[Value] = []
        for i in members:
            for v in used_values(ops[i]):
                if isinstance(v.type, ResourceType) and v not in defined and v not in captures:
                    captures.append(v)
        used_outside = set().union(*(uses[j] for j in range(len(ops)) if j not in member_set))
        escapes = [r for i in members for r in ops[i].results if r in used_outside]
        outlined = outline([ops[i] for i in members], captures, escapes, sizes, location=ops[members[0]].location)
        outlined = dataclasses.replace(outlined, captures=tuple(mapping.get(c, c) for c in captures))
        wave = build_region_op("stream.async.concurrent", outlined, location=ops[members[0]].location)
        emitted.append(wave)
        for original, result in zip(escapes, wave.results):
            mapping[original] = result
    terminator = remap_op(ops[-1], mapping)
    new_body = Block(body.arguments, tuple(emitted) + (terminator,))
    return execute.replace(regions=(Region((new_body,)),))

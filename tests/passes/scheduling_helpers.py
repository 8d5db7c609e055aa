"""Helpers shared by the tests of the scheduling passes (schedule-execution, schedule-concurrency,
propagate-timepoints): running passes with the verifier, reading schedules back."""

from __future__ import annotations

from collections.abc import Callable

from tests_paths import IREE

import stream.ir as ir
from stream.ir.core import Module, Op, Value
from stream.ir.spec import spec_of
from stream.ir.walk import functions
from stream.passes import PASSES, PassInfo, PassVerificationError, parse_pipeline, run_pipeline
from verify.hook import make_hook

LOWER = "convert-to-stream,encode-tensors,materialize-copy-on-write,elide-async-copies,refine-usage"
SCHEDULE = ("schedule-execution", "schedule-concurrency", "propagate-timepoints")
EXAMPLES = ("b_diamond", "d_inplace", "f_multidevice", "i_multidevice_overlap")


def iree_stage(example: str, stage: str) -> Module:
    return ir.parse_module((IREE / example / f"{stage}.mlir").read_text(), f"{example}/{stage}.mlir")


def run(module: Module, *names: str) -> Module:
    for name in names:
        module = PASSES[name].run(module)
    return module


def reject(module: Module, pass_name: str, broken: Callable[[Module], Module]) -> PassVerificationError:
    """Run `broken` as if it were `pass_name` with verification on; return the rejection."""
    info = PassInfo(pass_name, broken)
    try:
        run_pipeline(module, [(info, None)], hook=make_hook())
    except PassVerificationError as e:
        return e
    raise AssertionError(f"the verifier accepted the broken {pass_name}")


def classes(error: PassVerificationError) -> set[str]:
    return {v.cls for v in error.report.violations if not v.pre_existing and v.severity == "error"}


def lower(text: str) -> Module:
    module, _ = run_pipeline(ir.parse_module(text, "p.mlir"), parse_pipeline(LOWER), verify="none")
    return module


def executes(module: Module) -> list[Op]:
    return [op for f in functions(module) for op in f.body.ops if op.name == "stream.async.execute"]


def awaited_by(module: Module) -> dict[Op, set[Op]]:
    """For each execute region, the regions whose timepoints it waits for on the device
    (directly or through joins), transitively."""
    regions = executes(module)
    producer: dict[Value, Op] = {op.results[-1]: op for op in regions}
    joins: dict[Value, tuple[Value, ...]] = {}
    for f in functions(module):
        for op in f.body.ops:
            if op.name == "stream.timepoint.join":
                joins[op.results[0]] = op.operands

    def sources(t: Value) -> set[Op]:
        if t in producer:
            return {producer[t]}
        return set().union(*(sources(x) for x in joins.get(t, ())))

    direct: dict[Op, set[Op]] = {}
    for op in regions:
        spec = spec_of(op)
        assert spec is not None
        direct[op] = set().union(*(sources(t) for t in spec.operand_group(op, "await_timepoint")))
    closure: dict[Op, set[Op]] = {}

    def close(op: Op) -> set[Op]:
        if op not in closure:
            closure[op] = set()
            for d in direct[op]:
                closure[op] |= {d} | close(d)
        return closure[op]

    return {op: close(op) for op in regions}


def dispatch_entries(op: Op) -> set[str]:
    """The entry points of the dispatches inside a region."""
    out = set()
    for inner in op.walk():
        entry = inner.properties.get("entry_points")
        if entry is not None:
            out.add(str(entry).split("::@")[-1].rstrip("]").lstrip("[@"))
    return out

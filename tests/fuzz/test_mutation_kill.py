"""Mutation self-test with a kill rate (issue 9, "Keep it true").

Sources: IREE 3.13's stage 04-10 dumps of the four programs in `tests/data/iree/` (async and cmd
level), streamproof's own compile of every example (to the end, and to the async level after
propagate-timepoints), and the coarse-fences ABI programs in `tests/data/mutation/`. Every mutation class of `kill_mutations.py` runs over every source; each
mutant is verified and must be

* **killed**: rejected with a class the mutation predicts (beyond what the source already
  reports: d_inplace's BORROWED_INPUT_MUTATED and OUT_OF_BOUNDS); or
* **equivalent**, shown by two independent arguments: the executor's vector-clock race detector
  (`run --check-races`: sync, task and chaos drivers, stand-in kernels that touch every bound
  byte; an async-level mutant is lowered by schedule-allocation alone, which keeps every await
  as it is) finds nothing, and the brute-force oracle of `tests/verify/mutations.py` (path search
  on the raw event graph, integer range overlap: no vector clocks, no obligation pruning, no SMT)
  finds nothing either. A redundant wait (IREE's 05 joins immediates; its allocas on device_a
  await device_b's dealloca, which nothing needs) is the typical equivalent mutant.

A mutant reported with a class outside the prediction, or a survivor that either argument says
is broken, fails the test; so does any survivor of a `must_kill` class (non-equivalent by
construction). The kill rate per class prints with `-s` and is recorded in docs/DEVELOPING.md.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import pytest
from kill_mutations import CLASSES, ORDERING
from mutator import ROOT

import stream.ir as ir
from runtime import DeadlockError, ExecutionError, KernelRegistry, run_module
from runtime.api import argument_types
from runtime.kernels import DEFAULT_REGISTRY
from runtime.memory import dtype_of
from stream.ir.attributes import ArrayAttr, SymbolRefAttr
from stream.ir.core import Module
from stream.ir.types import TensorType
from stream.ir.verifier import verify_structure
from stream.ir.walk import functions
from verify import verify_module

sys.path.insert(0, str(ROOT / "tests" / "verify"))
from mutations import brute_force_classes  # noqa: E402  (the independent oracle of tests/verify)

IREE = ROOT / "tests" / "data" / "iree"
STAGES = sorted(p for p in IREE.glob("*/*.mlir") if p.name[:2] in {f"{n:02d}" for n in range(4, 11)})
OWN = sorted((ROOT / "tests" / "data" / "mutation").glob("*.mlir"))
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
CACHE_CONTROL = ("stream.cmd.flush", "stream.cmd.invalidate")
RUNS = [("sync", 0), ("task", 0), ("chaos", 1), ("chaos", 2), ("chaos", 3)]


@cache
def sources() -> list[tuple[str, Module]]:
    import streamproof

    out = []
    for p in STAGES + OWN:
        m = ir.parse_module(p.read_text(), str(p))
        verify_structure(m)
        out.append((str(p.relative_to(ROOT)), m))
    from stream.passes import DEFAULT_PIPELINE

    to_async = ",".join(DEFAULT_PIPELINE[: DEFAULT_PIPELINE.index("propagate-timepoints") + 1])
    for p in EXAMPLES:
        name = str(p.relative_to(ROOT))
        out.append((f"compiled {name}", streamproof.compile(p.read_text(), verify="final", filename=str(p)).module))
        out.append((f"compiled to async {name}", streamproof.compile(p.read_text(), pipeline=to_async, verify="final", filename=str(p)).module))
    return out


def _touch(*arrays: np.ndarray) -> None:
    for a in arrays:
        if a.flags.writeable:
            a += 1


def _lowered(module: Module) -> Module:
    """A cmd-level module the executor runs: async-level mutants go through schedule-allocation
    only (no pass that adds or removes waits), cmd-level ones are run as they are."""
    from stream.passes import parse_pipeline, run_pipeline

    if not any(op.name == "stream.async.execute" for f in functions(module) for op in f.op.walk()):
        return module
    out, _ = run_pipeline(module, parse_pipeline("schedule-allocation"), verify="none")
    return out


def _inputs(module: Module, name: str) -> list[Any]:
    """Random tensors (as `run` draws them), zeroed bytes for resources, row 3 for an index, and
    immediate fences."""
    rng = np.random.default_rng(0)
    out: list[Any] = []
    for t in argument_types(module, name):
        if isinstance(t, TensorType):
            out.append(rng.standard_normal(tuple(d or 1 for d in t.shape or ())).astype(dtype_of(t.element)))
        else:
            text = str(t)
            out.append(np.zeros(64, np.uint8) if "resource" in text else 3 if text == "index" else None)
    return out


def race_detector_classes(module: Module) -> set[str]:
    """What the executor's race detector reports over RUNS (DEADLOCK / OUT_OF_BOUNDS / FAILED for
    a run that stops)."""
    lowered = _lowered(module)
    registry = KernelRegistry(DEFAULT_REGISTRY)
    for op in lowered.walk():
        if op.name == "stream.cmd.dispatch":
            entries = op.properties["entry_points"]
            for sym in entries.elements if isinstance(entries, ArrayAttr) else (entries,):
                assert isinstance(sym, SymbolRefAttr)
                registry.register("::".join((sym.root, *sym.nested)), _touch, bindings="bytes")
                registry.register(sym.nested[-1] if sym.nested else sym.root, _touch, bindings="bytes")
    found: set[str] = set()
    for f in functions(lowered):
        if f.is_declaration or getattr(f.op.properties.get("sym_visibility"), "value", "public") != "public":
            continue
        inputs = _inputs(lowered, f.name)
        for driver, seed in RUNS:
            try:
                result = run_module(lowered, inputs, function=f.name, driver=driver, seed=seed, check_races=True, kernels=registry)
                found |= {x.kind for x in result.errors}
            except DeadlockError as e:
                found |= {x.kind for x in getattr(e, "findings", ())} | {"DEADLOCK"}
            except ExecutionError as e:
                found |= {x.kind for x in getattr(e, "findings", ())} | {"OUT_OF_BOUNDS" if "OUT_OF_BOUNDS" in str(e) else f"FAILED: {e}"}
    return found


@dataclass
class Tally:
    killed: int = 0
    equivalent: int = 0
    assumed: int = 0  # of the equivalent: only under the documented flush/invalidate assumption
    problems: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.killed + self.equivalent + len(self.problems)


@cache
def _source_dynamic(source: str) -> frozenset[str]:
    """What the race detector already reports on a source (d_inplace writes a borrowed input)."""
    return frozenset(race_detector_classes(dict(sources())[source]))


def judge(cls: str, source: str, base: set[str], desc: str, mutant: Module, tally: Tally) -> None:
    mc = CLASSES[cls]
    report = verify_module(mutant, witnesses=0)
    found = report.classes - {"LEAK"} - base
    if found & mc.predicted:
        if found - ORDERING - mc.predicted:
            tally.problems.append(f"{source}: {desc}: rejected with {sorted(found)}, outside {sorted(mc.predicted)}")
        else:
            tally.killed += 1
        return
    if found or report.unknowns:
        what = sorted(found) if found else f"undecided ({report.unknowns[0].text()})"
        tally.problems.append(f"{source}: {desc}: rejected with {what}, not the predicted {sorted(mc.predicted)}")
        return
    if mc.must_kill:
        tally.problems.append(f"{source}: {desc}: proved, but this mutation is never equivalent (a verifier hole)")
        return
    dynamic = race_detector_classes(mutant) - _source_dynamic(source)
    oracle = brute_force_classes(mutant) - brute_force_classes(dict(sources())[source])
    if dynamic or oracle:
        tally.problems.append(f"{source}: {desc}: proved, but the race detector reports {sorted(dynamic)} and the oracle {sorted(oracle)}")
    else:
        tally.equivalent += 1
        # The verifier, the oracle and the executor all take flush/invalidate as ordering only (memory
        # is coherent; docs/VERIFIER.md, assumptions): a write and the flush that publishes it in one
        # wave are equivalent there, not on a device whose caches need the flush after the write.
        tally.assumed += any(name in desc for name in CACHE_CONTROL)


TALLIES: dict[str, Tally] = {}


@pytest.mark.parametrize("cls", CLASSES)
def test_every_mutant_is_killed_or_shown_equivalent(cls: str) -> None:
    tally = TALLIES.setdefault(cls, Tally())
    for source, module in sources():
        base = verify_module(module, witnesses=0).classes - {"LEAK"}
        assert not base - {"BORROWED_INPUT_MUTATED", "OUT_OF_BOUNDS"}, f"{source} is not a proved program: {sorted(base)}"
        for desc, mutant in CLASSES[cls].operator(module):
            verify_structure(mutant)
            judge(cls, source, base, desc, mutant, tally)
    rate = tally.killed / tally.total if tally.total else 0.0
    broken = tally.total - tally.equivalent  # the mutants that are not equivalent
    print(f"\n{cls}: {tally.total} mutants, {tally.killed} killed ({rate:.0%}; {tally.killed} of {broken} non-equivalent), "
          f"{tally.equivalent} shown equivalent" + (f" ({tally.assumed} of them only as flush/invalidate are modelled)" if tally.assumed else "")
          + f", {len(tally.problems)} problems")
    assert tally.total >= 3, f"{cls}: only {tally.total} mutants"
    assert not tally.problems, f"{cls}: {len(tally.problems)} of {tally.total} mutants:\n" + "\n".join(tally.problems[:20])


def test_the_sources_cover_every_stage_and_level() -> None:
    names = [s for s, _ in sources()]
    assert len([n for n in names if "/iree/" in n]) == 4 * 7
    assert {n.split("/")[-1][:2] for n in names if "/iree/" in n} == {f"{k:02d}" for k in range(4, 11)}
    assert any("coarse_fences_async" in n for n in names) and any("coarse_fences_cmd" in n for n in names)
    assert len([n for n in names if n.startswith("compiled ")]) == 2 * len(EXAMPLES) >= 12


def test_the_race_detector_sees_what_a_killed_mutant_breaks() -> None:
    """The dynamic argument is not vacuous: on mutants the verifier kills, it reports races too."""
    path = next(p for p in STAGES if p.match("b_diamond/10_elide_timepoints.mlir"))
    module = ir.parse_module(path.read_text(), str(path))
    assert race_detector_classes(module) == set()
    killed = [(d, m) for d, m in CLASSES["drop-await"].operator(module) if verify_module(m, witnesses=0).classes - {"LEAK"}]
    assert killed and all(race_detector_classes(m) & ORDERING for _, m in killed[:3])

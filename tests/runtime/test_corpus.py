"""The verifier's corpus (proofs/corpus/cmd_*.mlir), run on the runtime with --check-races.

Each corpus program states the verifier's verdict in its header (`// EXPECT: proved` or the
classes it must report). Run dynamically - sync, task and several chaos seeds, with stand-in
kernels that only touch bytes (`bindings="bytes"`) - the two checks must agree:

* a proved program runs to completion with no error finding, under every driver and seed;
* for a rejected one, every run reports only expected classes, and every expected class shows up
  in some run; where the verifier left something undecided (`UNKNOWN`, an op without an effect
  rule) a run may report anything. A deadlock counts as DEADLOCK and an out-of-bounds failure as OUT_OF_BOUNDS.
  PACK_OVERLAP has no dynamic name of its own: two slices that share bytes while both are in use
  show up as a race on those bytes, an access that leaves its slice as OUT_OF_BOUNDS once the
  chaos driver lays the slices out in another order, and uses that interleave in order (no race)
  as a result that changes when every slice gets bytes of its own (`layout_dependent`).

Inputs: resource arguments get zeroed bytes of the size the program captures them with, fences
None (an immediate wait, or a fresh fence to signal), index arguments the values in `INDEX_INPUTS`
(chosen so that the symbolic cases are concrete instances of what the verifier reports).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rt_support import ROOT_DIR, bounded

import stream.ir as ir
from runtime import DeadlockError, ExecutionError, KernelRegistry, memory, resource_ops, run_module
from runtime.kernels import DEFAULT_REGISTRY
from stream.ir.attributes import ArrayAttr, SymbolRefAttr
from stream.ir.core import Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.spec import view
from stream.ir.types import OpaqueType, ResourceType
from stream.ir.walk import Function, constant_int, defining_ops, functions

CORPUS = sorted((ROOT_DIR / "proofs" / "corpus").glob("cmd_*.mlir"))
# The runtime cannot run a call to a function the module only declares.
NOT_RUNNABLE = {"cmd_unknown_op.mlir": "calls an external function (@consume) that has no body to run",
                **{f"cmd_global_{n}.mlir": "loads a global nothing in the module gives a value (no initial value, no initializer)"
                   for n in ("constant_ok", "immutable_write", "mutable_write_ok", "mutable_unfinished")}}
# Proved by what the executable's `stream.binding.subspan`s address (FuseDispatchBindings' widened
# slab bindings): the runtime hands a kernel its whole binding, as the dispatch contract allows, so
# a stand-in kernel that writes all of it races where the executable would not.
BINDING_GRANULAR = {"cmd_fused_bindings_disjoint_ok.mlir", "cmd_fused_bindings_overlap.mlir"}
INDEX_INPUTS: dict[str, list[int | None]] = {
    "cmd_loop_refill_ok.mlir": [3],  # three trips: the loop-carried hazards need two at least
    "cmd_loop_refill_race.mlir": [3],
    "cmd_loop_strided_ok.mlir": [3],
    "cmd_loop_strided_oob.mlir": [3],  # the fourth trip fills [48, 64) of a 48-byte cache
    "cmd_loop_pingpong_ok.mlir": [3],
    "cmd_loop_alias_freed_once_ok.mlir": [3],
    "cmd_loop_alias_freed_early.mlir": [3],
    "cmd_loop_alias_double_free.mlir": [3],
    **{f"cmd_loop_{n}.mlir": [3] for n in ("wave_raw", "wave_serial_ok", "missed_wait", "waits_ok", "scratch_before_alloc",
                                            "scratch_ok", "scratch_leak")},
    "cmd_loop_deadlock.mlir": [3],  # the first readback waits on the fence chained after the loop
    "cmd_loop_deadlock_ok.mlir": [3],
    "cmd_loop_pack_carried.mlir": [None, 3],  # the second step reads the state the first one's staging clobbered
    "cmd_loop_pack_carried_ok.mlir": [None, 3],
    "cmd_loop_for_pack_carried.mlir": [None, 3],
    "cmd_loop_for_pack_carried_ok.mlir": [None, 3],
    "cmd_branch_affinity_mismatch.mlir": [1],  # the branch that fills on @dev1
    "cmd_branch_affinity_ok.mlir": [1],
    "cmd_branch_borrowed_write.mlir": [None, 1],  # the branch that clears the input
    "cmd_branch_consumed_write_ok.mlir": [None, 1],
    "cmd_branch_deadlock.mlir": [1],  # the branch that peeks
    "cmd_branch_deadlock_ok.mlir": [1],
    "cmd_branch_pack_staged.mlir": [None, 1],  # the branch that stages a fill in slice #1
    "cmd_branch_pack_staged_ok.mlir": [None, 1],
    "cmd_symbolic_racy.mlir": [128, 64],  # fills [0, 128) and writes [64, 128): they overlap
    "cmd_symbolic_safe.mlir": [64],
    "cmd_oob_symbolic.mlir": [None, 200],  # a 64-byte window at 200 in a 256-byte buffer
    "cmd_oob_clamped_ok.mlir": [None, 1000],  # the same offset, reduced modulo 193: in bounds
    "cmd_select_resource.mlir": [1],  # the select picks %a, which the region fills
    "cmd_align_slab_ok.mlir": [100],
    "cmd_align_slab_race.mlir": [64],  # util.align(64, 64) = 64: the 65-byte fill meets the write at 64
    "cmd_assume_alternatives_ok.mlir": [128, 0],
    "cmd_assume_alternatives_race.mlir": [32, 0],  # the overlapping alternative
    "cmd_assert_before_ok.mlir": [64],
    "cmd_assert_after_race.mlir": [16],  # the work issued before the check races; the check then fails
    "cmd_fused_bindings_disjoint_ok.mlir": [2],  # subspans at 0 and 192 of a 256-byte slab
    "cmd_fused_bindings_overlap.mlir": [0],  # both subspans at 0
}
RACES = {"RACE_READ_AFTER_WRITE", "RACE_WRITE_AFTER_READ", "RACE_WRITE_AFTER_WRITE", "MISSED_WAIT"}
RUNS = [("sync", 0), ("task", 0), *(("chaos", seed) for seed in range(6))]


def touch(*arrays: np.ndarray) -> None:
    """A stand-in kernel: bumps every writable binding (inputs are read-only views)."""
    for a in arrays:
        if a.flags.writeable:
            a += 1


def _walk(ops: tuple[Op, ...]) -> list[Op]:
    out: list[Op] = []
    for op in ops:
        out.append(op)
        for region in op.regions:
            for block in region.blocks:
                out.extend(_walk(block.ops))
    return out


def prepare(path: Path) -> tuple[ir.Module, Function, list[Any], KernelRegistry, set[str]]:
    text = path.read_text()
    expect = set(text.splitlines()[0].split("EXPECT:")[1].split())
    module = ir.parse_module(text, str(path))
    (f,) = [g for g in functions(module) if getattr(g.op.properties.get("sym_visibility"), "value", "public") == "public"]
    registry = KernelRegistry(DEFAULT_REGISTRY)
    defs = defining_ops(f.body)
    sizes: dict[Any, int] = {}
    for op in _walk(f.body.ops):
        if op.name == "stream.cmd.dispatch":
            entries = op.properties["entry_points"]
            sym = entries.elements[0] if isinstance(entries, ArrayAttr) else entries
            assert isinstance(sym, SymbolRefAttr)
            registry.register("::".join((sym.root, *sym.nested)), touch, bindings="bytes")
        elif op.name == "stream.cmd.execute":
            v = view(op)
            for res, size in zip(v.resource_operands, v.resource_operand_sizes):
                n = constant_int(size, defs)
                if res in f.arguments and n is not None:
                    sizes[res] = max(sizes.get(res, 0), n)
    given = INDEX_INPUTS.get(path.name, [])
    inputs: list[Any] = []
    for i, (arg, t) in enumerate(zip(f.arguments, f.type.inputs)):
        if i < len(given) and given[i] is not None:
            inputs.append(given[i])
        elif isinstance(t, ResourceType):
            inputs.append(np.zeros(sizes.get(arg, 64), np.uint8))
        elif isinstance(t, OpaqueType) and t.text == "!hal.fence":
            inputs.append(None)
        elif isinstance(t, OpaqueType):  # a buffer view: the corpus imports 16 floats
            inputs.append(np.zeros(16, np.float32))
        else:
            raise AssertionError(f"{path.name}: no input for argument {i} ({t}); add it to INDEX_INPUTS")
    return module, f, inputs, registry, expect


def dynamic_classes(module: ir.Module, f: Function, inputs: list[Any], registry: KernelRegistry, driver: str,
                    seed: int) -> set[str]:
    try:
        result = bounded(lambda: run_module(module, inputs, function=f.name, driver=driver, seed=seed, check_races=True,
                                            kernels=registry))
    except DeadlockError as e:
        return {x.kind for x in getattr(e, "findings", ())} | {"DEADLOCK"}
    except ExecutionError as e:
        found = {x.kind for x in getattr(e, "findings", ())}
        return found | ({"OUT_OF_BOUNDS"} if "OUT_OF_BOUNDS" in str(e) else set())
    return {x.kind for x in result.findings}


def _results(module: ir.Module, f: Function, inputs: list[Any], registry: KernelRegistry) -> list[bytes]:
    result = bounded(lambda: run_module(module, inputs, function=f.name, driver="sync", kernels=registry))
    return [np.asarray(r).tobytes() for r in result.results]


def layout_dependent(module: ir.Module, f: Function, inputs: list[Any], registry: KernelRegistry) -> bool:
    """Does the result depend on where `resource.pack` puts its slices? Run once with the
    runtime's layout (slices with disjoint lifetime intervals share bytes) and once with every
    slice on bytes of its own. Uses of two such slices that interleave without ever running at
    once are no race, yet a write through one clobbers the other: the results differ, whatever
    fresh storage holds."""
    original, poison = resource_ops.pack_slices, memory.POISON

    def disjoint(sizes: list[int], intervals: list[tuple[int, int]], *args: Any, **kw: Any) -> tuple[int, list[int]]:
        return original(sizes, [(0, 0)] * len(sizes), *args, **kw)  # every slice live with every other

    def run(apart: bool, fill: int) -> list[bytes]:
        resource_ops.pack_slices = disjoint if apart else original  # type: ignore[assignment]
        memory.POISON = fill
        try:
            return _results(module, f, [np.copy(x) if isinstance(x, np.ndarray) else x for x in inputs], registry)
        finally:
            resource_ops.pack_slices, memory.POISON = original, poison  # type: ignore[assignment]

    # The stand-in kernels read the bytes they write (`touch`): a result that differs only through
    # fresh storage is not evidence. It must differ whatever fresh storage holds (two fills).
    return all(run(False, fill) != run(True, fill) for fill in (0x00, 0xFF))


@pytest.mark.parametrize("name", ["cmd_pack_serial_ok.mlir", "cmd_pack_two_executes_ok.mlir"])
def test_a_proved_pack_does_not_depend_on_its_layout(name: str) -> None:
    module, f, inputs, registry, expect = prepare(ROOT_DIR / "proofs" / "corpus" / name)
    assert expect == {"proved"} and not layout_dependent(module, f, inputs, registry)


def test_interleaved_pack_slices_clobber_each_other() -> None:
    # Issue 9 item 9: no run of cmd_pack_interleaved races (its uses are in order), but the fill of
    # slice #1 overwrites what slice #0 still holds: the result is the fill pattern, not the input.
    module, f, inputs, registry, expect = prepare(ROOT_DIR / "proofs" / "corpus" / "cmd_pack_interleaved.mlir")
    assert expect == {"PACK_OVERLAP"}
    assert all(dynamic_classes(module, f, inputs, registry, d, s) == set() for d, s in RUNS[:3])
    assert layout_dependent(module, f, inputs, registry)


@pytest.mark.parametrize("path", [p for p in CORPUS if p.name not in BINDING_GRANULAR], ids=lambda p: p.name)
def test_runtime_agrees_with_the_verifier(path: Path) -> None:
    module, f, inputs, registry, expect = prepare(path)
    if path.name in NOT_RUNNABLE:  # refused with a clear error, before anything runs
        with pytest.raises(DiagnosticError, match=r"no function @\w+ in the module|'util.global.load' of @\w+, which holds no value"):
            run_module(module, inputs, function=f.name, driver="sync", kernels=registry)
        return
    allowed = set(expect) | (RACES | {"OUT_OF_BOUNDS"} if "PACK_OVERLAP" in expect else set())
    if "UNKNOWN" in expect:  # the verifier left something undecided: a run may show anything there
        allowed |= RACES | {"OUT_OF_BOUNDS", "DEADLOCK", "USE_BEFORE_ALLOC", "USE_AFTER_FREE"}
    if "USE_BEFORE_ALLOC" in expect:  # an access before its allocation fails the work, and the free
        allowed |= {"LEAK"}  # that waits for it then never runs: the run leaks what it was to free
    seen: set[str] = set()
    for driver, seed in RUNS:
        found = dynamic_classes(module, f, inputs, registry, driver, seed)
        if expect == {"proved"}:
            assert found == set(), f"{driver} (seed {seed}) reports {sorted(found)} on a proved program"
        else:
            assert found <= allowed, f"{driver} (seed {seed}) reports {sorted(found - allowed)}, which the verifier does not"
        seen |= found
    if expect != {"proved"}:
        missing = {c for c in expect if c not in ("PACK_OVERLAP", "UNKNOWN") and c not in seen}
        if "PACK_OVERLAP" in expect and not seen & allowed and not layout_dependent(module, f, inputs, registry):
            missing.add("PACK_OVERLAP")
        assert not missing, f"no run shows {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(BINDING_GRANULAR))
def test_runtime_checks_whole_bindings(name: str) -> None:
    """Two dispatches of one wave bound to the whole slab: the verifier reads their executable's
    subspans (disjoint in one program, not in the other); the runtime checks the bindings, which
    overlap in both, and the stand-in kernel writes all of each, so the runs that interleave the
    wave report the race and nothing else."""
    module, f, inputs, registry, _ = prepare(ROOT_DIR / "proofs" / "corpus" / name)
    found = [dynamic_classes(module, f, inputs, registry, driver, seed) for driver, seed in RUNS]
    assert all(c <= {"RACE_WRITE_AFTER_WRITE"} for c in found) and {"RACE_WRITE_AFTER_WRITE"} in found, found


def test_every_cmd_corpus_program_is_covered() -> None:
    """The corpus grows; this test must see each new cmd-level program (or say why not)."""
    assert len(CORPUS) >= 38 and set(NOT_RUNNABLE) | BINDING_GRANULAR <= {p.name for p in CORPUS}

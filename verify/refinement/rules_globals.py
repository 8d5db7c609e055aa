"""Globals in the refinement check: `util.global.load` / `util.global.store` and initializers.

A program is its initializers, run once in module order before anything else, then any sequence
of calls of its functions. The check compares one call of a function in each program, so what a
function reads from a global must be related between the two programs:

* An **immutable** global is written only by initializers (IREE's verifier enforces it). Each
  machine first runs its own module's `util.initializer` bodies (`run_initializers`), so a load
  in the function gets exactly the value its program's initializers stored: a parameter's bytes
  (the same term in both programs when scope, key and range agree), a constant's bytes, a
  dispatch's result. Stages of one model keep the same function but reshape its globals (IREE's
  schedule-allocation packs 24 constant globals into one slab with 13 subviews): the comparison
  is of what the function computes from them, whatever the globals are called. A global no
  initializer stores has its `initial_value` (a timepoint: none; anything else: an input atom
  keyed by the global's name and initial value). When an initializer cannot be run (several
  blocks, an op with regions, an undecided step), a load of a global it stores is undecided and
  says why, and so is a load of a global nothing stores.
* A **mutable** global (a resource, tensor or scalar) holds state from earlier calls. The two
  programs are related by induction over the sequence of calls, on the relation "every mutable
  global holds equal values in both programs" (globals pair by name; a value is its bytes, or
  its scalar):
  - base: after the initializers, each mutable global the function touches holds equal values
    in both programs (what the initializers stored, else the `initial_value`);
  - step: the call starts from a state that is the *same unknowns* in both programs
    (`entry_value`: an input atom per global, as arguments are inputs, of one byte size in both
    programs), and must end with equal results and an equal value in every mutable global either
    program loads or stores (`observed`): the last value the call stored (its bytes at the store
    at the value levels, its storage at the return at the cmd level), else the contents of the
    storage the global held at entry (which an in-place write would have changed).
  By induction, equal initial states and a step that keeps states equal give equal results for
  every sequence of calls. What makes the state a value and not storage: the safety checker's
  assumption that a resource global's storage is not aliased by anything else of the function
  (docs/VERIFIER.md), and here, that no program hands that storage to the caller: storing an
  import, an argument or an exported resource into a global, or exporting what a global holds,
  is undecided (the caller could change the next call's state behind the program's back).
  A store in a loop body makes the global part of the loop's state (as storage the body writes:
  `verify.refinement.control_flow`), related by the loop's own induction.
  Timepoint globals carry no value (PropagateTimepoints' `__timepoint` companions, mutable at
  stage 05 and immutable from 07): their loads and stores are ordering, which the safety checker
  proves, and are skipped here.
"""

from __future__ import annotations

from typing import Any

from stream.ir.attributes import SymbolRefAttr
from stream.ir.core import Module, Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.spec import spec_of
from stream.ir.types import IndexType, IntegerType, ResourceType, TensorType, TimepointType
from verify.refinement.control_flow import RETURNS, lowered_blocks, run_blocks
from verify.refinement.global_state import check_private, current, declaration, declared_type, is_mutable, mutable_decl
from verify.refinement.ints import Poly
from verify.refinement.layout import tensor_bytes
from verify.refinement.machine import LoopGlobal, Machine, Res, rule
from verify.refinement.rules_host import constant_bytes
from verify.refinement.solver import Undecided

__all__ = ["run_initializers", "initial_state"]


def _global_name(op: Op) -> str:
    ref = op.properties.get("global")
    return ref.root if isinstance(ref, SymbolRefAttr) else str(ref)


def initial_state(m: Machine, name: str) -> tuple[Any, ...] | None:
    """What the initializers left in the mutable global `name` (None: nothing, and no initial
    value: the global holds nothing a load could read)."""
    if name in m.global_initial:
        return m.global_initial[name]  # type: ignore[no-any-return]
    if m.initializer_failure is not None:
        raise Undecided(f"@{name} is set by the program's initializers, which the check could not run: {m.initializer_failure}")
    decl = declaration(m, name)
    initial = decl.properties.get("initial_value") if decl is not None else None
    if initial is None:
        return None
    t = declared_type(decl, None)
    assert decl is not None
    if isinstance(t, (IndexType, IntegerType)) and hasattr(initial, "value") and isinstance(initial.value, int):
        return ("int", int(initial.value))
    if isinstance(t, TensorType) and t.is_static and t.encoding is None:
        size = tensor_bytes(m.ints, t, [], f"@{name}")
        return ("res", size, constant_bytes(m, decl, initial, size))
    key = ("global", name, str(initial))
    if isinstance(t, ResourceType):
        size = m.ints.sym(("global-size", name, str(initial)), f"size(@{name})")
        return ("res", size, m.terms.of(m.note(m.terms.opaque(key, f"@{name} = {initial}"), decl), size))
    return ("scalar", m.terms.scalar("global", key, f"@{name}"))


# -- ops --------------------------------------------------------------------------------------------
@rule("util.global.load")
def _load(m: Machine, op: Op) -> None:
    name = _global_name(op)
    result = op.results[0]
    decl = declaration(m, name)
    if isinstance(result.type, TimepointType):
        m.set(result, None)
        return
    if decl is None:
        raise Undecided(f"@{name} is loaded but the module declares no util.global of that name")
    if is_mutable(decl) and not m.in_initializer:
        m.global_touched.add(name)
        m.set(result, current(m, name))
        return
    if name in m.global_values:  # stored earlier by an initializer
        m.set(result, m.global_values[name])
        return
    if m.initializer_failure is not None:
        raise Undecided(f"@{name} is set by the program's initializers, which the check could not run: {m.initializer_failure}")
    initial = decl.properties.get("initial_value")
    if initial is None:
        raise Undecided(f"@{name} has no initial value and no initializer stores it")
    key = ("global", name, str(initial))
    atom = m.note(m.terms.opaque(key, f"@{name} = {initial}"), op)
    t = declared_type(decl, result.type)
    if isinstance(t, TensorType) and t.is_static and t.encoding is None:
        size = tensor_bytes(m.ints, t, [], f"@{name}")
        m.set(result, Res(size, constant_bytes(m, decl, initial, size), producer=op))
    elif isinstance(t, (TensorType, ResourceType)):  # a resource: its size is what the declaration's value has
        size = m.ints.sym(("global-size", name, str(initial)), f"size(@{name})")
        m.set(result, Res(size, m.terms.of(atom, size), producer=op))
    elif isinstance(t, (IndexType, IntegerType)) and isinstance(getattr(initial, "value", None), int):
        m.set(result, int(initial.value))  # type: ignore[attr-defined]
    else:
        m.set(result, m.terms.scalar("global", key, f"@{name}"))


@rule("util.global.store")
def _store(m: Machine, op: Op) -> None:
    name = _global_name(op)
    value = op.operands[0]
    if isinstance(value.type, TimepointType):
        return
    decl = declaration(m, name)
    if m.in_initializer or not is_mutable(decl):
        if m.loop_fresh:
            raise Undecided(f"@{name} is stored in a loop body at {op.location}: what a loop leaves in an immutable "
                            "global is not part of the loop state the check relates")
        m.global_values[name] = m.entry(value)
        return
    for level, names in enumerate(m.loop_globals):
        if name not in names:
            raise LoopGlobal(level, name)  # part of the loop's state from now on: the loop runs again
    e = m.entry(value)
    m.global_touched.add(name)
    m.global_now[name] = e
    m.global_snap[name] = m.bytes_of(e) if isinstance(e, Res) and e.data is not None else None
    check_private(m, name)


# -- initializers -------------------------------------------------------------------------------------
def _level(op: Op) -> str | None:
    for inner in op.walk():
        spec = spec_of(inner)
        if spec is not None and spec.defines_level is not None:
            return spec.defines_level
    return None


def _failed(m: Machine, why: str, loops_before: int) -> None:
    """An initializer stopped part way: nothing it or an earlier one stored is known to be the
    global's value when the function runs (a later store was not seen), and the loops it began
    are not part of the comparison."""
    m.initializer_failure = why
    m.global_values.clear()
    del m.ctx.loops[m.program][loops_before:]


def _record_initial(m: Machine) -> None:
    """What the initializers left in the mutable globals (the base case), as snapshots: the
    function that runs next has its own state (`entry_value`)."""
    for name, e in m.global_values.items():
        if mutable_decl(m, name) is None:
            continue
        if isinstance(e, Res):
            m.global_initial[name] = ("res", e.size, m.bytes_of(e))
        elif type(e) is int or isinstance(e, Poly):
            m.global_initial[name] = ("int", e)
        elif e is not None:
            m.global_initial[name] = ("scalar", e)


def run_initializers(m: Machine, module: Module | None) -> None:
    """Run `module`'s initializers on `m` (module order), before its function. What they store is
    what the function's loads of immutable globals see, and the initial state of its mutable
    globals; when one cannot be run, the reason is kept and every load that needs it is
    undecided (never guessed)."""
    if module is None:
        return
    inits = [op for op in module.ops if op.name == "util.initializer"]
    if not inits:
        return
    m.in_initializer = True
    try:
        for init in inits:
            where = f"util.initializer at {init.location}"
            level = _level(init)
            loops_before = len(m.ctx.loops[m.program])
            if level is not None and (level == "cmd") != m.memory_mode:
                _failed(m, f"the {where} is at the {level} level and the function is not", loops_before)
                return
            try:
                blocks = lowered_blocks(init) if init.regions else ()
                if len(blocks) > 1:
                    run_blocks(m, blocks)
                for inner in blocks[0].ops if len(blocks) == 1 else ():
                    if inner.name in RETURNS:
                        break
                    m.exec(inner)
            except DiagnosticError as e:
                _failed(m, f"the {where}: {e.diagnostic.message}", loops_before)
                return
            except Undecided as e:
                if e.split is not None:
                    raise  # a case split on the programs' sizes: the caller runs both cases
                _failed(m, f"the {where}: {e.reason}", loops_before)
                return
        _record_initial(m)
    finally:
        m.in_initializer = False

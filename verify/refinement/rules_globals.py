"""Globals in the refinement check: `util.global.load` / `util.global.store` and initializers.

A program is its initializers, run once in module order before anything else, then calls of its
functions. The check compares one call of a function in each program, so what a function reads
from a global must be related between the two programs:

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
* A **mutable** global holds state from earlier calls. Relating two programs' states needs an
  inductive relation (equal state before a call gives equal state after it), which is issue-12
  work: a load of a mutable resource or scalar global, and a store of one in a function, make the
  check undecided. Timepoint globals carry no value (PropagateTimepoints' `__timepoint`
  companions, mutable at stage 05 and immutable from 07): their loads and stores are ordering,
  which the safety checker proves, and are skipped here.
"""

from __future__ import annotations

from stream.ir.attributes import SymbolRefAttr
from stream.ir.core import Module, Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.spec import spec_of
from stream.ir.types import TimepointType, Type
from verify.refinement.control_flow import RETURNS, lowered_blocks, run_blocks
from verify.refinement.machine import Machine, Res, rule
from verify.refinement.solver import Undecided

__all__ = ["run_initializers"]


def _global_name(op: Op) -> str:
    ref = op.properties.get("global")
    return ref.root if isinstance(ref, SymbolRefAttr) else str(ref)


def _declaration(m: Machine, name: str) -> Op | None:
    decl = m.module.lookup(name) if m.module is not None else None
    return decl if decl is not None and decl.name == "util.global" else None


def _is_mutable(decl: Op | None) -> bool:
    return decl is not None and "is_mutable" in decl.properties


def _declared_type(decl: Op | None, fallback: Type) -> Type:
    t = decl.properties.get("type") if decl is not None else None
    return getattr(t, "type", fallback)


@rule("util.global.load")
def _load(m: Machine, op: Op) -> None:
    name = _global_name(op)
    result = op.results[0]
    decl = _declaration(m, name)
    if isinstance(result.type, TimepointType):
        m.set(result, None)
        return
    if name in m.global_values:  # stored earlier: by an initializer, or (mutable) by this call
        m.set(result, m.global_values[name])
        return
    if decl is None:
        raise Undecided(f"@{name} is loaded but the module declares no util.global of that name")
    if _is_mutable(decl):
        raise Undecided(f"@{name} is a mutable global: its value at the call depends on earlier calls, and the check "
                        "does not relate the two programs' global state yet")
    if m.initializer_failure is not None:
        raise Undecided(f"@{name} is set by the program's initializers, which the check could not run: {m.initializer_failure}")
    initial = decl.properties.get("initial_value")
    if initial is None:
        raise Undecided(f"@{name} has no initial value and no initializer stores it")
    key = ("global", name, str(initial))
    atom = m.note(m.terms.opaque(key, f"@{name} = {initial}"), op)
    t = _declared_type(decl, result.type)
    if hasattr(t, "lifetime"):  # a resource: its size is what the declaration's value has
        size = m.ints.sym(("global-size", name, str(initial)), f"size(@{name})")
        m.set(result, Res(size, m.terms.of(atom, size), producer=op))
    else:
        m.set(result, m.terms.scalar("global", key, f"@{name}"))


@rule("util.global.store")
def _store(m: Machine, op: Op) -> None:
    name = _global_name(op)
    value = op.operands[0]
    if isinstance(value.type, TimepointType):
        return
    if m.loop_fresh:
        raise Undecided(f"@{name} is stored in a loop body at {op.location}: what a loop leaves in a global is not part "
                        "of the loop state the check relates")
    if not m.in_initializer and _is_mutable(_declaration(m, name)):
        raise Undecided(f"the function stores the mutable global @{name}: the state it leaves for later calls is not "
                        "compared between the programs yet")
    m.global_values[name] = m.entry(value)


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


def run_initializers(m: Machine, module: Module | None) -> None:
    """Run `module`'s initializers on `m` (module order), before its function. What they store is
    what the function's loads of immutable globals see; when one cannot be run, the reason is
    kept and every load that needs it is undecided (never guessed)."""
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
    finally:
        m.in_initializer = False


"""The state of mutable globals in one call, for the refinement check (`rules_globals` has the
argument; `control_flow` makes the globals a loop body stores part of the loop's state).

`entry_value` is what a mutable global holds when the call starts: the same unknown in both
programs. `current` is what it holds now; `snapshot` the same as a loop state component;
`check_private` refuses a state that the caller can reach.
"""

from __future__ import annotations

from typing import Any

from stream.ir.core import Op
from stream.ir.types import ComplexType, FloatType, IndexType, IntegerType, ResourceType, TensorType, TimepointType, Type
from verify.refinement.ints import Poly
from verify.refinement.layout import tensor_bytes
from verify.refinement.machine import Entry, Machine, Res
from verify.refinement.solver import Undecided

__all__ = ["declaration", "is_mutable", "declared_type", "mutable_decl", "entry_value", "current", "snapshot", "check_private"]


def declaration(m: Machine, name: str) -> Op | None:
    decl = m.module.lookup(name) if m.module is not None else None
    return decl if decl is not None and decl.name == "util.global" else None


def is_mutable(decl: Op | None) -> bool:
    return decl is not None and "is_mutable" in decl.properties


def declared_type(decl: Op | None, fallback: Type | None) -> Type | None:
    t = decl.properties.get("type") if decl is not None else None
    return getattr(t, "type", fallback)


def mutable_decl(m: Machine, name: str) -> Op | None:
    """The declaration of `name` when it is a mutable global that holds a value (not a timepoint)."""
    decl = declaration(m, name)
    if not is_mutable(decl) or isinstance(declared_type(decl, None), TimepointType):
        return None
    return decl


# -- the state of a call ------------------------------------------------------------------------------
def entry_value(m: Machine, name: str) -> Entry:
    """What the mutable global `name` holds when the call starts: the same unknown in both
    programs (keyed by the name; a resource or tensor of the size BEFORE gave it)."""
    found = m.global_entry.get(name)
    if found is not None:
        return found
    decl = declaration(m, name)
    t = declared_type(decl, None)
    label = f"@{name} when the call starts"
    key = ("global-state", name)
    e: Entry
    if isinstance(t, (IndexType, IntegerType)):
        e = m.ints.sym(key, label)
    elif isinstance(t, (FloatType, ComplexType)):
        e = m.terms.scalar("global-state", (name,), label)
    elif isinstance(t, (TensorType, ResourceType)):
        size = m.ctx.global_sizes.get(name)
        if size is None and isinstance(t, TensorType):
            if not t.is_static or t.encoding is not None:
                raise Undecided(f"@{name} is a tensor global of type {t}; only static shapes are followed")
            size = tensor_bytes(m.ints, t, [], label)
        symbolic = size is None
        if size is None:
            size = m.ints.sym(("global-size", name), f"size(@{name})")
            m.facts.assume_nonneg(size)
        m.ctx.global_sizes.setdefault(name, size)
        data = m.terms.of(m.terms.opaque(key, label), size)
        if isinstance(t, TensorType):
            e = Res(size, data)  # the input level: a value
        else:
            alloc = m.new_alloc("global", f"the storage @{name} holds when the call starts", decl, size, data, fresh=False)
            e = Res(size, None if m.memory_mode else data, alloc)
        if symbolic:
            m.loop_sized.add(id(e))  # a use that spells its size fixes it (the IR's sizes hold)
    else:
        raise Undecided(f"@{name} is a mutable global of type {t}, which the refinement check does not follow")
    m.global_entry[name] = e
    return e


def current(m: Machine, name: str) -> Entry:
    """What the mutable global `name` holds now in the call."""
    if name in m.global_now:
        return m.global_now[name]
    return entry_value(m, name)


def _bytes_now(m: Machine, name: str, e: Res) -> Any:
    """The bytes `name` holds now: its storage's (an in-place write after the store changes what
    the global holds), else the bytes the value had when it was stored (a value without storage
    never changes), else the value's."""
    if e.alloc is not None:
        return m.memory.read(e.alloc, e.offset, e.size)
    snap = m.global_snap.get(name)
    return snap if snap is not None else m.bytes_of(e)


def snapshot(m: Machine, name: str) -> tuple[Any, ...]:
    """The value `name` holds now, as a loop state component (`control_flow._snapshot`'s form)."""
    e = current(m, name)
    if isinstance(e, Res):
        return ("res", e.size, _bytes_now(m, name, e))
    if type(e) is int or isinstance(e, Poly):
        return ("int", e)
    return ("scalar", e)


def check_private(m: Machine, name: str) -> None:
    """The storage `name` holds (at the store, or since the call started) is the program's own:
    not the caller's buffer, nor handed to the caller (the module docstring says why)."""
    e = current(m, name)
    alloc = e.alloc if isinstance(e, Res) else None
    if alloc is None:
        return
    if alloc.kind in ("import", "argument") or alloc.exported:
        whose = "is the caller's buffer" if alloc.kind in ("import", "argument") else "is exported to the caller"
        raise Undecided(f"the storage @{name} holds ({alloc.what}) {whose}: the caller could change the global's state "
                        "between calls, which the comparison of the two programs' states does not follow")

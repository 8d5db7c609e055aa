"""Globals and initializers: what the verifier knows about a module's `util.global`s.

A resource global is storage of its own (`verify.storage`, `AllocKind.GLOBAL`): every load of it
in one function names the same storage (until the function stores another value into it), which
is distinct from every other allocation of the function. An immutable global (no `mutable`) is
written only by initializers: writing its storage anywhere is BORROWED_INPUT_MUTATED, and so is
storing it outside an initializer.

IREE's PropagateTimepoints gives each resource global `@g` a companion timepoint global
`@g__timepoint`: a store of `@g` is paired with a store of the timepoint that covers the stored
value's work, and a load of `@g` is used only after the loaded `@g__timepoint` is reached. A
companion is *always immediate* when its initial value is `#stream.timepoint<immediate>` and every
store of it in the module stores a `stream.timepoint.immediate` (IREE's ElideTimepoints then
drops its loads): loads of `@g` need no wait then.

Assumption (docs/VERIFIER.md): distinct resource globals do not alias each other or the
function's other storage, as distinct imports and arguments do not.

`util.initializer` bodies are verified as functions that take and return nothing
(`initializers`); they run before any function.
"""

from __future__ import annotations

from dataclasses import dataclass

from stream.ir.attributes import Attribute, ImmediateTimepointAttr, StringAttr, SymbolRefAttr, TypeAttr
from stream.ir.core import Module, Op
from stream.ir.types import FunctionType, TimepointType, Type
from stream.ir.walk import Function

__all__ = ["GlobalDecl", "ModuleGlobals", "global_name", "initializers", "INITIALIZER", "COMPANION_SUFFIX",
           "LOAD", "STORE"]

LOAD, STORE = "util.global.load", "util.global.store"
INITIALIZER = "util.initializer"
COMPANION_SUFFIX = "__timepoint"  # IREE's PropagateTimepoints: `<global>__timepoint`


@dataclass(frozen=True, slots=True)
class GlobalDecl:
    name: str
    type: Type | None
    mutable: bool
    initial_value: Attribute | None
    op: Op

    @property
    def is_timepoint(self) -> bool:
        return isinstance(self.type, TimepointType)


def global_name(op: Op) -> str | None:
    """The global a `util.global.load` / `util.global.store` names."""
    ref = op.properties.get("global")
    return ref.root if isinstance(ref, SymbolRefAttr) else None


class ModuleGlobals:
    """The module's global declarations, and facts over every function's stores (computed on
    first use: most functions never ask)."""

    def __init__(self, module: Module | None) -> None:
        self.module = module
        self.decls: dict[str, GlobalDecl] = {}
        if module is not None:
            for op in module.ops:
                if op.name == "util.global":
                    name = op.properties.get("sym_name")
                    ty = op.properties.get("type")
                    if isinstance(name, StringAttr):
                        self.decls[name.value] = GlobalDecl(
                            name.value, ty.type if isinstance(ty, TypeAttr) else None, "is_mutable" in op.properties,
                            op.properties.get("initial_value"), op)
        self._immediate: dict[str, bool] | None = None
        self._initializer_only: frozenset[str] | None = None

    def may_store_immutable(self, func: Op) -> bool:
        """May `func` store an immutable global? IREE (UtilOps.td, VerifyInitializationOrder):
        an initializer, or a private function called only from initializers (directly or through
        such functions)."""
        if func.name == INITIALIZER:
            return True
        if self._initializer_only is None:
            self._initializer_only = self._initializer_only_functions()
        name = func.properties.get("sym_name")
        return isinstance(name, StringAttr) and name.value in self._initializer_only

    def _initializer_only_functions(self) -> frozenset[str]:
        if self.module is None:
            return frozenset()
        callers: dict[str, set[str | None]] = {}  # callee -> its callers (None: an initializer)
        private: set[str] = set()
        for top in self.module.ops:
            if top.name not in ("util.func", "func.func", INITIALIZER):
                continue
            name = top.properties.get("sym_name")
            me = name.value if isinstance(name, StringAttr) and top.name != INITIALIZER else None
            vis = top.properties.get("sym_visibility")
            if me is not None and isinstance(vis, StringAttr) and vis.value == "private":
                private.add(me)
            for op in top.walk():
                callee = op.properties.get("callee") if op.name in ("util.call", "func.call") else None
                if isinstance(callee, SymbolRefAttr):
                    callers.setdefault(callee.root, set()).add(me)
        only: set[str] = set()
        changed = True
        while changed:
            changed = False
            for f in private - only:
                who = callers.get(f)
                if who and all(c is None or c in only for c in who):
                    only.add(f)
                    changed = True
        return frozenset(only)

    def get(self, name: str | None) -> GlobalDecl | None:
        return self.decls.get(name) if name is not None else None

    def companion(self, name: str) -> GlobalDecl | None:
        """The timepoint global PropagateTimepoints pairs with the resource global `name`."""
        decl = self.decls.get(name + COMPANION_SUFFIX)
        return decl if decl is not None and decl.is_timepoint else None

    def always_immediate(self, name: str) -> bool:
        """The timepoint global `name` only ever holds an immediate timepoint."""
        if self._immediate is None:
            self._immediate = self._immediates()
        return self._immediate.get(name, False)

    def _immediates(self) -> dict[str, bool]:
        out = {n: isinstance(d.initial_value, ImmediateTimepointAttr) for n, d in self.decls.items() if d.is_timepoint}
        if self.module is None or not any(out.values()):
            return out
        for top in self.module.ops:
            if top.name not in ("util.func", "func.func", INITIALIZER):
                continue
            makers = {r: op.name for op in top.walk() for r in op.results}
            for op in top.walk():
                if op.name == STORE and op.operands:
                    name = global_name(op)
                    if name in out and makers.get(op.operands[0]) != "stream.timepoint.immediate":
                        out[name] = False
        return out


def initializers(module: Module) -> list[tuple[str, Function]]:
    """The module's `util.initializer`s with bodies, in module order, each with the name the
    report gives it (`initializer#N`, N counting from 0 in module order)."""
    out: list[tuple[str, Function]] = []
    for op in module.ops:
        if op.name == INITIALIZER and op.regions and op.regions[0].blocks:
            name = f"initializer#{len(out)}"
            # A function view of it: the name the report uses, and its `() -> ()` type.
            props = {**op.properties, "sym_name": StringAttr(name), "function_type": TypeAttr(FunctionType((), ()))}
            out.append((name, Function(op.replace(properties=props))))
    return out

"""A module prepared for the executor: what the runtime works out once per op, kept per module.

Ops are immutable, so an op's placement, its named operand groups, a scalar constant's value, a
dispatch's template (its kernel resolved, its bindings laid out), a function's level and ABI
never change: a module run many times (benchmarks, chaos sweeps, `--check` runs on three drivers)
or a function with thousands of submissions computes each once. They live in one `Program` per
module, keyed by the op objects themselves (never by `id(op)`, which a freed op's successor may
reuse), and the program goes when its module goes: `prepared(module)` keeps it in a dictionary
that holds the module weakly, and the program does not refer to the module, so dropping the
module frees the program and every op it holds.

The rules fill their own part lazily (`runtime.executor` places, `runtime.frame` groups and
constants, `runtime.commands` templates, `runtime.api` levels, `runtime.host_ops` the ABI).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, ClassVar

from stream.ir.core import Module, Op
from stream.ir.spec import view
from stream.ir.types import TensorType
from stream.ir.verifier import function_level
from stream.ir.walk import Function

__all__ = ["Program", "prepared", "program_level"]


def program_level(f: Function) -> str | None:
    """The level of a function, counting a tensor in its signature as the input level (a
    function of host ops only has no level of its own)."""
    level = function_level(f.op)
    if level is None and any(isinstance(t, TensorType) for t in (*f.type.inputs, *f.type.results)):
        level = "input"
    return level


class Program:
    """Per-op facts of one module, computed on first use. `groups[op][name]` is `view(op).name`;
    `places[op]` is (placement or None for the module's default, location text); `constants[op]`
    a scalar constant's host value; `templates[op]` (registry, its generation, template);
    `levels[f.op]` and `async_abis[f.op]` a function's level and whether it uses the
    coarse-fences ABI; `holdable` the functions `runtime.values.check_holdable` accepted (the
    module is immutable, so the check, a walk of everything a function calls, is not redone)."""

    __slots__ = ("groups", "places", "constants", "templates", "levels", "async_abis", "holdable", "__weakref__")

    _live: ClassVar[weakref.WeakSet[Program]] = weakref.WeakSet()

    def __init__(self) -> None:
        self.groups: dict[Op, dict[str, Any]] = {}
        self.places: dict[Op, tuple[tuple[str, int] | None, str]] = {}
        self.constants: dict[Op, Any] = {}
        self.templates: dict[Op, tuple[Any, int, Any]] = {}
        self.levels: dict[Op, str | None] = {}
        self.async_abis: dict[Op, bool] = {}
        self.holdable: set[str] = set()
        Program._live.add(self)

    def group(self, op: Op, name: str) -> Any:
        """`view(op).<name>`, computed once per op and group."""
        cache = self.groups.get(op)
        if cache is None:
            cache = self.groups[op] = {}
        try:
            return cache[name]
        except KeyError:
            value = cache[name] = getattr(view(op), name)
            return value

    def level(self, f: Function) -> str | None:
        """`program_level(f)`, computed once."""
        try:
            return self.levels[f.op]
        except KeyError:
            level = self.levels[f.op] = program_level(f)
            return level

    def async_abi(self, f: Function) -> bool:
        """Whether a function uses IREE's coarse-fences (async) ABI: it signals caller fences with
        `stream.timepoint.chain_external`, and the caller observes its results when they are
        reached."""
        try:
            return self.async_abis[f.op]
        except KeyError:
            found = self.async_abis[f.op] = any(o.name == "stream.timepoint.chain_external" for o in f.op.walk())
            return found

    @staticmethod
    def live() -> int:
        """How many prepared programs exist (for tests: they go with their modules)."""
        return len(Program._live)


_PREPARED: weakref.WeakKeyDictionary[Module, Program] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def prepared(module: Module) -> Program:
    """The module's prepared program (made on first use; the same object for every run of the
    module while it is alive)."""
    program = _PREPARED.get(module)
    if program is None:
        with _LOCK:
            program = _PREPARED.get(module)
            if program is None:
                program = _PREPARED[module] = Program()
    return program

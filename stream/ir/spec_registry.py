"""The registry the text layer consults about known ops.

The op tables in `stream.dialect` register one `OpSpec` per op name (see `stream.ir.spec`). The
parser and the printer only need a few facts from it, named by the `RegisteredOp` protocol, so
the text layer does not depend on the tables themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from stream.ir.attributes import Attribute
from stream.ir.core import Location, Op, Region, Value
from stream.ir.types import Type

if TYPE_CHECKING:
    from stream.ir.parser import Parser
    from stream.ir.printer import Printer

__all__ = ["OpState", "RegisteredOp", "register", "lookup", "registered_names"]


@dataclass(slots=True)
class OpState:
    """An op being parsed: everything but its result values, which the parser creates once the
    result types are known (they may have been referenced before their definition)."""

    name: str
    location: Location
    operands: list[Value] = field(default_factory=list)
    result_types: list[Type] = field(default_factory=list)
    properties: dict[str, Attribute] = field(default_factory=dict)
    attributes: dict[str, Attribute] = field(default_factory=dict)
    regions: list[Region] = field(default_factory=list)
    successors: list[tuple[str, int]] = field(default_factory=list)  # (label, text offset)


class RegisteredOp(Protocol):
    name: str
    inherent_attributes: frozenset[str]
    isolated: bool
    default_dialect: str | None
    traits: frozenset[str]

    def region_terminator(self, index: int) -> str | None: ...

    def parse_pretty(self, parser: Parser, state: OpState) -> None: ...

    def print_pretty(self, printer: Printer, op: Op) -> None: ...

    def has_pretty(self) -> bool: ...

    def asm_result_names(self, op: Op) -> list[str | None] | None: ...


_REGISTRY: dict[str, RegisteredOp] = {}
_LOADERS: list[Callable[[], None]] = []


def register(spec: RegisteredOp) -> None:
    if spec.name in _REGISTRY:
        raise ValueError(f"op '{spec.name}' registered twice")
    _REGISTRY[spec.name] = spec


def add_loader(loader: Callable[[], None]) -> None:
    """Defer importing the op tables until the registry is first used."""
    _LOADERS.append(loader)


def _load() -> None:
    while _LOADERS:
        _LOADERS.pop(0)()


def lookup(name: str) -> RegisteredOp | None:
    if _LOADERS:
        _load()
    return _REGISTRY.get(name)


def registered_names() -> list[str]:
    if _LOADERS:
        _load()
    return sorted(_REGISTRY)

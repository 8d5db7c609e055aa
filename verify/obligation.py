"""The `Obligation` record: one thing that must be shown for a function to be free of a property
class, with its *shape* (what must be shown; `verify.obligations` defines the shapes), the sites,
accesses and storage it names, and its range condition (`Cond`).

Every obligation family (`verify.race_obligations`, `verify.lifetime_obligations`,
`verify.storage_obligations`, `verify.abi_obligations`) builds these; `verify.discharge` decides
them and `verify.witness` explains the failures.
"""

from __future__ import annotations

from dataclasses import dataclass

from stream.ir.core import Op, Value
from verify.events import Site
from verify.model import Access, RangeCheck
from verify.storage import Allocation
from verify.symbolic import Expr

__all__ = ["Obligation", "Cond", "overlap_cond"]

# A condition: a disjunction of conjunctions; each literal `e` means `e > 0`.
Cond = tuple[tuple[Expr, ...], ...]


def overlap_cond(x: Access, y: Access) -> Cond:
    return ((x.hi - y.lo, y.hi - x.lo, x.length, y.length),)


@dataclass(slots=True, eq=False)
class Obligation:
    cls: str
    shape: str
    first: Site | None = None
    second: Site | None = None
    x: Access | None = None
    y: Access | None = None
    alloc: Allocation | None = None
    cond: Cond | None = None
    roles: tuple[str, str] = ("", "")
    detail: str = ""
    rule: str = ""
    op: Op | None = None
    extra: tuple[int, ...] = ()  # DEADLOCK: the units on the cycle; PACK_OVERLAP: the slices
    targets: tuple[Site, ...] = ()  # order_any: `first` must end before one of these starts
    groups: tuple[tuple[Access, ...], tuple[Access, ...]] = ((), ())  # pack: the two slices' accesses
    range_check: RangeCheck | None = None  # OUT_OF_BOUNDS: the range and the size it must fit in
    value: Value | None = None  # readiness: the value consumed

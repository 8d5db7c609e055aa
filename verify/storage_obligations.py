"""Storage obligations: where an access lands and what storage it may touch.

* `bounds`: each byte range the model checks (`RangeCheck`: `length` at `offset`) fits in its
  resource's size, with offset and length non-negative (`OUT_OF_BOUNDS`);
* `packs`: an access through a slice of a `resource.pack` stays in the slice, and slices the pack
  may lay on the same bytes are used one after the other (`PACK_OVERLAP`; `pack_members` and
  `slice_membership` say which accesses go through which slice);
* `borrowed`: nothing writes read-only storage (`BORROWED_INPUT_MUTATED`);
* `affinity`: an op runs on a device the storage it touches lives on (`AFFINITY_MISMATCH`);
* `opaque`: storage an op without an effect rule returned may alias anything: never proved.
"""

from __future__ import annotations

from collections.abc import Iterator

from stream.ir.core import Op
from stream.ir.types import Lifetime
from verify.model import Access, FunctionModel
from verify.obligation import Cond, Obligation
from verify.storage import AllocKind
from verify.symbolic import Expr, overlaps, pack_intervals

__all__ = ["borrowed", "bounds", "pack_members", "slice_membership", "packs", "affinity", "opaque"]

_MADE = (AllocKind.ALLOCA, AllocKind.ALLOC, AllocKind.VALUE, AllocKind.CONSTANTS)


def borrowed(model: FunctionModel) -> Iterator[Obligation]:
    if model.level == "tensor":
        return
    initializer = model.func.op.name == "util.initializer"
    seen: set[tuple[int, int]] = set()
    for a in model.accesses:
        if not a.writes or a.alloc.readonly is None or a.label == "upload" or (a.site.id, a.alloc.id) in seen:
            continue
        seen.add((a.site.id, a.alloc.id))
        if initializer and a.alloc.kind in _MADE and a.alloc.lifetime is Lifetime.CONSTANT:
            continue  # an initializer fills the constants it allocates (IREE's hoisted constants)
        yield Obligation(
            "BORROWED_INPUT_MUTATED", "range", a.site, None, a, None, a.alloc, ((a.length,),), ("write", ""),
            detail=f"writes {a.alloc.readonly}", rule="A2" if model.level == "async" else "",
        )


def bounds(model: FunctionModel) -> Iterator[Obligation]:
    for r in model.ranges:
        o, n, z = r.offset, r.length, r.size
        if not (o.terms or n.terms or z.terms):
            cond: Cond = ((Expr(o.const + n.const - z.const),), (Expr(-o.const),), (Expr(-n.const),))
        else:
            cond = ((o + n - z,), (-o,), (-n,))
        yield Obligation(
            "OUT_OF_BOUNDS", "range", r.site, None, r.access, None, r.access.alloc if r.access is not None else None, cond,
            ("access", ""), detail=r.what, op=r.op, range_check=r,
        )


def pack_members(model: FunctionModel) -> dict[Op, list[list[Access]]]:
    """The accesses made through each slice of each pack: their offset is the slice's plus a
    delta (the slice offset's atom with coefficient 1). One pass over the accesses for all packs."""
    out: dict[Op, list[list[Access]]] = {}
    by_atom: dict[int, list[list[Access]]] = {}
    for op in model.packs:
        offsets = [model.symbols.expr(r) for r in op.results[1:]]
        members: list[list[Access]] = [[] for _ in offsets]
        out[op] = members
        for i, off in enumerate(offsets):
            if off.terms:
                by_atom.setdefault(off.terms[0][0], []).append(members[i])
    if by_atom:
        for a in model.accesses:
            hit: list[list[Access]] = []
            for atom, k in a.lo.terms:
                if k == 1 and atom in by_atom:
                    for group in by_atom[atom]:
                        if not any(g is group for g in hit):
                            hit.append(group)
            for group in hit:
                group.append(a)
    for op, i, a in model.slice_uses:
        if op in out and i < len(out[op]):
            out[op][i].append(a)
    return out


def slice_membership(model: FunctionModel, members: dict[Op, list[list[Access]]] | None = None) -> dict[int, tuple[Op, int, list[bool]]]:
    """access id -> (pack, slice index, which slices' lifetimes intersect this one's)."""
    members = pack_members(model) if members is None else members
    out: dict[int, tuple[Op, int, list[bool]]] = {}
    for op in model.packs:
        intervals = pack_intervals(op)
        for i, group in enumerate(members[op]):
            live = [i < len(intervals) and j < len(intervals) and overlaps(intervals[i], intervals[j]) for j in range(len(intervals))]
            for a in group:
                out[a.id] = (op, i, live)
    return out


def packs(model: FunctionModel, all_members: dict[Op, list[list[Access]]] | None = None) -> Iterator[Obligation]:
    """Accesses through a slice of a `resource.pack` stay in the slice; slices the pack may lay
    out on the same bytes (disjoint lifetime intervals) are used one after the other."""
    s = model.symbols
    all_members = pack_members(model) if all_members is None else all_members
    for op in model.packs:
        offsets = [s.expr(r) for r in op.results[1:]]
        sizes = [s.expr(v) for v in op.operands[len(op.operands) - len(offsets):]]
        intervals = pack_intervals(op)
        members = all_members[op]
        ends = [o + z for o, z in zip(offsets, sizes)]
        for i, group in enumerate(members):
            for a in group:
                cond: Cond = ((offsets[i] - a.lo, a.length), (a.hi - ends[i], a.length))
                yield Obligation(
                    "PACK_OVERLAP", "range", a.site, None, a, None, a.alloc, cond, ("access", ""), op=op,
                    detail=f"the access leaves slice #{i} of the pack",
                )
        for i in range(len(members)):
            for j in range(i):
                if not members[i] or not members[j]:
                    continue
                if i < len(intervals) and j < len(intervals) and overlaps(intervals[i], intervals[j]):
                    continue
                # The pack may lay the two slices on the same bytes: fine only if every use of
                # one happens before every use of the other.
                x, y = members[j][0], members[i][0]
                cond = ((ends[j] - offsets[i], ends[i] - offsets[j], sizes[j], sizes[i]),)
                yield Obligation(
                    "PACK_OVERLAP", "pack", x.site, y.site, x, y, x.alloc, cond, (f"slice #{j}", f"slice #{i}"), op=op,
                    detail=f"slices #{j} and #{i} may share bytes (their lifetime intervals are disjoint) but their uses are not separated in time",
                    extra=(j, i), groups=(tuple(members[j]), tuple(members[i])),
                )


def affinity(model: FunctionModel) -> Iterator[Obligation]:
    units = model.graph.units
    seen: set[tuple[int, int]] = set()
    for a in model.accesses:
        if a.transfer or a.label in ("load", "store", "return", "unknown op", "upload"):
            continue
        d, p = a.site.device, a.alloc.placement
        if d is None or p is None or d & p or (a.site.id, a.alloc.id) in seen:
            continue
        seen.add((a.site.id, a.alloc.id))
        yield Obligation(
            "AFFINITY_MISMATCH", "fact", a.site, None, a, None, a.alloc, roles=("access", ""),
            detail=f"runs on {_devices(d)} but the resource lives on {_devices(p)}",
        )
    for site in model.graph.sites:
        if site.path and site.device is not None:
            region = units[site.unit].site
            if region is not None and region.device is not None and not site.device & region.device:
                yield Obligation(
                    "AFFINITY_MISMATCH", "fact", site, None, roles=("op", ""),
                    detail=f"is placed on {_devices(site.device)} inside a region on {_devices(region.device)}",
                )


def _devices(d: frozenset[str]) -> str:
    return "|".join("@" + x for x in sorted(d))


def opaque(model: FunctionModel) -> Iterator[Obligation]:
    """Storage returned by an op without an effect rule may alias any other storage (its
    operands, a global, another such result): no race, lifetime or wait involving an access
    through it can be decided, so each such allocation that is accessed is one obligation the
    verifier leaves undecided (exit 3), never a proof."""
    seen: set[int] = set()
    for a in model.accesses:
        alloc = a.alloc
        if alloc.kind is not AllocKind.UNKNOWN or alloc.id in seen:
            continue
        seen.add(alloc.id)
        maker = f"'{alloc.op.name}' at {alloc.op.location}" if alloc.op is not None else "an unmodelled op"
        yield Obligation(
            "RACE_WRITE_AFTER_WRITE" if a.writes else "RACE_READ_AFTER_WRITE", "opaque", a.site, None, a, None, alloc,
            roles=("access", ""), op=a.site.op,
            detail=f"{a.site.op.name} uses storage returned by {maker}, which may alias any other storage",
        )

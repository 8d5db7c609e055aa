"""The refinement check's view of a `stream.cmd.dispatch` binding: its executable's subspan.

FuseDispatchBindings (stage 99) binds the whole slab and passes the real offsets as uniform
operands; by the binding contract alone the kernel reads and writes the whole slab, so its terms
at 10 and at 99 are functions of different bytes and cannot be compared. As the verifier does
(`verify.bindings`), a binding whose executable is in the module and has exactly one subspan of
it (`stream.binding.subspan`, offset and dims evaluated in the caller's polynomials by
`verify.exec_arith`) is read and written as that subspan's bytes: `[off + s, off + s + size)`
(a kernel touches its binding only through its subspans; the subspan is assumed to fit in the
binding, as every access is: refinement is claimed for executions without out-of-bounds
accesses). The uniform operands used only for subspan offsets say where the kernel's bytes are,
not what it computes: they are left out of the kernel's term (`Narrowed.offset_only`), and a
pair of i32 halves the executable joins into an index is that index in the term (stage 10
passes it whole), so a stage-10 dispatch and its fused form are the same function of the same
bytes. Anything not read
(no executable, several subspans of a binding, an op outside the interpreted arithmetic) keeps
the whole binding, as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stream.ir.attributes import ArrayAttr, IntegerAttr, SymbolRefAttr
from stream.ir.core import Op, Value
from stream.ir.spec import spec_of
from verify.bindings import BindingContext, Entry, read_entry, subspan_size
from verify.exec_arith import Domain, Interpreter, Unreadable, caller_value
from verify.refinement.ints import IntExpr, Poly
from verify.refinement.machine import Machine
from verify.refinement.overwrites import stores_whole
from verify.refinement.rules_host import POLY_OPS
from verify.refinement.solver import Undecided

__all__ = ["Narrowed", "kernel_ranks", "narrowed"]



class PolyDomain(Domain):
    """The refinement's integers: polynomials, other arithmetic as uninterpreted applications
    (as `verify.refinement.rules_host` evaluates the caller's)."""

    def __init__(self, m: Machine) -> None:
        self.m = m

    def const(self, n: int) -> int:
        return n

    def known(self, x: Any) -> int | None:
        return x if type(x) is int else None

    def scale(self, x: Any, k: int) -> IntExpr:
        return self.m.ints.mul(x, k)

    def same(self, a: Any, b: Any) -> bool:
        return a is b or (type(a) is int and a == b)

    def caller(self, v: Value) -> IntExpr:
        try:
            return self.m.integer(v)
        except Undecided as e:
            raise Unreadable(str(e)) from None

    def arith(self, op: Op, operands: list[Any]) -> list[Any] | None:
        if not op.name.startswith("arith.") or len(operands) != 2 or len(op.results) != 1:
            return None
        if not all(type(x) is int or isinstance(x, Poly) for x in operands):
            return None
        exact = POLY_OPS.get(op.name)
        short = op.name.split(".", 1)[1]
        return [getattr(self.m.ints, exact)(*operands) if exact else self.m.ints.apply(short, *operands)]


@dataclass(slots=True)
class Narrowed:
    """The kernel's interface in subspans: `(binding, subspan offset, size)` in kernel order, and
    the indices of the uniform operands left out of the kernel's term."""

    spans: list[tuple[int, IntExpr, IntExpr]]
    offset_only: frozenset[int]
    # The index a pair of i32 halves carries, in place of its low half (its high half is left
    # out): FuseDispatchBindings splits an index operand in two, stage 10 passes it whole.
    joined: dict[int, IntExpr] = field(default_factory=dict)
    high_halves: frozenset[int] = frozenset()
    # per span: the kernel stores all of it and reads none of it (verify.refinement.overwrites)
    stored: tuple[bool, ...] = ()

    @property
    def dropped(self) -> frozenset[int]:
        return self.offset_only | self.high_halves


def kernel_ranks(m: Machine, op: Op, count: int) -> list[int] | None:
    """The kernel order of the `count` bindings of `op` (`rank[b]`), or None when the executable
    is not read (binding order then). The kernel order is the order of the subspans in the
    exported function: FuseDispatchBindings fuses the bindings of one resource into one and
    renumbers the rest, but keeps the function's ops, so this order is the same at every stage,
    whereas binding order is not (at stage 10 a kernel may bind its weights second and view them
    first; at 99, fused with another input, they are the first binding)."""
    eps = op.properties.get("entry_points")
    refs = [e for e in eps.elements if isinstance(e, SymbolRefAttr)] if isinstance(eps, ArrayAttr) else []
    if getattr(m, "module", None) is None or len(refs) != 1:
        return None
    entry = read_entry(_context(m), refs[0])
    if not isinstance(entry, Entry) or len(entry.subspans) != count:
        return None
    groups = entry.subspans
    if any(not isinstance(g, list) or not g for g in groups):
        return None
    position = {o: i for i, o in enumerate(entry.defs.values())}
    first = [min(position.get(s.op, -1) for s in g) for g in groups]  # type: ignore[union-attr]
    order = sorted(range(count), key=lambda b: first[b])
    rank = [0] * count
    for r, b in enumerate(order):
        rank[b] = r
    return rank


def narrowed(m: Machine, op: Op, count: int) -> Narrowed | None:
    """The subspans of the `count` bindings of `op`, or None (every binding whole) unless each
    binding has at least one and all are read. Kernel order: the order of the subspans in the
    function (`kernel_ranks`: FuseDispatchBindings keeps it; `stream.async.dispatch` orders its
    terms the same way)."""
    module = getattr(m, "module", None)
    eps = op.properties.get("entry_points")
    refs = [e for e in eps.elements if isinstance(e, SymbolRefAttr)] if isinstance(eps, ArrayAttr) else []
    if module is None or len(refs) != 1:
        return None
    ctx = _context(m)
    entry = read_entry(ctx, refs[0])
    spec = spec_of(op)
    assert spec is not None
    uniforms = list(spec.operand_group(op, "uniform_operands"))
    if not isinstance(entry, Entry) or len(entry.subspans) != count or len(entry.uniforms) != len(uniforms):
        return None
    subs = [(j, s) for j, group in enumerate(entry.subspans) if isinstance(group, list) for s in group]
    if any(not isinstance(group, list) or not group for group in entry.subspans):
        return None
    position = {o: i for i, o in enumerate(entry.defs.values())}
    subs.sort(key=lambda js: position.get(js[1].op, -1))
    dom = PolyDomain(m)
    try:
        it = Interpreter(dom, entry.defs, {a: caller_value(dom, ctx.defs, v) for a, v in zip(entry.uniforms, uniforms)})
        spans = [(j, it.integer(s.op.operands[1]), subspan_size(dom, it, s, m.ints.mul)) for j, s in subs]
    except Unreadable:
        return None
    joined: dict[int, IntExpr] = {}
    highs: set[int] = set()
    for lo, hi, value in _joins(entry):
        if lo in entry.offset_only or hi in highs or lo in joined:
            continue
        try:
            joined[lo] = it.integer(value)
        except Unreadable:
            continue
        highs.add(hi)
    stored = tuple(stores_whole(s, entry.ops) for _j, s in subs)
    return Narrowed(spans, entry.offset_only, joined, frozenset(highs - entry.offset_only), stored)


def _joins(entry: Entry) -> list[tuple[int, int, Value]]:
    """`(lo, hi, x)` for each `x = ori(extui(lo), shli(extui(hi), 32))` of two uniform arguments
    (their indices) whose high half is used for nothing else: the pair is the index `x`."""
    index = {a: i for i, a in enumerate(entry.uniforms)}
    uses: dict[Value, int] = {}
    for o in entry.defs.values():
        for v in o.operands:
            uses[v] = uses.get(v, 0) + 1

    def through(v: Value, name: str) -> Value | None:
        d = entry.defs.get(v)
        return d.operands[0] if d is not None and d.name == name and d.operands else None

    out = []
    for o in dict.fromkeys(entry.defs.values()):
        if o.name != "arith.ori" or len(o.operands) != 2:
            continue
        for a, b in (o.operands, o.operands[::-1]):
            lo = through(a, "arith.extui")
            shl = entry.defs.get(b)
            if lo is None or shl is None or shl.name != "arith.shli" or not _is_32(entry, shl.operands[1]):
                continue
            hi = through(shl.operands[0], "arith.extui")
            if lo in index and hi in index and uses.get(hi) == 1 and uses.get(shl.operands[0]) == 1 and uses.get(b) == 1:
                out.append((index[lo], index[hi], o.results[0]))
    return out


def _is_32(entry: Entry, v: Value) -> bool:
    d = entry.defs.get(v)
    attr = d.properties.get("value") if d is not None and d.name == "arith.constant" else None
    return isinstance(attr, IntegerAttr) and attr.value == 32


def _context(m: Machine) -> BindingContext:
    ctx = getattr(m, "bindings", None)
    if ctx is None:
        ctx = BindingContext(getattr(m, "module", None), m.func.op)
        m.bindings = ctx
    return ctx

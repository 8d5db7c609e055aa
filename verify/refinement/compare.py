"""Comparing the terms of two programs, and locating where they diverge.

`Comparer.bytes(before, after)` decides whether two byte strings are equal for every assignment of
the unknowns that satisfies the facts:

* interned terms that are one object are equal (the common case: a correct lowering recomputes the
  very same terms);
* otherwise the segments are aligned (the solver orders their symbolic lengths) and compared piece
  by piece: one atom at equal offsets (equal modulo the period of a splat); two kernel outputs of
  one entry point and binding with equal inputs, uniforms and workload (recursively); two scalar
  stores of equal scalars;
* uninitialized bytes of BEFORE may be refined by anything (the source promised nothing about
  them), but consistently: each piece of one uninitialized allocation is bound to the AFTER bytes
  it is first matched with, and later matches must agree. Uninitialized bytes of AFTER where
  BEFORE has defined bytes are a mismatch.

A question the solver cannot settle raises `Undecided` (the check splits cases or reports
unknown); nothing is ever assumed equal.

`Comparer.locate` walks from the first differing piece of an observable to the op of AFTER that
introduced the difference: into kernel outputs of one entry point and binding whose inputs differ
(the kernel itself is not to blame, its inputs are), until the terms stop having the same head.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from stream.ir.core import Op
from verify.refinement.ints import IntExpr
from verify.refinement.machine import Context, same
from verify.refinement.solver import Undecided
from verify.refinement.terms import (
    Atom,
    ByteStr,
    ConstAtom,
    DispatchAtom,
    OpaqueAtom,
    Scalar,
    ScalarAtom,
    ScalarTerm,
    SplatAtom,
    UninitAtom,
)

__all__ = ["Divergence", "Comparer", "Blame"]


@dataclass(slots=True)
class Divergence:
    """The first differing piece of two byte strings: bytes `[position, position + length)`, which
    are `length` bytes of `before_atom` from `before_offset` in BEFORE and likewise in AFTER."""

    position: IntExpr
    length: IntExpr
    before_atom: Atom | None
    before_offset: IntExpr
    after_atom: Atom | None
    after_offset: IntExpr
    reason: str = ""


@dataclass(slots=True)
class Blame:
    """Where AFTER diverges: the op (None: none identifiable), why, and the two terms there."""

    op: Op | None
    reason: str
    before: str
    after: str


@dataclass(slots=True)
class _Cursor:
    atom: Atom
    offset: IntExpr
    left: IntExpr


@dataclass(slots=True)
class Comparer:
    ctx: Context
    _memo: dict[tuple[int, int], Divergence | tuple[str, int, Divergence | None] | None] = field(default_factory=dict)
    _bindings: dict[int, list[tuple[IntExpr, IntExpr, Atom, IntExpr]]] = field(default_factory=dict)

    # -- equality ----------------------------------------------------------------------------------
    def bytes(self, before: ByteStr, after: ByteStr) -> Divergence | None:
        """None when equal; else the first differing piece."""
        if before is after:
            return None
        facts = self.ctx.facts
        ints = self.ctx.ints
        if not facts.must_eq(before.length, after.length, "sizes of the compared values"):
            return Divergence(0, 0, None, 0, None, 0, f"sizes differ: {ints.render(before.length)} bytes in BEFORE, "
                              f"{ints.render(after.length)} bytes in AFTER")
        bs, as_ = list(before.segs), list(after.segs)
        i = j = 0
        pos: IntExpr = 0
        cb = _Cursor(bs[0].atom, bs[0].offset, bs[0].length) if bs else None
        ca = _Cursor(as_[0].atom, as_[0].offset, as_[0].length) if as_ else None
        while cb is not None and ca is not None:
            order = facts.compare(cb.left, ca.left, "aligning segments")
            n = cb.left if order <= 0 else ca.left
            empty = type(n) is not int and facts.eq(n, 0) is True  # a symbolic piece that is empty here
            if not empty and not self.piece(cb.atom, cb.offset, ca.atom, ca.offset, n):
                return Divergence(pos, n, cb.atom, cb.offset, ca.atom, ca.offset)
            pos = ints.add(pos, n)
            cb.offset, cb.left = ints.add(cb.offset, n), ints.sub(cb.left, n)
            ca.offset, ca.left = ints.add(ca.offset, n), ints.sub(ca.left, n)
            if order <= 0:
                i += 1
                cb = _Cursor(bs[i].atom, bs[i].offset, bs[i].length) if i < len(bs) else None
            if order >= 0:
                j += 1
                ca = _Cursor(as_[j].atom, as_[j].offset, as_[j].length) if j < len(as_) else None
        return None

    def piece(self, ab: Atom, ob: IntExpr, aa: Atom, oa: IntExpr, n: IntExpr) -> bool:
        """Are `n` bytes of `ab` from `ob` (BEFORE) equal to `n` bytes of `aa` from `oa` (AFTER)?"""
        facts, ints = self.ctx.facts, self.ctx.ints
        if isinstance(ab, UninitAtom) and ab.program == "before":
            return self._bind(ab, ob, n, aa, oa)
        if ab is aa:
            if same(ob, oa):
                return True
            period = ab.period
            d = ints.sub(ob, oa)
            if period is not None and type(d) is int:
                return d % period == 0  # type: ignore[operator]
            return facts.must_eq(ob, oa, "offsets into one value")
        for atom in (ab, aa) if not isinstance(aa, UninitAtom) else ():
            # An op without semantics may compute these very bytes (a parameter's contents are an
            # input, as arguments are: another parameter is other bytes; so is what a mutable
            # global holds when the call starts, verify.refinement.global_state); AFTER's
            # uninitialized bytes are no value BEFORE computes.
            if isinstance(atom, OpaqueAtom) and atom.key[:1] not in (("parameter",), ("global-state",)):
                raise Undecided(f"{atom.label(self.ctx.terms)} is not modelled: whether it equals the other program's bytes is unknown")
        # A kernel only one program runs, against bytes the other fills in directly (a splat,
        # constant or stored scalar): a builtin kernel that replaced a splat or fill (IREE's
        # materialize-builtins). Against anything else (an argument, uninitialized bytes, another
        # kernel) an uninterpreted kernel's output stays different bytes, as below.
        for atom, other, bytes_there in ((ab, "after", aa), (aa, "before", ab)):
            if (isinstance(atom, DispatchAtom) and atom.entry not in self.ctx.kernels[other]
                    and isinstance(bytes_there, (SplatAtom, ConstAtom, ScalarAtom))):
                only = "BEFORE" if other == "after" else "AFTER"
                raise Undecided(f"kernel {atom.label(self.ctx.terms, 0)} runs only in {only}: what it computes is not "
                                "modelled, so whether it equals the other program's bytes is unknown")
        if type(ob) is int and type(oa) is int and type(n) is int and _known(ab) and _known(aa):
            # Known bytes on both sides: one constant may be cut or spelled otherwise in each program.
            count = n
            if isinstance(ab, SplatAtom) and isinstance(aa, SplatAtom):  # both repeat with the lcm
                count = min(n, math.lcm(ab.period, aa.period))
            known = (_bytes(ab, ob, count), _bytes(aa, oa, count)) if count <= _MAX_KNOWN else (None, None)
            if known[0] is not None and known[1] is not None:
                return known[0] == known[1]
        if type(ab) is not type(aa):
            return False
        if isinstance(ab, DispatchAtom):
            assert isinstance(aa, DispatchAtom)
            if ab.head != aa.head:
                self._implicit_dims_only(ab, aa)
                return False
            if not facts.must_eq(ob, oa, "offsets into kernel outputs"):
                return False
            return self.dispatch_difference(ab, aa) is None
        if isinstance(ab, ScalarAtom):
            assert isinstance(aa, ScalarAtom)
            return ab.width == aa.width and facts.must_eq(ob, oa, "offsets into stored scalars") and self.scalar(ab.value, aa.value)
        return False  # distinct splats, constants, arguments: different bytes

    def _implicit_dims_only(self, b: DispatchAtom, a: DispatchAtom) -> None:
        """Raise Undecided if the two calls differ only in the trailing encoding dims one of them
        passes implicitly (a `stream.tensor.dispatch` lowered by IREE, which drops them): whether the
        kernel reads them is up to an executable that is not modelled."""
        longer, shorter = (b, a) if len(b.uniforms) > len(a.uniforms) else (a, b)
        extra = len(longer.uniforms) - len(shorter.uniforms)
        if (extra == 0 or longer.implicit_dims < extra or (b.entry, b.binding, len(b.inputs), len(b.workload))
                != (a.entry, a.binding, len(a.inputs), len(a.workload))):
            return
        if self.dispatch_difference(b, a) is None:  # compares the common prefix of the uniforms
            raise Undecided(f"kernel {longer.label(self.ctx.terms, 0)} is called with {extra} more trailing operand(s), "
                            "the encoding dims of a stream.tensor.dispatch, than in the other program: whether it "
                            "reads them is not modelled")

    def dispatch_difference(self, b: DispatchAtom, a: DispatchAtom) -> tuple[str, int, Divergence | None] | None:
        """None if the two kernel outputs are equal, else what differs first: ("input", i, the
        divergence of input i), ("uniform", i, None), ("workload", i, None) or ("length", 0, None)."""
        key = (b.id, a.id)
        if key in self._memo:
            return self._memo[key]  # type: ignore[return-value]
        facts = self.ctx.facts
        result: tuple[str, int, Divergence | None] | None = None
        if not facts.must_eq(b.length, a.length, "kernel output sizes"):
            result = ("length", 0, None)
        if result is None:
            for i, (x, y) in enumerate(zip(b.workload, a.workload)):
                if not facts.must_eq(x, y, "workloads"):
                    result = ("workload", i, None)
                    break
        if result is None:
            for i, (u, w) in enumerate(zip(b.uniforms, a.uniforms)):
                if not self.scalar(u, w):
                    result = ("uniform", i, None)
                    break
        if result is None:
            for i, (xb, yb) in enumerate(zip(b.inputs, a.inputs)):
                d = self.bytes(xb, yb)
                if d is not None:
                    result = ("input", i, d)
                    break
        self._memo[key] = result
        return result

    def scalar(self, b: Scalar, a: Scalar) -> bool:
        if b is a:
            return True
        if not self._scalar(b, a):
            for x in (b, a):
                what = self._unmodelled(x)
                if what is not None:
                    raise Undecided(f"{what} is not modelled: whether the two values are equal is unknown")
            return False
        return True

    def _unmodelled(self, x: object, depth: int = 0) -> str | None:
        """The first value without semantics in `x` (an opaque result, also inside a select of
        such values): two terms that differ there may still be equal."""
        if isinstance(x, ScalarTerm):
            if x.kind == "opaque":
                return x.text
            if x.kind == "apply" and depth < 16:
                return next((w for w in (self._unmodelled(y, depth + 1) for y in x.payload[1:]) if w is not None), None)
            return None
        return self.ctx.ints.unmodelled(x)  # type: ignore[arg-type]

    def _scalar(self, b: Scalar, a: Scalar) -> bool:
        if isinstance(b, ScalarTerm) or isinstance(a, ScalarTerm):
            if not (isinstance(b, ScalarTerm) and isinstance(a, ScalarTerm)) or b.kind != a.kind:
                return False
            if b.kind == "load" and b.payload[1] == a.payload[1]:
                return self.bytes(b.payload[0], a.payload[0]) is None
            if b.kind == "apply" and b.payload[0] == a.payload[0] and len(b.payload) == len(a.payload):
                # The same function of equal arguments (a select on one condition of equal sides).
                return all(self.scalar(x, y) for x, y in zip(b.payload[1:], a.payload[1:]))
            return False
        return self.ctx.facts.must_eq(b, a, "scalar operands")

    def _bind(self, ab: UninitAtom, ob: IntExpr, n: IntExpr, aa: Atom, oa: IntExpr) -> bool:
        """BEFORE's uninitialized bytes `[ob, ob+n)` of one allocation are refined by AFTER's
        `aa` from `oa`, if that agrees with every earlier use of overlapping bytes."""
        facts, ints = self.ctx.facts, self.ctx.ints
        shift = ints.sub(oa, ob)
        for ob2, n2, aa2, oa2 in self._bindings.get(ab.id, []):
            if facts.disjoint(ob, n, ob2, n2) is True:
                continue
            if aa2 is aa and facts.eq(shift, ints.sub(oa2, ob2)) is True:
                continue
            raise Undecided(f"uninitialized bytes of {ab.label(self.ctx.terms)} are read as different values in AFTER")
        self._bindings.setdefault(ab.id, []).append((ob, n, aa, oa))
        return True

    # -- locating ----------------------------------------------------------------------------------
    def render_piece(self, atom: Atom | None, offset: IntExpr, length: IntExpr) -> str:
        if atom is None:
            return "<nothing>"
        return self.ctx.terms.render(self.ctx.terms.of(atom, length, offset), 2)

    def locate(self, d: Divergence, context: Op | None, context_reason: str) -> Blame:
        """The op of AFTER to blame for divergence `d` of a value that `context` produced (or last
        wrote; `context_reason` says so), following kernel outputs whose inputs differ."""
        before = self.render_piece(d.before_atom, d.before_offset, d.length)
        after = self.render_piece(d.after_atom, d.after_offset, d.length)
        ab, aa = d.before_atom, d.after_atom
        creators_after = self.ctx.creators["after"]
        creators_before = self.ctx.creators["before"]
        ints = self.ctx.ints
        if isinstance(ab, DispatchAtom) and isinstance(aa, DispatchAtom) and ab.head == aa.head and same(d.before_offset, d.after_offset):
            diff = self.dispatch_difference(ab, aa)
            creator = creators_after.get(aa.id, context)
            if diff is not None:
                what, index, sub = diff
                name = creator.name if creator is not None else "the kernel"
                if what == "input" and sub is not None:
                    span = f"[{ints.render(sub.position)}, {ints.render(ints.add(sub.position, sub.length))})"
                    inner = (f"{name} reads different bytes in its input {index} at {span}: AFTER has "
                             f"{self.render_piece(sub.after_atom, sub.after_offset, sub.length)}, BEFORE has "
                             f"{self.render_piece(sub.before_atom, sub.before_offset, sub.length)}")
                    sa = sub.after_atom
                    moved = sa is not None and (sa is sub.before_atom or sa.id in creators_before or sa.id not in creators_after)
                    if moved or sub.before_atom is None:
                        # The kernel reads bytes that exist in BEFORE too, from the wrong place.
                        return Blame(creator, inner, before, after)
                    deeper = self.locate(sub, creator, inner)
                    return Blame(deeper.op, deeper.reason, before, after)
                return Blame(creator, f"{name} gets a different {what} operand {index}", before, after)
        if ab is None or aa is None:
            return Blame(context, d.reason or context_reason, before, after)
        if context_reason.startswith("these bytes are never written"):
            return Blame(context, context_reason, before, after)
        if isinstance(aa, UninitAtom):
            observation = "AFTER has uninitialized bytes where BEFORE has defined ones"
        elif aa is ab:
            observation = "AFTER takes them from another offset of the same value"
        elif aa.id in creators_before:
            observation = "AFTER puts bytes here that BEFORE computes too, but elsewhere"
        elif aa.id not in creators_after:
            observation = "AFTER has other input bytes here"
        else:
            return Blame(creators_after[aa.id], f"{context_reason}: AFTER computes different bytes", before, after)
        return Blame(context, f"{context_reason}: {observation}", before, after)


_MAX_KNOWN = 1 << 20  # bytes compared one by one when both sides are known constants


def _known(atom: Atom) -> bool:
    return isinstance(atom, SplatAtom) or (isinstance(atom, ConstAtom) and isinstance(atom.data, bytes))


def _bytes(atom: Atom, offset: int, count: int) -> bytes | None:
    """`count` bytes of a splat or decoded constant from `offset` (None past a constant's end)."""
    if isinstance(atom, SplatAtom):
        p = atom.pattern
        return bytes(p[(offset + i) % len(p)] for i in range(count))
    assert isinstance(atom, ConstAtom) and isinstance(atom.data, bytes)
    return atom.data[offset:offset + count] if offset + count <= len(atom.data) else None

"""Memory at the cmd level: allocations whose contents are value terms, written and read by range.

An `Allocation` is one piece of storage: an import (the caller's buffer), a function argument of
resource type, an `alloca`/`alloc`, a `resource.constants` upload, or the storage a value needed
when a cmd op used it. Its contents are its initial bytes (`base`: the argument, uninitialized
memory or the constant) under a stack of writes, newest last:

* writes at concrete offsets collect in a `ConcreteLayer`, an interval map (sorted, disjoint
  pieces; a later write trims what it covers), so concrete programs read and write in
  O(log n + pieces);
* a write at a symbolic offset (dynamic shapes, pack offsets before layout) is a `SymWrite` layer
  of its own. A read walks the layers from the newest: it skips a write the solver proves
  disjoint, takes the part a write covers, and continues below for the rest. Pack slices that are
  only known to be disjoint (never ordered) are handled by the disjointness question alone.

Every piece remembers the op that wrote it, so a mismatch can name the last writer of the bytes
that differ. A question the solver cannot answer raises `Undecided` (the check fails closed or
splits cases, see `verify.refinement.check`).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from stream.ir.core import Op
from verify.refinement.ints import IntExpr
from verify.refinement.solver import Facts
from verify.refinement.terms import ByteStr, Terms

__all__ = ["Allocation", "Piece", "Memory"]


@dataclass(slots=True)
class Piece:
    """Bytes `[lo, hi)` of an allocation (absolute offsets), written by `writer` (None: the
    allocation's initial contents)."""

    lo: IntExpr
    hi: IntExpr
    data: ByteStr
    writer: Op | None


@dataclass(slots=True)
class ConcreteLayer:
    starts: list[int] = field(default_factory=list)
    pieces: list[Piece] = field(default_factory=list)


@dataclass(slots=True)
class SymWrite:
    piece: Piece


@dataclass(eq=False, slots=True)
class Allocation:
    """One piece of storage. `kind` is "import", "argument", "global" (what a mutable global
    holds when the call starts), "alloca", "alloc", "constant" or "value"; `arg_index` is the
    function argument an import or argument stands for."""

    id: int
    kind: str
    what: str
    op: Op | None
    size: IntExpr
    base: ByteStr
    arg_index: int | None = None
    borrowed: bool = False
    consumed: bool = False
    layers: list[ConcreteLayer | SymWrite] = field(default_factory=list)
    # Value-level tie tracking: bumped by every in-place write, with the window each write went
    # through (`ties`: (new version, offset, size)); see `Machine.bytes_of`.
    version: int = 0
    ties: list[tuple[int, IntExpr, IntExpr]] = field(default_factory=list)
    # Why the final contents of this storage are not an observable of BEFORE (written while
    # borrowed, or read after an in-place write): the source gave no guarantee about them.
    unconstrained: str | None = None
    exported: bool = False  # some export hands this storage to the caller
    written: bool = False


@dataclass(slots=True)
class Memory:
    terms: Terms
    facts: Facts

    # -- writes ----------------------------------------------------------------------------------
    def write(self, alloc: Allocation, offset: IntExpr, data: ByteStr, writer: Op | None) -> None:
        end = self.terms.ints.add(offset, data.length)
        alloc.written = True
        piece = Piece(offset, end, data, writer)
        layers = alloc.layers
        if type(offset) is int and type(end) is int:
            if not layers or not isinstance(layers[-1], ConcreteLayer):
                layers.append(ConcreteLayer())
            self._write_concrete(layers[-1], piece)  # type: ignore[arg-type]
            return
        if layers and isinstance(layers[-1], SymWrite):
            top = layers[-1].piece
            if top.lo is offset and top.hi is end:
                layers[-1] = SymWrite(piece)  # the same range again: the old write is dead
                return
        layers.append(SymWrite(piece))

    def _write_concrete(self, layer: ConcreteLayer, piece: Piece) -> None:
        lo, hi = piece.lo, piece.hi
        assert type(lo) is int and type(hi) is int
        if hi <= lo:
            return
        starts, pieces = layer.starts, layer.pieces
        j0 = bisect.bisect_right(starts, lo) - 1
        if j0 < 0 or pieces[j0].hi <= lo:  # type: ignore[operator]
            j0 += 1
        j1 = bisect.bisect_left(starts, hi)
        replacement: list[Piece] = []
        if j0 < j1:
            first, last = pieces[j0], pieces[j1 - 1]
            if first.lo < lo:  # type: ignore[operator]
                replacement.append(self._trim(first, first.lo, lo))
            replacement.append(piece)
            if last.hi > hi:  # type: ignore[operator]
                replacement.append(self._trim(last, hi, last.hi))
        else:
            replacement.append(piece)
        pieces[j0:j1] = replacement
        starts[j0:j1] = [p.lo for p in replacement]  # type: ignore[misc]

    def _trim(self, p: Piece, lo: IntExpr, hi: IntExpr) -> Piece:
        ints = self.terms.ints
        return Piece(lo, hi, self.terms.slice(p.data, ints.sub(lo, p.lo), ints.sub(hi, lo)), p.writer)

    # -- reads -----------------------------------------------------------------------------------
    def read(self, alloc: Allocation, offset: IntExpr, length: IntExpr) -> ByteStr:
        if not alloc.layers:
            return self.terms.slice(alloc.base, offset, length)
        pieces = self.read_traced(alloc, offset, length)
        if len(pieces) == 1:
            return pieces[0].data
        return self.terms.concat(p.data for p in pieces)

    def read_traced(self, alloc: Allocation, offset: IntExpr, length: IntExpr) -> list[Piece]:
        """The pieces of `[offset, offset + length)` in order, each with its last writer."""
        end = self.terms.ints.add(offset, length)
        out: list[Piece] = []
        self._resolve(alloc, offset, end, len(alloc.layers) - 1, out)
        return out

    def _resolve(self, alloc: Allocation, a: IntExpr, b: IntExpr, level: int, out: list[Piece]) -> None:
        """Append the pieces of `[a, b)` as seen from `level` down (newest layer first)."""
        ints = self.terms.ints
        n = ints.sub(b, a)
        if type(n) is int and n <= 0:
            return
        while level >= 0:
            layer = alloc.layers[level]
            if isinstance(layer, ConcreteLayer):
                if type(a) is int and type(b) is int:
                    self._resolve_concrete(alloc, layer, a, b, level, out)
                    return
                for p in layer.pieces:
                    rest = self._against(alloc, p, a, b, n, level, out)
                    if rest is not a:
                        if rest is b:
                            return
                        a, n = rest, ints.sub(b, rest)
            else:
                rest = self._against(alloc, layer.piece, a, b, n, level, out)
                if rest is not a:
                    if rest is b:
                        return
                    a, n = rest, ints.sub(b, rest)
            level -= 1
        out.append(Piece(a, b, self.terms.slice(alloc.base, a, n), None))

    def _resolve_concrete(self, alloc: Allocation, layer: ConcreteLayer, a: int, b: int, level: int, out: list[Piece]) -> None:
        starts, pieces = layer.starts, layer.pieces
        i = max(bisect.bisect_right(starts, a) - 1, 0)
        pos = a
        while i < len(pieces) and pos < b:
            p = pieces[i]
            plo, phi = p.lo, p.hi
            assert type(plo) is int and type(phi) is int
            if phi <= pos:
                i += 1
                continue
            if plo >= b:
                break
            if plo > pos:
                self._resolve(alloc, pos, plo, level - 1, out)
                pos = plo
            hi = min(phi, b)
            out.append(p if (plo == pos and phi == hi) else self._trim(p, pos, hi))
            pos = hi
            i += 1
        if pos < b:
            self._resolve(alloc, pos, b, level - 1, out)

    def _against(self, alloc: Allocation, w: Piece, a: IntExpr, b: IntExpr, n: IntExpr, level: int, out: list[Piece]) -> IntExpr:
        """Against the write `w`, the read `[a, b)` (`n` bytes): resolve the part before `w`
        below `level`, take the part `w` covers, and return where the rest starts (`a` itself
        when `w` is elsewhere, `b` itself when nothing is left). Inside one layer the pieces are
        visited left to right, so what lies before `w` is not covered by a later piece."""
        facts = self.facts
        wlo, whi = w.lo, w.hi
        if facts.disjoint(a, n, wlo, w.data.length) is True:
            return a
        lo = a if facts.must_le(wlo, a, "write start against read start") else wlo
        hi = b if facts.must_le(b, whi, "read end against write end") else whi
        # A write that covers the whole read answers it, empty or not: whether the read is
        # empty only matters when the write covers part of it.
        covers = lo is a and hi is b and facts.le(a, b) is True
        if not covers and facts.must_le(hi, lo, "empty intersection"):
            return a
        if lo is not a and not (type(lo) is int and lo == a):
            self._resolve(alloc, a, lo, level - 1, out)
        out.append(self._trim(w, lo, hi) if not (lo is wlo and hi is whi) else w)
        return b if (hi is b or (type(hi) is int and hi == b)) else hi

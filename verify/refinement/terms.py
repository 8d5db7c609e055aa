"""Value terms: hash-consed byte strings built from uninterpreted atoms.

A resource's contents are a `ByteStr`: a tuple of `Seg`s, each `length` bytes of an `Atom` starting
at `offset` inside the atom. Atoms are the leaves of the semantics:

| atom | bytes of |
|---|---|
| `ArgAtom(p)` | the buffer the caller passed as function argument `p` |
| `UninitAtom` | fresh memory of one allocation (`alloca`, `tensor.empty`): one unknown per allocation |
| `DispatchAtom` | `dispatch_out(entry, binding j, inputs, uniforms, workload)`: the uninterpreted output a kernel writes to binding `j` |
| `SplatAtom` | a repeated byte pattern (`splat`, `fill`, splat constants), normalized to its shortest period |
| `ConstAtom` | the bytes of a dense constant |
| `ScalarAtom` | the bytes of a scalar stored by `tensor.store` / `resource.store` |
| `OpaqueAtom` | the result or effect of an op the semantics does not model (threaded through a world token) |

Everything is hash-consed by the `Terms` factory of one check, so that equal terms are one object
and comparing two results is usually a pointer comparison. Byte strings are normalized so that
equal contents have one spelling: adjacent segments that continue one atom are merged, empty
segments vanish, a slice of a slice is one segment, and a segment of a periodic splat is reduced
modulo its period. With symbolic lengths the normal form is not unique: `verify.refinement.compare`
then aligns segments with the solver.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from verify.refinement.ints import IntExpr, Ints
from verify.refinement.solver import Facts, Undecided

__all__ = [
    "Atom",
    "ArgAtom",
    "UninitAtom",
    "DispatchAtom",
    "SplatAtom",
    "ConstAtom",
    "ScalarAtom",
    "OpaqueAtom",
    "ScalarTerm",
    "Scalar",
    "Seg",
    "ByteStr",
    "Terms",
]


class Atom:
    """Base of the byte-string leaves. Atoms are interned: compare them with `is`."""

    __slots__ = ()
    id: int
    period: int | None = None  # bytes after which the contents repeat (splats)

    def label(self, terms: Terms, depth: int = 2) -> str:  # pragma: no cover - overridden
        raise NotImplementedError


@dataclass(frozen=True, slots=True, eq=False)
class ArgAtom(Atom):
    index: int
    id: int

    def label(self, terms: Terms, depth: int = 2) -> str:
        return f"arg{self.index}"


@dataclass(frozen=True, slots=True, eq=False)
class UninitAtom(Atom):
    """Undefined contents of one allocation of one program (`program` is "before"/"after")."""

    program: str
    tag: tuple[Any, ...]
    what: str
    id: int

    def label(self, terms: Terms, depth: int = 2) -> str:
        return f"uninit({self.what})"


@dataclass(frozen=True, slots=True, eq=False)
class DispatchAtom(Atom):
    entry: tuple[str, ...]
    binding: int
    inputs: tuple[ByteStr, ...]
    uniforms: tuple[Scalar, ...]
    workload: tuple[IntExpr, ...]
    length: IntExpr
    id: int
    # How many trailing uniforms are a `stream.tensor.dispatch`'s encoding dims, which streamproof
    # passes to the kernel and IREE's encode-host-tensors does not.
    implicit_dims: int = 0

    @property
    def head(self) -> tuple[Any, ...]:
        return (self.entry, self.binding, len(self.inputs), len(self.uniforms), len(self.workload))

    def label(self, terms: Terms, depth: int = 2) -> str:
        name = self.entry[0] if len(self.entry) == 1 else "{" + ", ".join(self.entry) + "}"
        if depth <= 0:
            args = "..."
        else:
            parts = [terms.render(x, depth - 1) for x in self.inputs]
            parts += [terms.render_scalar(u) for u in self.uniforms]
            args = ", ".join(parts)
        wl = f"[{', '.join(terms.ints.render(w) for w in self.workload)}]" if self.workload else ""
        return f"{name}{wl}#{self.binding}({args})"


@dataclass(frozen=True, slots=True, eq=False)
class SplatAtom(Atom):
    pattern: bytes
    id: int

    @property
    def period(self) -> int:  # type: ignore[override]
        return len(self.pattern)

    def label(self, terms: Terms, depth: int = 2) -> str:
        return f"splat(0x{self.pattern.hex()})"


@dataclass(frozen=True, slots=True, eq=False)
class ConstAtom(Atom):
    data: bytes | str  # the decoded bytes, or the attribute text when it cannot be decoded
    id: int

    def label(self, terms: Terms, depth: int = 2) -> str:
        if isinstance(self.data, str):
            return f"const({self.data[:40]}{'...' if len(self.data) > 40 else ''})"
        return f"const({len(self.data)} bytes, 0x{self.data[:8].hex()}{'...' if len(self.data) > 8 else ''})"


@dataclass(frozen=True, slots=True, eq=False)
class ScalarAtom(Atom):
    """The bytes of a scalar repeated forever: a store is its first `width` bytes, a fill or
    splat with a symbolic pattern is a longer stretch of it."""

    value: Scalar
    width: int
    id: int

    @property
    def period(self) -> int:  # type: ignore[override]
        return self.width

    def label(self, terms: Terms, depth: int = 2) -> str:
        return f"bytes({terms.render_scalar(self.value)}, {self.width})"


@dataclass(frozen=True, slots=True, eq=False)
class OpaqueAtom(Atom):
    key: tuple[Any, ...]
    what: str
    id: int

    def label(self, terms: Terms, depth: int = 2) -> str:
        return f"opaque({self.what})"


@dataclass(frozen=True, slots=True, eq=False)
class ScalarTerm:
    """A non-index scalar: a float constant (`kind="bits"`, payload `(width, bits)`), a value
    loaded from memory (`"load"`, payload `(ByteStr, type)`), or an opaque result."""

    kind: str
    payload: tuple[Any, ...]
    text: str
    id: int


Scalar = IntExpr | ScalarTerm


@dataclass(frozen=True, slots=True, eq=False)
class Seg:
    length: IntExpr
    atom: Atom
    offset: IntExpr


class ByteStr:
    """Contents of a resource: segments in order. Interned: equal spellings are one object."""

    __slots__ = ("segs", "length", "id", "_starts", "_concrete")

    def __init__(self, segs: tuple[Seg, ...], length: IntExpr, id: int) -> None:
        self.segs = segs
        self.length = length
        self.id = id
        self._starts: tuple[IntExpr, ...] | None = None
        self._concrete: bool | None = None

    def __repr__(self) -> str:
        return f"<ByteStr #{self.id} {len(self.segs)} segs>"


@dataclass(slots=True)
class Terms:
    """Factory and interner of atoms, scalars and byte strings for one refinement check."""

    ints: Ints
    facts: Facts
    _atoms: dict[tuple[Any, ...], Atom] = field(default_factory=dict)
    _scalars: dict[tuple[Any, ...], ScalarTerm] = field(default_factory=dict)
    _segs: dict[tuple[Any, ...], Seg] = field(default_factory=dict)
    _strs: dict[tuple[Seg, ...], ByteStr] = field(default_factory=dict)
    empty: ByteStr = field(init=False)

    def __post_init__(self) -> None:
        self.empty = ByteStr((), 0, 0)
        self._strs[()] = self.empty

    # -- atoms ---------------------------------------------------------------------------------
    def _atom(self, key: tuple[Any, ...], make: Any) -> Any:
        a = self._atoms.get(key)
        if a is None:
            a = make(len(self._atoms) + 1)
            self._atoms[key] = a
        return a

    def arg(self, index: int) -> ArgAtom:
        return self._atom(("arg", index), lambda i: ArgAtom(index, i))  # type: ignore[no-any-return]

    def uninit(self, program: str, tag: tuple[Any, ...], what: str) -> UninitAtom:
        return self._atom(("uninit", program, tag), lambda i: UninitAtom(program, tag, what, i))  # type: ignore[no-any-return]

    def dispatch(
        self,
        entry: tuple[str, ...],
        binding: int,
        inputs: Sequence[ByteStr],
        uniforms: Sequence[Scalar],
        workload: Sequence[IntExpr],
        length: IntExpr,
        implicit_dims: int = 0,
    ) -> DispatchAtom:
        key = ("dispatch", entry, binding, tuple(inputs), tuple(uniforms), tuple(workload), length, implicit_dims)
        return self._atom(  # type: ignore[no-any-return]
            key, lambda i: DispatchAtom(entry, binding, tuple(inputs), tuple(uniforms), tuple(workload), length, i, implicit_dims)
        )

    def splat(self, pattern: bytes) -> SplatAtom:
        pattern = _shortest_period(pattern)
        return self._atom(("splat", pattern), lambda i: SplatAtom(pattern, i))  # type: ignore[no-any-return]

    def const(self, data: bytes | str) -> Atom:
        # A constant that repeats a short pattern is a splat: `dense<0.0>` and `splat 0 : i32`
        # must meet whatever spelling a lowering chooses.
        if isinstance(data, bytes) and data and len(_shortest_period(data)) <= MAX_SPLAT_PERIOD:
            return self.splat(data)
        return self._atom(("const", data), lambda i: ConstAtom(data, i))  # type: ignore[no-any-return]

    def scalar_bytes(self, value: Scalar, width: int) -> ScalarAtom:
        return self._atom(("scalar", value, width), lambda i: ScalarAtom(value, width, i))  # type: ignore[no-any-return]

    def opaque(self, key: tuple[Any, ...], what: str) -> OpaqueAtom:
        return self._atom(("opaque", key), lambda i: OpaqueAtom(key, what, i))  # type: ignore[no-any-return]

    def scalar(self, kind: str, payload: tuple[Any, ...], text: str) -> ScalarTerm:
        key = (kind, payload)
        s = self._scalars.get(key)
        if s is None:
            s = ScalarTerm(kind, payload, text, len(self._scalars) + 1)
            self._scalars[key] = s
        return s

    # -- byte strings ----------------------------------------------------------------------------
    def seg(self, length: IntExpr, atom: Atom, offset: IntExpr) -> Seg:
        period = atom.period
        if period == 1:
            offset = 0
        elif period is not None and type(offset) is int:
            offset %= period  # type: ignore[operator]
        key = (length, atom, offset)
        s = self._segs.get(key)
        if s is None:
            s = Seg(length, atom, offset)
            self._segs[key] = s
        return s

    def of(self, atom: Atom, length: IntExpr, offset: IntExpr = 0) -> ByteStr:
        """`length` bytes of `atom` from `offset`."""
        return self.make([self.seg(length, atom, offset)])

    def make(self, segs: Iterable[Seg]) -> ByteStr:
        """The normalized byte string of these segments, in order."""
        out: list[Seg] = []
        add = self.ints.add
        for s in segs:
            if type(s.length) is int and s.length == 0:
                continue
            if out:
                prev = out[-1]
                if prev.atom is s.atom and self._continues(prev, s):
                    out[-1] = self.seg(add(prev.length, s.length), prev.atom, prev.offset)
                    continue
            out.append(s)
        key = tuple(out)
        bs = self._strs.get(key)
        if bs is None:
            bs = ByteStr(key, self.ints.sum(s.length for s in key), len(self._strs))
            self._strs[key] = bs
        return bs

    def _continues(self, prev: Seg, nxt: Seg) -> bool:
        period = prev.atom.period
        if period == 1:
            return True
        end = self.ints.add(prev.offset, prev.length)
        if period is not None and type(end) is int:
            end %= period  # type: ignore[operator]
        return end is nxt.offset or (type(end) is int and type(nxt.offset) is int and end == nxt.offset)

    def concat(self, parts: Iterable[ByteStr]) -> ByteStr:
        return self.make(s for p in parts for s in p.segs)

    def starts(self, bs: ByteStr) -> tuple[IntExpr, ...]:
        """Offsets of the segments of `bs`, plus its length at the end."""
        if bs._starts is None:
            acc: IntExpr = 0
            out = [acc]
            for s in bs.segs:
                acc = self.ints.add(acc, s.length)
                out.append(acc)
            bs._starts = tuple(out)
            bs._concrete = all(type(x) is int for x in out)
        return bs._starts

    def slice(self, bs: ByteStr, offset: IntExpr, length: IntExpr) -> ByteStr:
        """Bytes `[offset, offset + length)` of `bs` (the caller guarantees they are in bounds)."""
        if type(length) is int and length == 0:
            return self.empty
        if (type(offset) is int and offset == 0) and (length is bs.length or length == bs.length):
            return bs
        segs = bs.segs
        add, sub = self.ints.add, self.ints.sub
        if len(segs) == 1:
            s = segs[0]
            return self.make([self.seg(length, s.atom, add(s.offset, offset))])
        starts = self.starts(bs)
        end = add(offset, length)
        out: list[Seg] = []
        if bs._concrete and isinstance(offset, int) and isinstance(end, int):
            cs = cast(tuple[int, ...], starts)
            i = max(bisect.bisect_right(cs, offset) - 1, 0)
            while i < len(segs) and cs[i] < end:
                s = segs[i]
                lo, hi = max(cs[i], offset), min(cs[i + 1], end)
                if hi > lo:
                    out.append(self.seg(hi - lo, s.atom, add(s.offset, lo - cs[i])))
                i += 1
            return self.make(out)
        facts = self.facts
        for i, s in enumerate(segs):
            s_lo, s_hi = starts[i], starts[i + 1]
            if facts.must_le(s_hi, offset, "segment before the slice"):
                continue
            if facts.must_le(end, s_lo, "segment after the slice"):
                break
            first: IntExpr = offset if facts.must_le(s_lo, offset, "slice start") else s_lo
            last: IntExpr = end if facts.must_le(end, s_hi, "slice end") else s_hi
            out.append(self.seg(sub(last, first), s.atom, add(s.offset, sub(first, s_lo))))
        return self.make(out)

    def overwrite(self, bs: ByteStr, offset: IntExpr, piece: ByteStr) -> ByteStr:
        """`bs` with bytes `[offset, offset + len(piece))` replaced by `piece`."""
        add, sub = self.ints.add, self.ints.sub
        end = add(offset, piece.length)
        head = self.slice(bs, 0, offset)
        tail = self.slice(bs, end, sub(bs.length, end))
        return self.concat((head, piece, tail))

    # -- rendering ---------------------------------------------------------------------------------
    def render(self, bs: ByteStr, depth: int = 2) -> str:
        if not bs.segs:
            return "<empty>"
        parts = []
        for s in bs.segs[:6]:
            inner = s.atom.label(self, depth)
            text = self.ints.render(s.offset)
            off = "" if text == "0" else f"@({text})" if " " in text else f"@{text}"
            parts.append(f"{inner}{off}[{self.ints.render(s.length)}]")
        if len(bs.segs) > 6:
            parts.append(f"... ({len(bs.segs) - 6} more)")
        return " ++ ".join(parts)

    def render_scalar(self, v: Scalar) -> str:
        if isinstance(v, ScalarTerm):
            return v.text
        return self.ints.render(v)


MAX_SPLAT_PERIOD = 16


def _shortest_period(data: bytes) -> bytes:
    """The shortest prefix whose repetition is `data`, looking at periods up to 16 bytes."""
    n = len(data)
    for p in range(1, min(n, MAX_SPLAT_PERIOD) + 1):
        if n % p == 0 and data[:p] * (n // p) == data:
            return data[:p]
    return data


__all__ += ["Undecided"]

"""What a `stream.cmd.dispatch` binding really addresses: its executable's subspans.

IREE's FuseDispatchBindings (the final stage) widens every binding of a dispatch to the whole
slab and moves the real offsets into the dispatch's uniform operands (an `index` split into two
`i32` halves: `arith.index_castui` for the low half, `arith.trunci(arith.shrui(x, 32))` for the
high one), which the executable puts back together (`arith.extui`, `arith.shli`, `arith.ori`,
`arith.index_castui`) and adds to the offset of each `stream.binding.subspan` of the binding. By
the dispatch contract alone a binding may touch all of its range, so two dispatches of one wave
writing disjoint parts of the slab look like a race.

`narrowed_bindings(b, op)` evaluates the executable's subspans in the caller's terms: the
executable function's arguments are the dispatch's uniform operands (non-binding arguments, in
order) and resources (binding arguments, in order), as IREE's `makeOperandToArgMap` and
`makeResourceToArgMap` map them. The offset and dynamic dims of each subspan are interpreted
over the verifier's symbolic integers (`verify.symbolic`: affine forms over atoms, facts for
products and quotients; the interpreter is `verify.exec_arith`), with the halves of a split index
tracked exactly (`ori(extui(lo(x)), shli(extui(hi(x)), 32))` is `x`, for every 64-bit `x`).
Each subspan gives the byte range `[off + s, off + s + size)` of the resource (`off` the
binding's offset, `s` the subspan's offset, `size` the byte size of its tensor type),
intersected with the binding's range: the dispatch touches at most those bytes of the binding,
in the binding's declared mode. A subspan of whole-byte elements must also fit in its binding
(`[s, s + size)` in `[0, len)`: an OUT_OF_BOUNDS obligation, the stage-10 range check the
widening moved into the executable); sub-byte elements may be packed, so their rounded size is
only an upper bound, good for the access and not for that check.

A binding keeps its whole range, with a note saying why, when the executable cannot be read:
no executable or function in the module for an entry point, a binding argument used by anything
but `stream.binding.subspan`, an op in an offset or size computation that is not interpreted
here (`verify.exec_arith.SUBSPAN_RULES`, plus the verifier's evaluators of index arithmetic), a tensor type without a byte
size (an encoding, an unranked tensor, an element without a byte width). Several entry points
(one per target) give the union of their subspans.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3

from stream.ir.attributes import ArrayAttr, StringAttr, SymbolRefAttr
from stream.ir.core import Module, Op, Value
from stream.ir.diagnostics import DiagnosticError, SourceFile
from stream.ir.spec import spec_of
from stream.ir.types import IndexType, OpaqueType, TensorType, Type, element_byte_width
from stream.ir.walk import FUNCTION_OPS
from verify.exec_arith import SUBSPAN_RULES, Domain, Interpreter, Unreadable, caller_value
from verify.symbolic import EVALUATORS, Expr, Symbols, const
from verify.verbatim import PASS_THROUGH, SSA_PREFIX, VERBATIM, read_verbatim

__all__ = ["narrowed_bindings", "BindingContext", "Narrowing", "Span", "read_entry", "subspan_size", "Entry", "Subspan", "SymDomain"]

_BINDING = "!stream.binding"
_DISPATCH_TENSOR = "!iree_tensor_ext.dispatch.tensor<"


@dataclass(slots=True)
class Subspan:
    binding: int  # index among the function's binding arguments
    op: Op
    element_bytes: int
    shape: tuple[int | None, ...]
    exact: bool  # elements of whole bytes: the size is exact (sub-byte ones may be packed: an upper bound)


@dataclass(slots=True)
class Span:
    """One subspan of a binding: `length` bytes at `offset` of the resource (clipped to the
    binding); `fit`, when the size is exact, is `(subspan offset, size)` in the binding, which
    must fit in it (a kernel viewing bytes past its binding: OUT_OF_BOUNDS)."""

    offset: Expr
    length: Expr
    fit: tuple[Expr, Expr] | None


@dataclass(slots=True)
class Entry:
    """What one exported function says about its bindings, independent of the dispatch site:
    its uniform arguments (in order), per binding the subspans (or why it cannot be read), and
    the defining op of each value of its entry block."""

    uniforms: list[Value]
    subspans: list[list[Subspan] | str]
    defs: dict[Value, Op]
    # uniform arguments used only to compute subspan offsets: they say where the kernel reads
    # and writes, not what it computes (the refinement leaves them out of the kernel's terms)
    offset_only: frozenset[int] = frozenset()
    # the entry block's ops (for a verbatim body only those read: `verify.verbatim`)
    ops: tuple[Op, ...] = ()


@dataclass(slots=True)
class BindingContext:
    """Per function model: the exported functions read so far and the caller's defining ops."""

    module: Module | None
    caller: Op
    entries: dict[tuple[str, str], Entry | str] = field(default_factory=dict)
    _defs: dict[Value, Op] | None = None

    @property
    def defs(self) -> dict[Value, Op]:
        if self._defs is None:
            self._defs = {r: o for o in self.caller.walk() for r in o.results}
        return self._defs


@dataclass(slots=True)
class Narrowing:
    """Per binding of a dispatch: the `(offset, length)` ranges it addresses, or None (the whole
    binding) with the reason in `notes`."""

    ranges: list[list[Span] | None]
    notes: list[str]


def narrowed_bindings(sym: Symbols, ctx: BindingContext, op: Op, bindings: list[tuple[Expr, Expr]]) -> Narrowing:
    """The ranges each binding of the `stream.cmd.dispatch` `op` addresses; `bindings` are the
    dispatch's `(offset, length)` per resource, in order."""
    eps = op.properties.get("entry_points")
    refs = [e for e in eps.elements if isinstance(e, SymbolRefAttr)] if isinstance(eps, ArrayAttr) else []
    whole: list[list[Span] | None] = [None] * len(bindings)
    if not refs:
        return Narrowing(whole, ["no entry point"])
    out: list[list[Span]] = [[] for _ in bindings]
    why: list[str | None] = [None] * len(bindings)
    spec = spec_of(op)
    assert spec is not None
    uniforms = list(spec.operand_group(op, "uniform_operands"))
    for ref in refs:
        name = f"@{ref.root}::@{ref.nested[0]}" if len(ref.nested) == 1 else str(ref)
        entry = read_entry(ctx, ref)
        if isinstance(entry, str):
            return Narrowing(whole, [f"{name}: {entry}"])
        if len(entry.uniforms) != len(uniforms) or len(entry.subspans) != len(bindings):
            return Narrowing(whole, [f"{name}: the function's arguments do not match the dispatch"])
        dom = SymDomain(sym)
        try:
            interp = Interpreter(dom, entry.defs, {a: caller_value(dom, ctx.defs, v) for a, v in zip(entry.uniforms, uniforms)})
        except Unreadable as e:
            return Narrowing(whole, [f"{name}: {e}"])
        for j, subs in enumerate(entry.subspans):
            if why[j] is not None:
                continue
            if isinstance(subs, str):
                why[j] = f"{name} binding #{j}: {subs}"
                continue
            try:
                for s in subs:
                    out[j].append(_range(sym, interp, s, *bindings[j]))
            except Unreadable as e:
                why[j] = f"{name} binding #{j}: {e}"
    notes = [w for w in why if w is not None]
    return Narrowing([None if why[j] is not None else out[j] for j in range(len(bindings))], notes)


# -- the exported function ---------------------------------------------------------------------
def read_entry(ctx: BindingContext, ref: SymbolRefAttr) -> Entry | str:
    key = (ref.root, ref.nested[0] if ref.nested else "")
    hit = ctx.entries.get(key)
    if hit is None:
        hit = _read_entry(ctx.module, ref)
        ctx.entries[key] = hit
    return hit


def _read_entry(module: Module | None, ref: SymbolRefAttr) -> Entry | str:
    ex = module.lookup(ref.root) if module is not None and len(ref.nested) == 1 else None
    if ex is None or ex.name != "stream.executable" or not ex.regions or not ex.regions[0].blocks:
        return "no executable in the module"
    body = ex.regions[0].blocks[0].ops
    verbatim = next((o for o in body if o.name == VERBATIM), None)
    unread: dict[int, str] = {}
    mentioned: frozenset[str] | None = None
    if verbatim is not None:
        text = verbatim.properties.get("text")
        read = read_verbatim(text.value if isinstance(text, StringAttr) else "", ref.nested[0], verbatim.location)
        if isinstance(read, str):
            return read
        body, unread, mentioned = read.ops, read.unread, read.mentioned
    export = next((o for o in body if o.name == "stream.executable.export" and _sym(o) == ref.nested[0]), None)
    fref = export.properties.get("function_ref") if export is not None else None
    if not isinstance(fref, SymbolRefAttr) or fref.nested:
        return "no export of that name in the executable"
    func = next((f for inner in body if inner.name == "builtin.module" and inner.regions for blk in inner.regions[0].blocks
                 for f in blk.ops if f.name in FUNCTION_OPS and _sym(f) == fref.root), None)
    if func is None or not func.regions or not func.regions[0].blocks:
        return "the exported function is not in the executable"
    if len(func.regions[0].blocks) != 1:
        return "the exported function has several blocks"
    block = func.regions[0].blocks[0]
    args = block.arguments
    bindings = [a for a in args if _is_binding(a.type)]
    uniforms = [a for a in args if not _is_binding(a.type)]
    subspans: list[list[Subspan] | str] = [[] for _ in bindings]
    index = {a: j for j, a in enumerate(bindings)}
    for o in func.walk():
        for k, v in enumerate(o.operands):
            j = index.get(v)
            if j is None or isinstance(subspans[j], str):
                continue
            if o.name != "stream.binding.subspan" or k != 0:
                subspans[j] = f"used by '{o.name}'"
                continue
            sub = _subspan(o, j)
            entry = subspans[j]
            if isinstance(sub, str):
                subspans[j] = sub
            elif isinstance(entry, list):
                entry.append(sub)
    for j, why in unread.items():
        subspans[j] = why
    defs = {r: o for o in block.ops for r in o.results}
    top = set(block.ops)
    for j, entry in enumerate(subspans):
        if isinstance(entry, list) and any(s.op not in top for s in entry):
            subspans[j] = "a subspan nested in a region"
    return Entry(uniforms, subspans, defs, _offset_only(func, uniforms, mentioned), block.ops)


def _offset_only(func: Op, uniforms: list[Value], mentioned: frozenset[str] | None) -> frozenset[int]:
    """The uniform arguments whose every use, through the interpreted arithmetic, ends as the
    byte offset of a subspan (`mentioned`: for a verbatim body, the names the statements not
    read use; a value among them has uses that are not seen)."""
    uses: dict[Value, list[tuple[Op, int]]] = {}
    for o in func.walk():
        for k, v in enumerate(o.operands):
            uses.setdefault(v, []).append((o, k))

    def only(v: Value, seen: set[Value]) -> bool:
        if v in seen:
            return True
        seen.add(v)
        hint = v.name_hint or ""
        if mentioned is not None and hint.startswith(SSA_PREFIX) and hint[len(SSA_PREFIX):] in mentioned:
            return False
        for o, k in uses.get(v, ()):
            if o.name == "stream.binding.subspan":
                if k != 1:
                    return False
            elif o.name not in SUBSPAN_RULES and o.name not in EVALUATORS:
                return False
            elif o.name in PASS_THROUGH and k < len(o.results):  # result k is operand k
                if not only(o.results[k], seen):
                    return False
            elif not all(only(r, seen) for r in o.results):
                return False
        return True

    return frozenset(i for i, u in enumerate(uniforms) if uses.get(u) and only(u, set()))


def _sym(op: Op) -> str | None:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return getattr(name, "value", None)


def _is_binding(t: Type) -> bool:
    return isinstance(t, OpaqueType) and t.text == _BINDING


def _subspan(op: Op, binding: int) -> Subspan | str:
    t = op.results[0].type if op.results else None
    text = t.text if isinstance(t, OpaqueType) else ""
    if not text.startswith(_DISPATCH_TENSOR) or ":" not in text or not text.endswith(">"):
        return f"a subspan of type {t}"
    inner = text[len(_DISPATCH_TENSOR):-1].split(":", 1)[1]
    from stream.ir.parser import Parser

    try:
        tensor = Parser(SourceFile("<type>", inner)).parse_type()
    except DiagnosticError:
        return f"a subspan of type {t}"
    element = tensor.element if isinstance(tensor, TensorType) else tensor  # else a scalar: `dispatch.tensor<readonly:f32>`
    width = element_byte_width(element)
    if width is None or (isinstance(tensor, TensorType) and (tensor.encoding is not None or tensor.shape is None)):
        return f"a subspan of type {t} (no byte size)"
    shape = tensor.shape or () if isinstance(tensor, TensorType) else ()
    bits = getattr(element, "width", None)
    exact = isinstance(element, IndexType) or (isinstance(bits, int) and bits == 8 * width)
    if sum(d is None for d in shape) != len(op.operands) - 2:
        return "a subspan whose dynamic dims do not match its type"
    return Subspan(binding, op, width, shape, exact)


# -- the verifier's domain -----------------------------------------------------------------------
class SymDomain(Domain):
    """The verifier's affine expressions (`verify.symbolic`); products and quotients of unknowns
    are atoms with facts, through the verifier's `EVALUATORS`."""

    def __init__(self, sym: Symbols) -> None:
        self.sym = sym

    def const(self, n: int) -> Expr:
        return const(n)

    def known(self, x: Any) -> int | None:
        return x.const if isinstance(x, Expr) and x.is_const else None

    def scale(self, x: Any, k: int) -> Expr:
        assert isinstance(x, Expr)
        return x.scale(k)

    def same(self, a: Any, b: Any) -> bool:
        return bool(a == b)

    def caller(self, v: Value) -> Expr:
        return self.sym.expr(v)

    def arith(self, op: Op, operands: list[Any]) -> list[Any] | None:
        fn = EVALUATORS.get(op.name)
        if fn is None:
            return None
        for v, x in zip(op.operands, operands):
            self.sym.define(v, x)
        return list(fn(self.sym, op))


# -- the range of one subspan ---------------------------------------------------------------------
def subspan_size(dom: Domain, it: Interpreter, s: Subspan, mul: Callable[[Any, Any], Any]) -> Any:
    """The byte size of the subspan's tensor: element bytes times its dims (dynamic ones from
    the subspan's operands)."""
    dims = iter(s.op.operands[2:])
    size = dom.const(s.element_bytes)
    for d in s.shape:
        size = mul(size, dom.const(d) if d is not None else it.integer(next(dims)))
    return size


def _range(sym: Symbols, it: Interpreter, s: Subspan, offset: Expr, length: Expr) -> Span:
    """`[offset + so, + size)` clipped to the binding `[offset, offset + length)`."""
    so = it.integer(s.op.operands[1])
    size = subspan_size(it.dom, it, s, lambda a, b: _times(sym, a, b))
    slack = length - so - size
    fit = (so, size) if s.exact else None
    if slack.const >= 0 and all(k > 0 for _, k in slack.terms):  # atoms are >= 0: it fits for all values
        return Span(offset + so, size, fit)
    clipped = sym.fresh("minmax", None, s.op.location, "subspan length clipped to its binding")

    def build(sy: Symbols, m: Expr = clipped, so: Expr = so, size: Expr = size, length: Expr = length) -> z3.BoolRef:
        o, z, n = sy.z3(so), sy.z3(size), sy.z3(length)
        return sy.z3(m) == z3.If(o + z <= n, z, z3.If(o <= n, n - o, 0))

    sym.fact((clipped, so, size, length), build, kind="subspan_clip")
    return Span(offset + so, clipped, fit)


def _times(sym: Symbols, a: Expr, b: Expr) -> Expr:
    if a.is_const:
        return b.scale(a.const)
    if b.is_const:
        return a.scale(b.const)
    p = sym.fresh("product", None, None, "subspan size")

    def build(sy: Symbols, p: Expr = p, a: Expr = a, b: Expr = b) -> z3.BoolRef:
        return sy.z3(p) == sy.z3(a) * sy.z3(b)

    sym.fact((p, a, b), build, nonlinear=True, kind="mul")
    return p

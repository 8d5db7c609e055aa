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
products and quotients), with the halves of a split index tracked exactly (`_Lo`, `_Hi`,
`_HiShifted`: `ori(extui(lo(x)), shli(extui(hi(x)), 32))` is `x`, for every 64-bit `x`).
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
here (`SUBSPAN_RULES`, plus the verifier's evaluators of index arithmetic), a tensor type without a byte
size (an encoding, an unranked tensor, an element without a byte width). Several entry points
(one per target) give the union of their subspans.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import z3

from stream.ir.attributes import ArrayAttr, IntegerAttr, StringAttr, SymbolRefAttr
from stream.ir.core import Module, Op, Value
from stream.ir.diagnostics import DiagnosticError, SourceFile
from stream.ir.rule_table import RuleTable
from stream.ir.spec import spec_of
from stream.ir.types import IndexType, IntegerType, OpaqueType, TensorType, Type, element_byte_width
from stream.ir.walk import FUNCTION_OPS
from verify.symbolic import EVALUATORS, Expr, Symbols, const
from verify.verbatim import VERBATIM, read_verbatim

__all__ = ["narrowed_bindings", "BindingContext", "Narrowing", "Span"]

_BINDING = "!stream.binding"
_DISPATCH_TENSOR = "!iree_tensor_ext.dispatch.tensor<"


@dataclass(frozen=True, slots=True)
class _Lo:
    """The low 32 bits of the index `x` (an `i32` or its extension)."""

    x: Expr


@dataclass(frozen=True, slots=True)
class _Hi:
    """The high 32 bits of the index `x`."""

    x: Expr


@dataclass(frozen=True, slots=True)
class _HiShifted:
    """The high 32 bits of `x`, shifted back into place (`x` with its low 32 bits cleared)."""

    x: Expr


Val = Expr | _Lo | _Hi | _HiShifted


class Unreadable(Exception):
    """The executable cannot be read here; the message says why."""


@dataclass(slots=True)
class _Subspan:
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
class _Entry:
    """What one exported function says about its bindings, independent of the dispatch site:
    its uniform arguments (in order), per binding the subspans (or why it cannot be read), and
    the defining op of each value of its entry block."""

    uniforms: list[Value]
    subspans: list[list[_Subspan] | str]
    defs: dict[Value, Op]


@dataclass(slots=True)
class BindingContext:
    """Per function model: the exported functions read so far and the caller's defining ops."""

    module: Module | None
    caller: Op
    entries: dict[tuple[str, str], _Entry | str] = field(default_factory=dict)
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
        entry = _entry(ctx, ref)
        if isinstance(entry, str):
            return Narrowing(whole, [f"{name}: {entry}"])
        if len(entry.uniforms) != len(uniforms) or len(entry.subspans) != len(bindings):
            return Narrowing(whole, [f"{name}: the function's arguments do not match the dispatch"])
        interp = _Interpreter(sym, entry.defs, {a: _caller_value(sym, ctx, v) for a, v in zip(entry.uniforms, uniforms)})
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
def _entry(ctx: BindingContext, ref: SymbolRefAttr) -> _Entry | str:
    key = (ref.root, ref.nested[0] if ref.nested else "")
    hit = ctx.entries.get(key)
    if hit is None:
        hit = _read_entry(ctx.module, ref)
        ctx.entries[key] = hit
    return hit


def _read_entry(module: Module | None, ref: SymbolRefAttr) -> _Entry | str:
    ex = module.lookup(ref.root) if module is not None and len(ref.nested) == 1 else None
    if ex is None or ex.name != "stream.executable" or not ex.regions or not ex.regions[0].blocks:
        return "no executable in the module"
    body = ex.regions[0].blocks[0].ops
    verbatim = next((o for o in body if o.name == VERBATIM), None)
    unread: dict[int, str] = {}
    if verbatim is not None:
        text = verbatim.properties.get("text")
        read = read_verbatim(text.value if isinstance(text, StringAttr) else "", ref.nested[0], verbatim.location)
        if isinstance(read, str):
            return read
        body, unread = read.ops, read.unread
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
    subspans: list[list[_Subspan] | str] = [[] for _ in bindings]
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
    return _Entry(uniforms, subspans, defs)


def _sym(op: Op) -> str | None:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return getattr(name, "value", None)


def _is_binding(t: Type) -> bool:
    return isinstance(t, OpaqueType) and t.text == _BINDING


def _subspan(op: Op, binding: int) -> _Subspan | str:
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
    return _Subspan(binding, op, width, shape, exact)


# -- the caller's uniform operands ---------------------------------------------------------------
def _width(t: Type) -> int:
    return t.width if isinstance(t, IntegerType) else 64


def _caller_value(sym: Symbols, ctx: BindingContext, v: Value) -> Val:
    """A uniform operand as the executable receives it: a constant truncated to its width, the
    low or high half of an index, else the verifier's expression of it."""
    e = sym.expr(v)
    width = _width(v.type)
    if e.is_const:
        return const(e.const & ((1 << width) - 1))
    d = ctx.defs.get(v)
    if d is not None and width == 32 and d.name in ("arith.index_castui", "arith.trunci") and d.operands:
        src = d.operands[0]
        shr = ctx.defs.get(src)
        if d.name == "arith.trunci" and shr is not None and shr.name == "arith.shrui" and _is_const(sym, shr.operands[1], 32):
            x = sym.expr(shr.operands[0])
            return const((x.const >> 32) & 0xFFFFFFFF) if x.is_const else _Hi(x)
        if _width(src.type) == 64:
            x = sym.expr(src)
            return const(x.const & 0xFFFFFFFF) if x.is_const else _Lo(x)
    return e


def _is_const(sym: Symbols, v: Value, n: int) -> bool:
    e = sym.expr(v)
    return e.is_const and e.const == n


# -- the executable's index arithmetic ------------------------------------------------------------
Rule = Callable[["_Interpreter", Op], list[Val]]
SUBSPAN_RULES: RuleTable[Rule] = RuleTable(
    "SUBSPAN_RULES",
    """The value of each result of an op of an executable's offset and size arithmetic, in the
    caller's terms (`fn(interpreter, op) -> [value]`): an integer expression or a half of a split
    index. Ops without a rule here fall back to the verifier's `EVALUATORS`; an op in neither
    leaves the binding whole (the dispatch may touch all of it), with a note in the report.""",
    policy="refuse",
)
_rule = SUBSPAN_RULES.register


class _Interpreter:
    """Values of the executable's entry block, in the caller's symbolic terms."""

    def __init__(self, sym: Symbols, defs: dict[Value, Op], args: dict[Value, Val]) -> None:
        self.sym = sym
        self.defs = defs
        self.values: dict[Value, Val] = dict(args)

    def value(self, v: Value) -> Val:
        hit = self.values.get(v)
        if hit is not None:
            return hit
        op = self.defs.get(v)
        if op is None:
            raise Unreadable("an offset from outside the function's entry block")
        rule = SUBSPAN_RULES.get(op.name)
        if rule is not None:
            results = rule(self, op)
        elif op.name in EVALUATORS:
            results = self._evaluate(op)
        else:
            raise Unreadable(f"'{op.name}' in an offset or size computation")
        for r, x in zip(op.results, results):
            self.values[r] = x
        return self.values[v]

    def expr(self, v: Value) -> Expr:
        """The value as an integer expression: the low half of an index alone is the index (the
        verifier's assumption that index arithmetic does not wrap, `verify.symbolic`)."""
        x = self.value(v)
        if isinstance(x, Expr):
            return x
        if isinstance(x, _Lo):
            return x.x
        raise Unreadable("the high half of an index used alone")

    def _evaluate(self, op: Op) -> list[Val]:
        """An op of the verifier's index arithmetic (`verify.symbolic.EVALUATORS`)."""
        for v in op.operands:
            if isinstance(v.type, (IndexType, IntegerType)):
                self.sym.define(v, self.expr(v))
        return list(EVALUATORS[op.name](self.sym, op))


@_rule("arith.constant")
def _constant(it: _Interpreter, op: Op) -> list[Val]:
    attr = op.properties.get("value")
    if not isinstance(attr, IntegerAttr):
        raise Unreadable("a non-integer constant in an offset")
    return [const(attr.value)]


@_rule("arith.extui", "arith.index_castui", "arith.index_cast", "arith.extsi", "arith.trunci")
def _cast(it: _Interpreter, op: Op) -> list[Val]:
    x = it.value(op.operands[0])
    src, dst = _width(op.operands[0].type), _width(op.results[0].type)
    if isinstance(x, Expr) and x.is_const:
        n = x.const & ((1 << src) - 1)
        if op.name in ("arith.extsi", "arith.index_cast") and n >> (src - 1):
            raise Unreadable("a negative offset")
        return [const(n & ((1 << dst) - 1))]
    if isinstance(x, Expr) or (dst >= src and op.name in ("arith.extui", "arith.index_castui")):
        return [x]  # an expression: no wrap (verify.symbolic); a half of an index: widened
    raise Unreadable(f"'{op.name}' of a half of an index")


@_rule("arith.shli")
def _shli(it: _Interpreter, op: Op) -> list[Val]:
    x, k = it.value(op.operands[0]), it.expr(op.operands[1])
    if not k.is_const:
        raise Unreadable("a shift by a variable amount")
    width = _width(op.results[0].type)
    if isinstance(x, _Hi) and k.const == 32:
        return [_HiShifted(x.x)]
    if isinstance(x, Expr):
        if x.is_const:
            return [const((x.const << k.const) & ((1 << width) - 1))]
        return [x.scale(1 << k.const)]  # no wrap (verify.symbolic)
    raise Unreadable("a shifted half of an index")


@_rule("arith.ori")
def _ori(it: _Interpreter, op: Op) -> list[Val]:
    a, b = it.value(op.operands[0]), it.value(op.operands[1])
    if isinstance(a, Expr) and isinstance(b, Expr) and a.is_const and b.is_const:
        return [const(a.const | b.const)]
    for x, y in ((a, b), (b, a)):
        if isinstance(x, _Lo) and isinstance(y, _HiShifted) and x.x == y.x:
            return [x.x]
        if isinstance(y, Expr) and y.is_const and y.const == 0:
            return [x]
    raise Unreadable("'arith.ori' of values that are not the halves of one index")


@_rule("util.assume.int", "iree_tensor_ext.dispatch.workload.ordinal")
def _same(it: _Interpreter, op: Op) -> list[Val]:
    """Values passed through: an assumption adds no fact here (sound: it only narrows), a
    workload ordinal is its operand."""
    n = len(op.results)
    return [it.value(v) for v in op.operands[:n]]


# -- the range of one subspan ---------------------------------------------------------------------
def _range(sym: Symbols, it: _Interpreter, s: _Subspan, offset: Expr, length: Expr) -> Span:
    """`[offset + so, + size)` clipped to the binding `[offset, offset + length)`."""
    so = it.expr(s.op.operands[1])
    dims = iter(s.op.operands[2:])
    size = const(s.element_bytes)
    for d in s.shape:
        e = const(d) if d is not None else it.expr(next(dims))
        size = _times(sym, size, e)
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

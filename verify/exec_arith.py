"""An executable's offset and size arithmetic, evaluated in its caller's terms.

The values of an exported function's entry block (`Interpreter`), given the dispatch's uniform
operands, over an integer `Domain`: the verifier's affine expressions (`verify.symbolic.Expr`,
`verify.bindings`) or the refinement check's polynomials (`verify.refinement.ints`,
`verify.refinement.bindings`). FuseDispatchBindings passes an `index` as two `i32` halves (the
caller's `arith.index_castui x : index to i32` and `arith.trunci(arith.shrui(x, 32))`), which
the executable joins with `arith.extui`, `arith.shli` and `arith.ori`: the halves are tracked
exactly (`Lo`, `Hi`, `HiShifted`), so that `ori(extui(lo(x)), shli(extui(hi(x)), 32))` is `x`
for every 64-bit `x`, symbolic or not. A low half used alone is `x` (both domains assume index
arithmetic does not wrap); a high half alone is not read. Constants are exact at their widths.
An op outside `SUBSPAN_RULES` and the domain's own arithmetic raises `Unreadable`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stream.ir.attributes import IntegerAttr
from stream.ir.core import Op, Value
from stream.ir.rule_table import RuleTable
from stream.ir.types import IntegerType, Type

__all__ = ["Domain", "Interpreter", "Unreadable", "SUBSPAN_RULES", "caller_value"]


class Unreadable(Exception):
    """The executable cannot be read here; the message says why."""


class Domain:
    """Integer values of one checker (`X`: an `Expr` or an `IntExpr`)."""

    def const(self, n: int) -> Any:
        raise NotImplementedError

    def known(self, x: Any) -> int | None:
        """The value if it is a constant."""
        raise NotImplementedError

    def scale(self, x: Any, k: int) -> Any:
        raise NotImplementedError

    def same(self, a: Any, b: Any) -> bool:
        raise NotImplementedError

    def caller(self, v: Value) -> Any:
        """The caller's value of `v` (raises `Unreadable` when it has none)."""
        raise NotImplementedError

    def arith(self, op: Op, operands: list[Any]) -> list[Any] | None:
        """The domain's own rule for an integer op of the caller's arithmetic, or None."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Lo:
    """The low 32 bits of the index `x` (an `i32` or its extension)."""

    x: Any


@dataclass(frozen=True, slots=True)
class Hi:
    """The high 32 bits of the index `x`."""

    x: Any


@dataclass(frozen=True, slots=True)
class HiShifted:
    """The high 32 bits of `x`, shifted back into place (`x` with its low 32 bits cleared)."""

    x: Any


_TAGS = (Lo, Hi, HiShifted)


def _width(t: Type) -> int:
    return t.width if isinstance(t, IntegerType) else 64


def caller_value(dom: Domain, defs: dict[Value, Op], v: Value) -> Any:
    """A uniform operand as the executable receives it: a constant truncated to its width, the
    low or high half of an index, else the caller's value of it."""
    e = dom.caller(v)
    width = _width(v.type)
    n = dom.known(e)
    if n is not None:
        return dom.const(n & ((1 << width) - 1))
    d = defs.get(v)
    if d is not None and width == 32 and d.name in ("arith.index_castui", "arith.trunci") and d.operands:
        src = d.operands[0]
        shr = defs.get(src)
        if d.name == "arith.trunci" and shr is not None and shr.name == "arith.shrui" and dom.known(dom.caller(shr.operands[1])) == 32:
            x = dom.caller(shr.operands[0])
            k = dom.known(x)
            return dom.const((k >> 32) & 0xFFFFFFFF) if k is not None else Hi(x)
        if _width(src.type) == 64:
            x = dom.caller(src)
            k = dom.known(x)
            return dom.const(k & 0xFFFFFFFF) if k is not None else Lo(x)
    return e


Rule = Callable[["Interpreter", Op], list[Any]]
SUBSPAN_RULES: RuleTable[Rule] = RuleTable(
    "SUBSPAN_RULES",
    """The value of each result of an op of an executable's offset and size arithmetic, in the
    caller's terms (`fn(interpreter, op) -> [value]`): an integer of the domain or a half of a
    split index. Ops without a rule here fall back to the domain's arithmetic (the verifier's
    `EVALUATORS`, the refinement's polynomials); an op in neither leaves the binding whole (the
    dispatch may touch all of it), with a note in the verifier's report.""",
    policy="refuse",
)
_rule = SUBSPAN_RULES.register


class Interpreter:
    """Values of the executable's entry block, in the caller's terms."""

    def __init__(self, dom: Domain, defs: dict[Value, Op], args: dict[Value, Any]) -> None:
        self.dom = dom
        self.defs = defs
        self.values: dict[Value, Any] = dict(args)

    def value(self, v: Value) -> Any:
        if v in self.values:
            return self.values[v]
        op = self.defs.get(v)
        if op is None:
            raise Unreadable("an offset from outside the function's entry block")
        rule = SUBSPAN_RULES.get(op.name)
        results = rule(self, op) if rule is not None else self.dom.arith(op, [self.integer(x) for x in op.operands])
        if results is None:
            raise Unreadable(f"'{op.name}' in an offset or size computation")
        for r, x in zip(op.results, results):
            self.values[r] = x
        return self.values[v]

    def integer(self, v: Value) -> Any:
        """The value as an integer of the domain: the low half of an index alone is the index
        (index arithmetic does not wrap)."""
        x = self.value(v)
        if isinstance(x, Lo):
            return x.x
        if isinstance(x, _TAGS):
            raise Unreadable("the high half of an index used alone")
        return x

    def known(self, x: Any) -> int | None:
        return None if isinstance(x, _TAGS) else self.dom.known(x)


@_rule("arith.constant")
def _constant(it: Interpreter, op: Op) -> list[Any]:
    attr = op.properties.get("value")
    if not isinstance(attr, IntegerAttr):
        raise Unreadable("a non-integer constant in an offset")
    return [it.dom.const(attr.value)]


@_rule("arith.extui", "arith.index_castui", "arith.index_cast", "arith.extsi", "arith.trunci")
def _cast(it: Interpreter, op: Op) -> list[Any]:
    x = it.value(op.operands[0])
    src, dst = _width(op.operands[0].type), _width(op.results[0].type)
    k = it.known(x)
    if k is not None:
        n = k & ((1 << src) - 1)
        if op.name in ("arith.extsi", "arith.index_cast") and n >> (src - 1):
            raise Unreadable("a negative offset")
        return [it.dom.const(n & ((1 << dst) - 1))]
    if not isinstance(x, _TAGS) or (dst >= src and op.name in ("arith.extui", "arith.index_castui")):
        return [x]  # an integer: no wrap; a half of an index: widened
    raise Unreadable(f"'{op.name}' of a half of an index")


@_rule("arith.shli")
def _shli(it: Interpreter, op: Op) -> list[Any]:
    x, k = it.value(op.operands[0]), it.known(it.integer(op.operands[1]))
    if k is None:
        raise Unreadable("a shift by a variable amount")
    if isinstance(x, Hi) and k == 32:
        return [HiShifted(x.x)]
    if isinstance(x, _TAGS):
        raise Unreadable("a shifted half of an index")
    n = it.known(x)
    if n is not None:
        return [it.dom.const((n << k) & ((1 << _width(op.results[0].type)) - 1))]
    return [it.dom.scale(x, 1 << k)]  # no wrap


@_rule("arith.ori")
def _ori(it: Interpreter, op: Op) -> list[Any]:
    a, b = it.value(op.operands[0]), it.value(op.operands[1])
    ka, kb = it.known(a), it.known(b)
    if ka is not None and kb is not None:
        return [it.dom.const(ka | kb)]
    for x, y in ((a, b), (b, a)):
        if isinstance(x, Lo) and isinstance(y, HiShifted) and it.dom.same(x.x, y.x):
            return [x.x]
        if it.known(y) == 0:
            return [x]
    raise Unreadable("'arith.ori' of values that are not the halves of one index")


@_rule("util.assume.int", "iree_tensor_ext.dispatch.workload.ordinal")
def _same(it: Interpreter, op: Op) -> list[Any]:
    """Values passed through: an assumption adds no fact here (sound: it only narrows), a
    workload ordinal is its operand."""
    n = len(op.results)
    return [it.value(v) for v in op.operands[:n]]

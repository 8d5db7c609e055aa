"""Facts from util, hal and cf ops about the index values of a function (`verify.symbolic`).

IREE's host code states what it knows about sizes with ops of its own, and the slab offsets of
dynamic-shape programs are disjoint only given what they state:

* `util.align %v, %n` rounds `v` up to a multiple of `n`, a power of two (UtilOps.td: `(v + n -
  1) & ~(n - 1)`). With a constant power of two `n` the result `r` is `n·k` for some `k` with
  `v <= r < v + n` (linear facts); with both operands constant it folds. A symbolic or
  non-power-of-two alignment gives an opaque value (nothing is assumed about it).
* `util.assume.int` memorialises ranges and divisibility of its operands: rows of
  `#util.int.assumption<umin = a, umax = b, udiv = d>` per operand, one column per alternative
  (a single entry applies to every alternative). The results are the operands; the facts are
  `OR_j AND_i (umin_ij <= x_i <= umax_ij, x_i % udiv_ij == 0)`. Like LLVM's assume, a false
  assumption is undefined behaviour, so the facts hold on every execution the verifier reasons
  about.
* `arith.cmpi` gives its `i1` result a 0/1 atom equal to the comparison (signed predicates
  compare as unsigned ones do: index values are non-negative and do not wrap, see
  `verify.symbolic`).
* `cf.assert %c` and `hal.buffer_view.assert` (the caller's buffer view has the asserted shape:
  each `hal.buffer_view.dim` of it equals the asserted dim) are runtime checks: the program aborts
  where one fails, so what a check establishes holds for every op issued *after* it, not before.
  Each check gets a guard atom `g` in {0, 1} with the fact `g = 1 -> (condition and the previous
  check's guard = 1)`; an obligation whose latest op is issued after the check adds `g > 0` to
  its condition (`verify.discharge`). Work issued before a failing check still runs, so its
  obligations never see the check's facts.
* `hal.buffer_view.dim` of one buffer view and index is one value (a non-negative atom).

Overflow flags (`nsw`/`nuw` on `arith.addi/subi/muli`) state that the arithmetic does not wrap,
which is what `verify.symbolic` assumes of all index arithmetic; they add no constraint of their
own on mathematical integers.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import z3

from stream.ir.attributes import ArrayAttr, Attribute, IntegerAttr, OpaqueAttr
from stream.ir.core import Op
from verify.symbolic import Expr, Symbols, const, evaluator

__all__ = ["PREDICATES", "parse_assumption", "align_up"]

# arith.cmpi's predicate codes (MLIR's arith::CmpIPredicate).
PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "slt": lambda a, b: a < b, "ult": lambda a, b: a < b,
    "sle": lambda a, b: a <= b, "ule": lambda a, b: a <= b,
    "sgt": lambda a, b: a > b, "ugt": lambda a, b: a > b,
    "sge": lambda a, b: a >= b, "uge": lambda a, b: a >= b,
}  # fmt: skip


def _z3_compare(pred: str, a: z3.ArithRef, b: z3.ArithRef) -> z3.BoolRef:
    return {
        "eq": lambda: a == b, "ne": lambda: a != b, "slt": lambda: a < b, "ult": lambda: a < b,
        "sle": lambda: a <= b, "ule": lambda: a <= b, "sgt": lambda: a > b, "ugt": lambda: a > b,
        "sge": lambda: a >= b, "uge": lambda: a >= b,
    }[pred]()  # fmt: skip


def align_up(value: int, alignment: int) -> int:
    """IREE's `(value + alignment - 1) & ~(alignment - 1)` on unbounded integers."""
    return (value + alignment - 1) & ~(alignment - 1)


# -- util.align ----------------------------------------------------------------------------------
@evaluator("util.align")
def _align(s: Symbols, op: Op) -> list[Expr]:
    v, n = s.expr(op.operands[0]), s.expr(op.operands[1])
    if v.is_const and n.is_const:
        return [const(align_up(v.const, n.const))]
    r = s.fresh("aligned", op.results[0], op.location)
    if not n.is_const or n.const <= 0 or n.const & (n.const - 1):
        return [r]  # a symbolic or non-power-of-two alignment: nothing is known
    k = s.fresh("quotient", None, op.location, f"{op.results[0]} / {n.const}")
    a = n.const

    def build(sy: Symbols) -> z3.BoolRef:
        rr, vv = sy.z3(r), sy.z3(v)
        return z3.And(rr == a * sy.z3(k), rr >= vv, rr < vv + a)

    s.fact((r, k, v), build, kind=f"align:{a}")
    return [r]


# -- util.assume.int -----------------------------------------------------------------------------
_FIELD = re.compile(r"\b(umin|umax|udiv)\s*=\s*(\d+)")


def parse_assumption(attr: Attribute) -> dict[str, int] | None:
    """`#util.int.assumption<umin = a, umax = b, udiv = d>` as its fields (any may be absent);
    None when the attribute is not one."""
    text = attr.text if isinstance(attr, OpaqueAttr) else str(attr)
    if not text.startswith("#util.int.assumption<"):
        return None
    return {k: int(v) for k, v in _FIELD.findall(text)}


def _holds(sy: Symbols, x: Expr, a: dict[str, int]) -> z3.BoolRef:
    xv = sy.z3(x)
    parts: list[z3.BoolRef] = []
    if "umin" in a:
        parts.append(xv >= a["umin"])
    if "umax" in a:
        parts.append(xv <= a["umax"])
    if a.get("udiv", 0) > 1:
        parts.append(xv % a["udiv"] == 0)
    return z3.And(*parts) if parts else z3.BoolVal(True, sy.ctx)


@evaluator("util.assume.int")
def _assume_int(s: Symbols, op: Op) -> list[Expr]:
    exprs = [s.expr(v) for v in op.operands]
    rows_attr = op.properties.get("assumptions")
    rows: list[list[dict[str, int]]] = []
    if isinstance(rows_attr, ArrayAttr) and len(rows_attr.elements) == len(exprs):
        for row in rows_attr.elements:
            items = row.elements if isinstance(row, ArrayAttr) else ()
            parsed = [parse_assumption(a) for a in items]
            if not parsed or any(p is None for p in parsed):
                rows = []
                break
            rows.append([p for p in parsed if p is not None])
    if rows:
        rank = max(len(r) for r in rows)
        if all(len(r) in (1, rank) for r in rows):
            alternatives = [[(x, r[0] if len(r) == 1 else r[j]) for x, r in zip(exprs, rows) if not x.is_const] for j in range(rank)]
            if any(alternatives):
                nonlinear = any(a.get("udiv", 0) > 1 for r in rows for a in r)

                def build(sy: Symbols) -> z3.BoolRef:
                    return z3.Or(*[z3.And(*[_holds(sy, x, a) for x, a in alt]) if alt else z3.BoolVal(True, sy.ctx) for alt in alternatives])

                key = tuple(tuple((k, v) for k, v in sorted(a.items())) for alt in alternatives for _x, a in alt)
                shape_exprs = [x for alt in alternatives for x, _a in alt]
                s.fact(shape_exprs, build, nonlinear=nonlinear, kind=f"assume:{[len(alt) for alt in alternatives]}:{key}")
    return exprs


# -- comparisons and runtime checks ---------------------------------------------------------------
@evaluator("arith.cmpi")
def _cmpi(s: Symbols, op: Op) -> list[Expr]:
    attr = op.properties.get("predicate")
    pred = PREDICATES[attr.value] if isinstance(attr, IntegerAttr) and 0 <= attr.value < len(PREDICATES) else None
    a, b = s.expr(op.operands[0]), s.expr(op.operands[1])
    if pred is None:
        return [s.fresh("opaque", op.results[0], op.location)]
    if a.is_const and b.is_const:
        return [const(int(_COMPARE[pred](a.const, b.const)))]
    c = s.fresh("comparison", op.results[0], op.location)
    s.fact((c, a, b), lambda sy: sy.z3(c) == z3.If(_z3_compare(pred, sy.z3(a), sy.z3(b)), 1, 0), kind=f"cmpi:{pred}")
    return [c]


def check_passed(s: Symbols, op: Op, condition: Callable[[Symbols], z3.BoolRef], exprs: tuple[Expr, ...], kind: str) -> None:
    """Record a runtime check at the current position: a guard atom `g` with `g = 1 ->
    condition` and `g = 1 -> (the previous check's guard = 1)`."""
    g = s.fresh("check", None, op.location, f"the {op.name} at {op.location} passed")
    prev = s.guards[-1][1] if s.guards else const(1)

    def build(sy: Symbols) -> z3.BoolRef:
        gv = sy.z3(g)
        return z3.And(gv <= 1, z3.Implies(gv >= 1, z3.And(sy.z3(prev) >= 1, condition(sy))))

    s.fact((g, prev, *exprs), build, kind=f"check:{kind}")
    s.guards.append((s.position, g))


@evaluator("cf.assert")
def _cf_assert(s: Symbols, op: Op) -> list[Expr]:
    c = s.expr(op.operands[0])
    check_passed(s, op, lambda sy: sy.z3(c) >= 1, (c,), "assert")
    return []


@evaluator("hal.buffer_view.dim")
def _buffer_view_dim(s: Symbols, op: Op) -> list[Expr]:
    attr = op.properties.get("index")
    if not isinstance(attr, IntegerAttr):
        return [s.fresh("opaque", op.results[0], op.location)]
    key = (op.operands[0], attr.value)
    e = s.buffer_view_dims.get(key)
    if e is None:
        e = s.fresh("dim", op.results[0], op.location)
        s.buffer_view_dims[key] = e
    return [e]


@evaluator("hal.buffer_view.assert")
def _buffer_view_assert(s: Symbols, op: Op) -> list[Expr]:
    view = op.operands[0]
    pairs: list[tuple[Expr, Expr]] = []
    for i, v in enumerate(op.operands[3:]):
        d = s.buffer_view_dims.get((view, i))
        if d is None:  # a later hal.buffer_view.dim of it is this value
            d = s.fresh("dim", None, op.location, f"dim {i} of the buffer view")
            s.buffer_view_dims[(view, i)] = d
        pairs.append((d, s.expr(v)))
    flat = tuple(e for p in pairs for e in p)
    check_passed(s, op, lambda sy: z3.And(*[sy.z3(d) == sy.z3(e) for d, e in pairs]), flat, f"shape:{len(pairs)}")
    return []

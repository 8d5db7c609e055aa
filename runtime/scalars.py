"""Scalar values on the host: `arith.constant` and the `arith` ops of index and size arithmetic.

Integers wrap to their type's width (two's complement; `index` is unbounded), floats compute in
their numpy dtype. Comparisons (`arith.cmpi`, `arith.cmpf`, `COMPARE_OPS`) give a Python bool:
`cmpi` reads the bits as its predicate says (signed or unsigned), `cmpf` follows IEEE (an ordered
predicate is false on a NaN, an unordered one true). Shared by the executor's host and the
reference interpreter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.memory import dtype_of
from runtime.values import dense_to_numpy
from stream.ir.attributes import ArrayAttr, Attribute, BoolAttr, DenseAttr, FloatAttr, IntegerAttr
from stream.ir.core import Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.rule_table import OpSet, RuleTable
from stream.ir.types import FloatType, IntegerType, Type

__all__ = ["host_value_of_constant", "eval_arith", "ARITH_OPS", "complex_constant", "COMPARE_OPS", "eval_compare"]


def host_value_of_constant(attr: Attribute, t: Type) -> Any:
    """The run-time value of an `arith.constant`."""
    if isinstance(attr, BoolAttr):
        return attr.value
    if isinstance(attr, IntegerAttr):
        return _wrap(attr.value, t) if isinstance(t, IntegerType) else attr.value
    if isinstance(attr, FloatAttr):
        return np.array(attr.value, dtype=dtype_of(attr.type))[()] if isinstance(attr.type, FloatType) else attr.value
    if isinstance(attr, DenseAttr):
        return dense_to_numpy(attr)
    raise TypeError(f"cannot evaluate constant {attr}")


def _wrap(v: int, t: Type) -> int | bool:
    """Two's-complement wrap of an integer to the width of `t` (index: unbounded)."""
    if isinstance(t, IntegerType):
        if t.width == 1:
            return bool(v & 1)
        mask = (1 << t.width) - 1
        v &= mask
        if t.signedness != "u" and v >> (t.width - 1):
            v -= 1 << t.width
    return v


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _unsigned(v: int, t: Type) -> int:
    return v & ((1 << t.width) - 1) if isinstance(t, IntegerType) else v


_INT_BINARY: RuleTable[Callable[[int, int, Type], int]] = RuleTable(
    "_INT_BINARY",
    """The value of the integer binary arith op on two Python ints of the result type
    (`fn(a, b, type) -> int`, wrapped to the type by `eval_arith`). An op without one is tried
    as another arith op, else refused (exit 2, "cannot be evaluated at run time").""",
    policy="identity",
    entries={
        "arith.addi": lambda a, b, t: a + b,
        "arith.subi": lambda a, b, t: a - b,
        "arith.muli": lambda a, b, t: a * b,
        "arith.divui": lambda a, b, t: _unsigned(a, t) // _unsigned(b, t),
        "arith.divsi": lambda a, b, t: _tdiv(a, b),
        "arith.ceildivui": lambda a, b, t: _cdiv(_unsigned(a, t), _unsigned(b, t)),
        "arith.ceildivsi": lambda a, b, t: -_tdiv(-a, b) if (a % b) else _tdiv(a, b),
        "arith.floordivsi": lambda a, b, t: a // b,
        "arith.remui": lambda a, b, t: _unsigned(a, t) % _unsigned(b, t),
        "arith.remsi": lambda a, b, t: a - _tdiv(a, b) * b,
        "arith.andi": lambda a, b, t: a & b,
        "arith.ori": lambda a, b, t: a | b,
        "arith.xori": lambda a, b, t: a ^ b,
        "arith.shli": lambda a, b, t: a << b,
        "arith.shrui": lambda a, b, t: _unsigned(a, t) >> b,
        "arith.shrsi": lambda a, b, t: a >> b,
        "arith.maxui": lambda a, b, t: max(_unsigned(a, t), _unsigned(b, t)),
        "arith.maxsi": lambda a, b, t: max(a, b),
        "arith.minui": lambda a, b, t: min(_unsigned(a, t), _unsigned(b, t)),
        "arith.minsi": lambda a, b, t: min(a, b),
    },
)
_FLOAT_BINARY: RuleTable[Callable[[Any, Any], Any]] = RuleTable(
    "_FLOAT_BINARY",
    """The numpy function computing the float binary arith op (`fn(a, b)`). An op without one
    is tried as another arith op, else refused.""",
    policy="identity",
    entries={
        "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply, "arith.divf": np.divide,
        "arith.maximumf": np.maximum, "arith.minimumf": np.minimum, "arith.maxnumf": np.fmax, "arith.minnumf": np.fmin,
    },
)


def eval_arith(op: Op, args: list[Any]) -> Any:
    """Evaluate an arith op on run-time scalars (shared with the reference interpreter)."""
    t = op.results[0].type if op.results else None
    if op.name in _INT_BINARY:
        if any(b == 0 for b in args[1:2]) and op.name in ("arith.divui", "arith.divsi", "arith.ceildivui", "arith.ceildivsi",
                                                            "arith.floordivsi", "arith.remui", "arith.remsi"):
            raise ZeroDivisionError(f"'{op.name}' divides by zero")
        return _wrap(_INT_BINARY[op.name](int(args[0]), int(args[1]), t), t)  # type: ignore[arg-type]
    if op.name in _FLOAT_BINARY:
        return _FLOAT_BINARY[op.name](args[0], args[1])
    if op.name == "arith.select":
        return args[1] if args[0] else args[2]
    if op.name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.trunci"):
        return _wrap(int(args[0]), t) if isinstance(t, IntegerType) else int(args[0])
    if op.name == "arith.extui":
        return _wrap(_unsigned(int(args[0]), op.operands[0].type), t)  # type: ignore[arg-type]
    if op.name in ("arith.sitofp", "arith.uitofp", "arith.extf", "arith.truncf"):
        return np.array(args[0], dtype=dtype_of(t))[()]  # type: ignore[arg-type]
    if op.name in ("arith.fptosi", "arith.fptoui"):
        return _wrap(int(args[0]), t)  # type: ignore[arg-type]
    if op.name in ("arith.bitcast", "complex.bitcast"):  # complex<f32> <-> i64: the real part is the low half
        return np.array(args[0], dtype=dtype_of(op.operands[0].type)).view(dtype_of(t))[()]  # type: ignore[arg-type]
    if op.name == "complex.constant":
        return np.array(complex_constant(op), dtype=dtype_of(t))[()]  # type: ignore[arg-type]
    if op.name == "complex.create":
        return np.array(complex(float(args[0]), float(args[1])), dtype=dtype_of(t))[()]  # type: ignore[arg-type]
    raise DiagnosticError.at(op.location, f"'{op.name}' cannot be evaluated at run time")


ARITH_OPS = OpSet(
    "ARITH_OPS",
    "The arith (and complex) ops `eval_arith` evaluates on run-time scalars; the host rules and the reference interpreter register it for each.",
    {*_INT_BINARY, *_FLOAT_BINARY, "arith.select", "arith.index_cast", "arith.index_castui", "arith.extsi",
                       "arith.trunci", "arith.extui", "arith.sitofp", "arith.uitofp", "arith.extf", "arith.truncf",
                       "arith.fptosi", "arith.fptoui", "arith.bitcast", "complex.constant", "complex.bitcast", "complex.create"},
)


def complex_constant(op: Op) -> complex:
    """The value of `complex.constant [re : f32, im : f32] : complex<f32>`."""
    value = op.properties.get("value")
    parts = value.elements if isinstance(value, ArrayAttr) else ()
    if len(parts) != 2 or not all(isinstance(p, (FloatAttr, IntegerAttr)) for p in parts):
        raise DiagnosticError.at(op.location, f"complex.constant takes [real, imaginary], not {value}")
    return complex(float(parts[0].value), float(parts[1].value))  # type: ignore[attr-defined]


# MLIR's arith.CmpIPredicate and arith.CmpFPredicate, in enum order (the generic form stores the number).
_CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_CMPF = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true")
_ORDERED: dict[str, Callable[[Any, Any], bool]] = {
    "eq": lambda a, b: a == b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "ne": lambda a, b: a != b,
}

COMPARE_OPS = OpSet(
    "COMPARE_OPS",
    "The comparisons `eval_compare` evaluates to a Python bool; the host rules and the reference interpreter register it for each.",
    {"arith.cmpi", "arith.cmpf"},
)


def _predicate(op: Op, names: tuple[str, ...]) -> str:
    attr = op.properties.get("predicate")
    if isinstance(attr, IntegerAttr) and 0 <= attr.value < len(names):
        return names[attr.value]
    raise DiagnosticError.at(op.location, f"{op.name}: unknown predicate {attr}")


def eval_compare(op: Op, args: list[Any]) -> bool:
    """The value of an `arith.cmpi` / `arith.cmpf` on two run-time scalars."""
    if op.name == "arith.cmpf":
        pred = _predicate(op, _CMPF)
        if pred in ("false", "true"):
            return pred == "true"
        x, y = float(args[0]), float(args[1])
        unordered = x != x or y != y
        if pred in ("ord", "uno"):
            return unordered == (pred == "uno")
        if unordered:
            return pred[0] == "u"
        return _ORDERED[pred[1:]](x, y)
    pred = _predicate(op, _CMPI)
    a, b = int(args[0]), int(args[1])
    t = op.operands[0].type
    if isinstance(t, IntegerType):  # compare as the predicate reads the bits
        mask = (1 << t.width) - 1
        a, b = a & mask, b & mask
        if pred[0] == "s":
            a, b = (x - (1 << t.width) if x >> (t.width - 1) else x for x in (a, b))
    key = pred[1:] if pred[0] in "su" else pred
    return bool(_ORDERED[key](a, b))

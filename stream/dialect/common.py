"""Shorthands shared by the op tables."""

from __future__ import annotations

from stream.ir.core import Op
from stream.ir.spec import Attr, Operand, Result
from stream.ir.types import INDEX, TIMEPOINT

TENSOR = frozenset({"tensor"})
ASYNC = frozenset({"async"})
CMD = frozenset({"cmd"})
TENSOR_ASYNC = frozenset({"tensor", "async"})
STREAM = frozenset({"tensor", "async", "cmd"})
ASYNC_CMD = frozenset({"async", "cmd"})
INPUT = frozenset({"input"})
ANY = frozenset({"input", "tensor", "async", "cmd"})

AFFINITY = Attr("affinity")
ON = "(`on` `(` $affinity^ `)`)?"
AWAIT = "(`await` `(` $await_timepoint^ `)` `=` `` `>`)?"


def res(name: str, arity: str = "single") -> Operand:
    """A resource operand group."""
    return Operand(name, arity, None, "resource")  # type: ignore[arg-type]


def idx(name: str, arity: str = "single") -> Operand:
    """An index operand group (sizes, offsets, lengths, dims)."""
    return Operand(name, arity, INDEX, "index")  # type: ignore[arg-type]


def tp(name: str, arity: str = "single") -> Operand:
    """A timepoint operand group."""
    return Operand(name, arity, TIMEPOINT, "timepoint")  # type: ignore[arg-type]


def anyv(name: str, arity: str = "single") -> Operand:
    return Operand(name, arity, None, "any")  # type: ignore[arg-type]


def rres(name: str, arity: str = "single") -> Result:
    return Result(name, arity, None, "resource")  # type: ignore[arg-type]


def rtp(name: str = "result_timepoint") -> Result:
    return Result(name, "single", TIMEPOINT, "timepoint")


def ridx(name: str, arity: str = "single") -> Result:
    return Result(name, arity, INDEX, "index")  # type: ignore[arg-type]


def unit(name: str) -> Attr:
    return Attr(name, style="unit")


def named(*names: str | None):  # type: ignore[no-untyped-def]
    """asm_names for ops with a fixed number of results."""

    def names_of(op: Op) -> list[str | None]:
        return list(names)

    return names_of


def results_then_timepoint(op: Op) -> list[str | None]:
    """`%results:N, %result_timepoint` (async.execute)."""
    n = len(op.results) - 1
    return (["results"] + [None] * (n - 1) if n > 0 else []) + ["result_timepoint"]

"""Where element types are used, and the one refusal of a tensor whose elements have no byte size.

Every command meets element types the same way: `uses(module)` yields each tensor type of the
functions (signatures, block arguments, op results, and the types attributes carry: encodings,
`dense<...>` constants, `hal.element_type<...>`) with the op it is used by. The compile pipeline
and the verifier need the byte size of every element they store (`element_byte_width`); an
element that has none (`!stream.timepoint`, another dialect's type) is refused once, up front, by
`check_sized` (a `file:line:col` diagnostic, exit 2). The parser already refuses what MLIR does not
accept as a tensor element (`none`, a tensor, a function type). The executor holds fewer types
than that; its own check is `runtime.values.check_holdable`, over the same `uses`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from stream.ir.attributes import ArrayAttr, Attribute, DenseAttr, DictAttr, FloatAttr, IntegerAttr, TypeAttr
from stream.ir.core import Module, Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.types import ComplexType, FloatType, FunctionType, IntegerType, TensorType, Type, element_byte_width
from stream.ir.walk import FUNCTION_OPS

__all__ = ["Use", "uses", "check_sized", "describe"]


@dataclass(frozen=True, slots=True)
class Use:
    """`type` (a tensor type, or a scalar value's type) used by `op` (`what` says how)."""

    type: Type
    op: Op
    what: str

    @property
    def element(self) -> Type:
        return self.type.element if isinstance(self.type, TensorType) else self.type


class _Found:
    """The first use of each distinct type. `ids` spares re-hashing a type object already seen
    (the parser shares few type objects, and hashing a TensorType is not free: a 1000-dispatch
    schedule has thousands of type references but a handful of distinct types)."""

    __slots__ = ("uses", "ids")

    def __init__(self) -> None:
        self.uses: dict[Type, Use] = {}
        self.ids: set[int] = set()

    def add(self, t: Type, op: Op, how: object) -> None:
        """`how`: an attribute name, a result index, or None for a block argument (the text of
        `Use.what` is made only for a type seen for the first time)."""
        if id(t) in self.ids:
            return
        self.ids.add(id(t))
        if isinstance(t, FunctionType):
            for part in (*t.inputs, *t.results):
                self.add(part, op, how)
        elif t not in self.uses:
            self.uses[t] = Use(t, op, _what(op, how))

    def add_attr(self, attr: Attribute, op: Op, what: object) -> None:
        cls = type(attr)
        if cls is ArrayAttr:
            for a in attr.elements:  # type: ignore[attr-defined]
                self.add_attr(a, op, what)
        elif cls is DictAttr:
            for _, a in attr.entries:  # type: ignore[attr-defined]
                self.add_attr(a, op, what)
        elif cls in _TYPED:
            self.add(attr.type, op, what)  # type: ignore[attr-defined]


_TYPED = (TypeAttr, DenseAttr, IntegerAttr, FloatAttr)


def _what(op: Op, how: object) -> str:
    if isinstance(how, str):
        if how == "function_type" and op.name in FUNCTION_OPS:
            return f"the signature of @{getattr(op.properties.get('sym_name'), 'value', '?')}"
        return f"its attribute '{how}'"
    if isinstance(how, int):
        return f"result {how}" if len(op.results) > 1 else "its result"
    return "a block argument"


def _collect(ops: Iterable[Op]) -> dict[Type, Use]:
    """Each distinct type the ops use, at its first use in program order (one walk)."""
    found = _Found()
    for top in ops:
        for op in top.walk():
            for name, attr in op.properties.items():
                found.add_attr(attr, op, name)
            for name, attr in op.attributes.items():
                found.add_attr(attr, op, name)
            for i, r in enumerate(op.results):
                found.add(r.type, op, i)
            for region in op.regions:
                for block in region.blocks:
                    for a in block.arguments:
                        found.add(a.type, op, None)
    return found.uses


def _functions(module: Module, names: set[str] | None) -> list[Op]:
    out = []
    for op in module.ops:
        if op.name not in FUNCTION_OPS:
            continue
        sym = op.properties.get("sym_name")
        if names is None or getattr(sym, "value", None) in names:
            out.append(op)
    return out


def uses(module: Module, names: set[str] | None = None, scalars: bool = False) -> list[Use]:
    """The first use of each distinct tensor type in the functions of `module` (those named in
    `names`, if given), in program order; with `scalars`, of each scalar value type (integer,
    float, complex) too."""
    kinds = (TensorType, IntegerType, FloatType, ComplexType) if scalars else (TensorType,)
    return [u for t, u in _collect(_functions(module, names)).items() if isinstance(t, kinds)]


def describe(use: Use) -> str:
    """`tensor<4x!stream.timepoint> (its result of stream.tensor.empty)`: where a type is used."""
    inside = f" of {use.type}" if isinstance(use.type, TensorType) else ""
    where = use.what if use.what.startswith("the signature") else f"{use.what} of {use.op.name}"
    return f"{inside} ({where})"


def check_sized(module: Module) -> None:
    """Refuse (DiagnosticError, exit 2) the first tensor whose element type has no byte size:
    nothing can store it, so neither the passes nor the verifier can reason about its bytes."""
    for use in uses(module):
        if element_byte_width(use.element) is None:
            raise DiagnosticError.at(
                use.op.location,
                f"element type {use.element}{describe(use)} has no byte size: a tensor of it cannot be stored in a resource "
                "(elements are integers, floats, index or complex numbers)",
            )

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

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from stream.ir.attributes import ArrayAttr, Attribute, DictAttr
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


def _types_of(t: Type) -> Iterator[Type]:
    """`t` and the types inside it (a function type's inputs and results)."""
    if isinstance(t, FunctionType):
        for part in (*t.inputs, *t.results):
            yield from _types_of(part)
    else:
        yield t


def _attr_types(attr: Attribute) -> Iterator[Type]:
    if isinstance(attr, ArrayAttr):
        for a in attr.elements:
            yield from _attr_types(a)
    elif isinstance(attr, DictAttr):
        for _, a in attr.entries:
            yield from _attr_types(a)
    else:
        t = getattr(attr, "type", None)
        if isinstance(t, Type):
            yield from _types_of(t)


def _op_types(op: Op) -> Iterator[tuple[Type, str]]:
    for name, attr in (*op.properties.items(), *op.attributes.items()):
        if name == "function_type" and op.name in FUNCTION_OPS:
            what = f"the signature of @{getattr(op.properties.get('sym_name'), 'value', '?')}"
        else:
            what = f"its attribute '{name}'"
        for t in _attr_types(attr):
            yield t, what
    for i, r in enumerate(op.results):
        yield r.type, f"result {i}" if len(op.results) > 1 else "its result"
    for region in op.regions:
        for block in region.blocks:
            for a in block.arguments:
                yield a.type, "a block argument"


def _walk(ops: Iterable[Op]) -> Iterator[tuple[Type, Op, str]]:
    for top in ops:
        for op in top.walk():
            for t, what in _op_types(op):
                for part in _types_of(t):
                    yield part, op, what


def _functions(module: Module, names: set[str] | None) -> list[Op]:
    out = []
    for op in module.ops:
        if op.name not in FUNCTION_OPS:
            continue
        sym = op.properties.get("sym_name")
        if names is None or getattr(sym, "value", None) in names:
            out.append(op)
    return out


def uses(module: Module, names: set[str] | None = None, scalars: bool = False) -> Iterator[Use]:
    """Every tensor type used by the functions of `module` (those named in `names`, if given), in
    program order; with `scalars`, every scalar value type (integer, float, complex) too."""
    for t, op, what in _walk(_functions(module, names)):
        if isinstance(t, TensorType) or (scalars and isinstance(t, (IntegerType, FloatType, ComplexType))):
            yield Use(t, op, what)


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

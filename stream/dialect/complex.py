"""The `complex.*` ops a host function uses to make a complex splat or fill value.

IREE spells a complex constant `complex.constant [3.000000e+00 : f32, 1.000000e+01 : f32] :
complex<f32>` (an array of the real and the imaginary part) and its encode-host-tensors pass turns
the value of a `complex<f32>` splat into the pattern `complex.bitcast %cst : complex<f32> to i64`
(the real part's bits low, the imaginary part's high, as they lie in memory). `complex.create
%re, %im : complex<f32>` builds one from two scalars.
"""

from __future__ import annotations

from stream.dialect.common import ANY, anyv
from stream.ir.format import ParseContext
from stream.ir.spec import Attr, OpSpec, Result, define
from stream.ir.types import ComplexType


def _complex_names(_op: object) -> list[str | None]:
    return ["cst"]


define(OpSpec(
    "complex.constant",
    results=(Result("complex"),),
    attrs=(Attr("value", True),),
    levels=ANY,
    traits=frozenset({"pure", "constant"}),
    asm_names=_complex_names,  # type: ignore[arg-type]
    format="$value attr-dict `:` type($complex)",
))

define(OpSpec(
    "complex.bitcast",
    operands=(anyv("operand"),),
    results=(Result("result"),),
    levels=ANY,
    traits=frozenset({"pure"}),
    format="$operand attr-dict `:` type($operand) `to` type($result)",
))


def _parts_of_result(ctx: ParseContext) -> None:
    (t,) = ctx.types.get("complex", [None])
    if isinstance(t, ComplexType):
        ctx.types.setdefault("real", [t.element])
        ctx.types.setdefault("imaginary", [t.element])


define(OpSpec(
    "complex.create",
    operands=(anyv("real"), anyv("imaginary")),
    results=(Result("complex"),),
    levels=ANY,
    traits=frozenset({"pure"}),
    infer=_parts_of_result,
    format="$real `,` $imaginary attr-dict `:` type($complex)",
))

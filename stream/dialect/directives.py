"""Custom directives of IREE's Stream assembly formats (`custom<Name>(...)`).

Each directive is a parse/print pair over named format variables, registered by name and used by
the op tables. The spellings follow IREE 3.13's printed output (see `examples/iree/`): sized
types `!stream.resource<*>{%n}`, tied results `%a{%n}` / `%a as type{%n}`, capture lists
`with(%a as %b: type{%n})`, dispatch bindings `ro %x[%o for %l] : type{%n}`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stream.ir.attributes import ArrayAttr, Attribute, IntegerAttr, StringAttr, SymbolRefAttr, format_symbol
from stream.ir.core import Op, Value
from stream.ir.format import Arg, ParseContext, directive
from stream.ir.parser import Parser, UnresolvedOperand
from stream.ir.types import I32, INDEX, OpaqueType, ResourceType, TensorType, Type

if TYPE_CHECKING:
    from stream.ir.printer import Printer
    from stream.ir.spec import OpSpec

ACCESS_BITS = {"ro": 1, "wo": 2, "rw": 3}
ACCESS_NAMES = {v: k for k, v in ACCESS_BITS.items()}
ACCESS_ATTRS = {name: IntegerAttr(bits, I32) for name, bits in ACCESS_BITS.items()}  # shared: attributes are values


# -- shared pieces -------------------------------------------------------------------------------
def parse_size(p: Parser) -> UnresolvedOperand:
    """`{%size}` right after a resource type."""
    p.expect("{", "and the resource size, as in !stream.resource<*>{%size}")
    size = p.parse_operand()
    p.expect("}")
    return size


def shape_count(t: Type) -> int:
    """How many index values follow a type in `{...}`: a resource's size, a tensor's dynamic dims."""
    if isinstance(t, ResourceType):
        return 1
    if isinstance(t, TensorType):
        return t.dynamic_dims
    return 0


def parse_shape_values(p: Parser, t: Type) -> list[UnresolvedOperand]:
    n = shape_count(t)
    if n == 0:
        return []
    what = "the resource size, as in !stream.resource<*>{%size}" if isinstance(t, ResourceType) else f"{n} dynamic dim value(s), as in tensor<?xf32>{{%d}}"
    p.expect("{", "and " + what)
    values = [p.parse_operand()]
    while p.accept(","):
        values.append(p.parse_operand())
    p.expect("}")
    if len(values) != n:
        raise p.error(f"{t} takes {n} value(s) in {{...}}, found {len(values)}")
    return values


def parse_sized_type(p: Parser) -> tuple[Type, list[UnresolvedOperand]]:
    """A type, followed by `{%size}` (resources) or `{%d...}` (tensors with dynamic dims)."""
    t = p.parse_type()
    return t, parse_shape_values(p, t)


def shaped(pr: Printer, t: Type, values: object) -> str:
    """`type{%v...}` taking as many values from the iterator `values` as the type needs."""
    n = shape_count(t)
    if n == 0:
        return pr.type(t)
    return pr.type(t) + "{" + ", ".join(pr.value(next(values)) for _ in range(n)) + "}"  # type: ignore[call-overload]


def sized(pr: Printer, t: Type, size_text: str | None) -> str:
    return pr.type(t) + ("{" + size_text + "}" if size_text is not None else "")


def tied_attr(ties: list[int], always: bool) -> ArrayAttr | None:
    """IREE's `tied_operands`: one index per result (-1 untied). Region ops store `[]` when
    nothing is tied; dispatches always store the full list."""
    if not always and all(t < 0 for t in ties):
        return ArrayAttr(())
    return ArrayAttr(tuple(IntegerAttr(t, INDEX) for t in ties))


def tied_list(op: Op, n_results: int) -> list[int]:
    attr = op.properties.get("tied_operands")
    if not isinstance(attr, ArrayAttr) or len(attr) != n_results:
        return [-1] * n_results
    return [e.value if isinstance(e, IntegerAttr) else -1 for e in attr.elements]


def parse_results(ctx: ParseContext, operand_uses: list[UnresolvedOperand], operand_types: list[Type], result_name: str, size_name: str) -> list[int]:
    """A result list after `->`: `type{%n}`, `%tied{%n}` or `%tied as type{%n}`, one or in
    parentheses. Returns the tie of each result (index into `operand_uses`, or -1)."""
    p = ctx.parser
    grouped = p.accept("(")
    types: list[Type] = []
    sizes: list[UnresolvedOperand] = []
    ties: list[int] = []
    if not (grouped and p.lexer.peek().is_punct(")")):
        while True:
            tok = p.lexer.peek()
            if tok.kind == "percent":
                use = p.parse_operand()
                index = next((i for i, u in enumerate(operand_uses) if u.name == use.name), None)
                if index is None:
                    raise p.lexer.error_at(use.pos, f"tied result '%{use.name}' is not an operand of this op")
                t = p.parse_type() if p.accept_keyword("as") else operand_types[index]
                ties.append(index)
                types.append(t)
                sizes.extend(parse_shape_values(p, t))
            else:
                t, shape = parse_sized_type(p)
                ties.append(-1)
                types.append(t)
                sizes.extend(shape)
            if not grouped or not p.accept(","):
                break
    if grouped:
        p.expect(")")
    ctx.types[result_name] = types
    ctx.operands[size_name] = sizes
    return ties


def print_results(pr: Printer, op: Op, spec: OpSpec, result_name: str, size_name: str, operands: tuple, parens_for_one: bool = False) -> str:
    results = spec.result_group(op, result_name)
    sizes = iter(spec.operand_group(op, size_name))
    ties = tied_list(op, len(results))
    parts = []
    for r, tie in zip(results, ties):
        if 0 <= tie < len(operands):
            operand = operands[tie]
            text = pr.value(operand)
            if operand.type != r.type:
                text += " as " + pr.type(r.type)
            shape = shaped(pr, r.type, sizes)[len(pr.type(r.type)):]
            parts.append(text + shape)
        else:
            parts.append(shaped(pr, r.type, sizes))
    if len(parts) == 1 and not parens_for_one:
        return parts[0]
    return "(" + ", ".join(parts) + ")"


# -- tied results and type lists -----------------------------------------------------------------
@directive("ShapedTiedResult")
class ShapedTiedResult:
    """`%target as type{%size}` (or `{%dims}` for tensors): the result reuses the target."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        target, size = args[0].name, args[1].name
        # IREE's parseShapedTiedResult reads any SSA name here and ties the result to the target
        # (its lit tests write `-> %arg0 as ...` for a target named otherwise); it prints the target.
        p.parse_operand()
        p.expect_keyword("as")
        t, shape = parse_sized_type(p)
        ctx.types[target] = [t]
        ctx.operands[size] = shape

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        target = spec.operand_group(op, args[0].name)[0]
        shape = iter(spec.operand_group(op, args[1].name))
        pr.write(f"{pr.value(target)} as {shaped(pr, target.type, shape)}")


@directive("ShapedTypeList")
class ShapedTypeList:
    """`t0{%s0}, t1{%s1}`; with three arguments the types also give the (tied) result types."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        types: list[Type] = []
        sizes: list[UnresolvedOperand] = []
        tok = p.lexer.peek()
        if tok.kind in ("bang", "bare") or tok.is_punct("("):
            while True:
                t, shape = parse_sized_type(p)
                types.append(t)
                sizes.extend(shape)
                if not p.accept(","):
                    break
        for a in args[:-1]:
            ctx.types[a.name] = list(types)
        ctx.operands[args[-1].name] = sizes

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        values = spec.operand_group(op, args[0].name)
        sizes = iter(spec.operand_group(op, args[-1].name))
        pr.write(", ".join(shaped(pr, v.type, sizes) for v in values))


# -- symbols -------------------------------------------------------------------------------------
@directive("SymbolVisibility")
class SymbolVisibility:
    """`public` (printed when absent), `private` or `nested`, stored as written (IREE's parser
    stores `public` too; an absent visibility means the same, see `stream.ir.equality`)."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        tok = p.lexer.peek()
        if tok.kind == "bare" and tok.text in ("public", "private", "nested"):
            p.lexer.next()
            ctx.attrs[args[0].name] = StringAttr(tok.text)

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        vis = op.properties.get(args[0].name)
        pr.write(vis.value if isinstance(vis, StringAttr) else "public")


@directive("SymbolAlias")
class SymbolAlias:
    """`@name` or `@name as(@function)`."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        name = p.parse_symbol_ref().root
        ctx.attrs[args[0].name] = StringAttr(name)
        ref = name
        if p.accept_keyword("as"):
            p.expect("(")
            ref = p.parse_symbol_ref().root
            p.expect(")")
        ctx.attrs[args[1].name] = SymbolRefAttr(ref)

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        name = op.properties.get(args[0].name)
        ref = op.properties.get(args[1].name)
        assert isinstance(name, StringAttr)
        pr.write(format_symbol(name.value))
        if isinstance(ref, SymbolRefAttr) and ref.root != name.value:
            pr.write(f" as({ref})")


@directive("DispatchEntryPoints")
class DispatchEntryPoints:
    """`@ex::@fn` or `{@ex::@a, @ex::@b}`."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        refs = []
        if p.accept("{"):
            refs.append(p.parse_symbol_ref())
            while p.accept(","):
                refs.append(p.parse_symbol_ref())
            p.expect("}")
        else:
            refs.append(p.parse_symbol_ref())
        ctx.attrs[args[0].name] = ArrayAttr(tuple(refs))

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        refs = op.properties.get(args[0].name)
        assert isinstance(refs, ArrayAttr)
        if len(refs) == 1:
            pr.write(str(refs.elements[0]))
        else:
            pr.write("{" + ", ".join(map(str, refs.elements)) + "}")


# -- dispatch operands ---------------------------------------------------------------------------
@directive("DispatchOperands")
class DispatchOperands:
    """`(%a[%o to %e for %l], %scalar)`: resource operands carry their byte range."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        operands, offsets, ends, lengths = (a.name for a in args)
        uses: list[UnresolvedOperand] = []
        offs: list[UnresolvedOperand] = []
        ens: list[UnresolvedOperand] = []
        lens: list[UnresolvedOperand] = []
        p.expect("(")
        if not p.lexer.peek().is_punct(")"):
            while True:
                uses.append(p.parse_operand())
                if p.accept("["):
                    offs.append(p.parse_operand())
                    p.expect_keyword("to")
                    ens.append(p.parse_operand())
                    p.expect_keyword("for")
                    lens.append(p.parse_operand())
                    p.expect("]")
                if not p.accept(","):
                    break
        p.expect(")")
        ctx.operands[operands] = uses
        ctx.operands[offsets] = offs
        ctx.operands[ends] = ens
        ctx.operands[lengths] = lens

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        operands, offsets, ends, lengths = (spec.operand_group(op, a.name) for a in args)
        parts = []
        k = 0
        for v in operands:
            if isinstance(v.type, ResourceType) and k < len(offsets):
                parts.append(f"{pr.value(v)}[{pr.value(offsets[k])} to {pr.value(ends[k])} for {pr.value(lengths[k])}]")
                k += 1
            else:
                parts.append(pr.value(v))
        pr.write("(" + ", ".join(parts) + ")")


@directive("ShapedFunctionType")
class ShapedFunctionType:
    """`(t0{%s0}, index) -> result` where a result is `type{%n}` or a tied `%operand{%n}`."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        operands, _operand_types, operand_sizes, results, result_sizes, tied = (a.name for a in args)
        p.expect("(")
        types: list[Type] = []
        sizes: list[UnresolvedOperand] = []
        if not p.lexer.peek().is_punct(")"):
            while True:
                t, shape = parse_sized_type(p)
                types.append(t)
                sizes.extend(shape)
                if not p.accept(","):
                    break
        p.expect(")")
        p.expect("->")
        ctx.types[operands] = types
        ctx.operands[operand_sizes] = sizes
        ties = parse_results(ctx, ctx.operands.get(operands, []), types, results, result_sizes)
        ctx.attrs[tied] = tied_attr(ties, always=True)  # type: ignore[assignment]

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        operands = spec.operand_group(op, args[0].name)
        sizes = iter(spec.operand_group(op, args[2].name))
        ins = ", ".join(shaped(pr, v.type, sizes) for v in operands)
        outs = print_results(pr, op, spec, args[3].name, args[4].name, operands)
        if not spec.result_group(op, args[3].name):
            outs = "()"
        pr.write(f"({ins}) -> {outs}")


@directive("EncodedShapedFunctionType")
class EncodedShapedFunctionType:
    """stream.tensor.dispatch: `(tensor<4x?xf32>{%d} in !stream.resource<*>{%sz}, index) ->
    tensor<...>{%d} in !stream.resource<*>{%sz}` (or `in %a{%sz}` when tied)."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        (operands, _ot, operand_sizes, operand_encodings, operand_dims, results, result_sizes, result_encodings, result_dims, tied) = (a.name for a in args)
        p.expect("(")
        types: list[Type] = []
        sizes: list[UnresolvedOperand] = []
        encodings: list[Attribute] = []
        dims: list[UnresolvedOperand] = []
        if not p.lexer.peek().is_punct(")"):
            while True:
                enc = p.parse_type()
                if isinstance(enc, TensorType):
                    if enc.dynamic_dims:
                        dims.extend(_parse_dims(p))
                    p.expect_keyword("in")
                    t, shape = parse_sized_type(p)
                    encodings.append(_type_attr(enc))
                    types.append(t)
                    sizes.extend(shape)
                else:
                    encodings.append(_type_attr(UNUSED_ENCODING))
                    types.append(enc)
                if not p.accept(","):
                    break
        p.expect(")")
        p.expect("->")
        uses = ctx.operands.get(operands, [])
        grouped = p.accept("(")
        rtypes: list[Type] = []
        rsizes: list[UnresolvedOperand] = []
        rencs: list[Attribute] = []
        rdims: list[UnresolvedOperand] = []
        ties: list[int] = []
        if not (grouped and p.lexer.peek().is_punct(")")):
            while True:
                enc = p.parse_type()
                if isinstance(enc, TensorType) and enc.dynamic_dims:
                    rdims.extend(_parse_dims(p))
                rencs.append(_type_attr(enc))
                p.expect_keyword("in")
                if p.lexer.peek().kind == "percent":
                    use = p.parse_operand()
                    index = next((i for i, u in enumerate(uses) if u.name == use.name), None)
                    if index is None:
                        raise p.lexer.error_at(use.pos, f"tied result '%{use.name}' is not an operand of this op")
                    t = p.parse_type() if p.accept_keyword("as") else types[index]
                    rsizes.append(parse_size(p))
                    ties.append(index)
                    rtypes.append(t)
                else:
                    t, shape = parse_sized_type(p)
                    rtypes.append(t)
                    rsizes.extend(shape)
                    ties.append(-1)
                if not grouped or not p.accept(","):
                    break
        if grouped:
            p.expect(")")
        ctx.types[operands] = types
        ctx.operands[operand_sizes] = sizes
        ctx.attrs[operand_encodings] = ArrayAttr(tuple(encodings))
        ctx.operands[operand_dims] = dims
        ctx.types[results] = rtypes
        ctx.operands[result_sizes] = rsizes
        ctx.attrs[result_encodings] = ArrayAttr(tuple(rencs))
        ctx.operands[result_dims] = rdims
        ctx.attrs[tied] = tied_attr(ties, always=True)  # type: ignore[assignment]

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        names = [a.name for a in args]
        operands = spec.operand_group(op, names[0])
        sizes = iter(spec.operand_group(op, names[2]))
        encs = iter(dispatch_resource_encodings(operands, op.properties.get(names[3])))
        dims = iter(spec.operand_group(op, names[4]))
        parts = []
        for v in operands:
            if isinstance(v.type, ResourceType):
                enc = next(encs)
                parts.append(_enc_text(pr, enc, dims) + " in " + sized(pr, v.type, pr.value(next(sizes))))
            else:
                parts.append(pr.type(v.type))
        results = spec.result_group(op, names[5])
        rsizes = iter(spec.operand_group(op, names[6]))
        rencs = iter(_types_of(op.properties.get(names[7])))
        rdims = iter(spec.operand_group(op, names[8]))
        ties = tied_list(op, len(results))
        outs = []
        for r, tie in zip(results, ties):
            enc_text = _enc_text(pr, next(rencs), rdims)
            size = pr.value(next(rsizes))
            if 0 <= tie < len(operands):
                operand = operands[tie]
                text = pr.value(operand) + (" as " + pr.type(r.type) if operand.type != r.type else "")
                outs.append(f"{enc_text} in {text}{{{size}}}")
            else:
                outs.append(f"{enc_text} in {sized(pr, r.type, size)}")
        out = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"
        pr.write("(" + ", ".join(parts) + ") -> " + out)


# IREE stores one `operand_encodings` entry per operand of a `stream.tensor.dispatch`, this type
# for the ones that are not tensors (index and integer operands).
UNUSED_ENCODING = OpaqueType("!util.unused")


def dispatch_resource_encodings(operands: tuple[Value, ...] | list[Value], attr: Attribute | None) -> list[Type]:
    """The encodings of a tensor dispatch's resource operands, in order, from an
    `operand_encodings` with one entry per operand (IREE's layout) or one per resource operand."""
    encs = _types_of(attr)
    if len(encs) == len(operands):
        return [e for e, v in zip(encs, operands) if isinstance(v.type, ResourceType)]
    return encs


def _type_attr(t: Type) -> Attribute:
    from stream.ir.attributes import TypeAttr

    return TypeAttr(t)


def _types_of(attr: Attribute | None) -> list[Type]:
    from stream.ir.attributes import TypeAttr

    if not isinstance(attr, ArrayAttr):
        return []
    return [e.type for e in attr.elements if isinstance(e, TypeAttr)]


def _parse_dims(p: Parser) -> list[UnresolvedOperand]:
    p.expect("{")
    dims = [p.parse_operand()]
    while p.accept(","):
        dims.append(p.parse_operand())
    p.expect("}")
    return dims


def _enc_text(pr: Printer, enc: Type, dims: object) -> str:
    text = pr.type(enc)
    if isinstance(enc, TensorType) and enc.dynamic_dims:
        text += "{" + ", ".join(pr.value(next(dims)) for _ in range(enc.dynamic_dims)) + "}"  # type: ignore[call-overload]
    return text

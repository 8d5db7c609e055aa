"""Custom directives that carry regions, command bindings and value lists.

`with(%a as %b: type{%n})` capture lists with their bodies (`stream.async.execute`,
`stream.cmd.execute`, `stream.async.concurrent`, ...), `ro %x[%o for %l] : type{%n}` dispatch
bindings, `stream.resource.pack` slice ranges, workgroup-count regions and constant value lists.
The shared pieces (sized types, tied results, access modes) live in `stream.dialect.directives`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stream.dialect.directives import (
    ACCESS_ATTRS,
    ACCESS_BITS,
    ACCESS_NAMES,
    parse_results,
    parse_sized_type,
    print_results,
    shaped,
    sized,
    tied_attr,
)
from stream.ir.attributes import ArrayAttr, Attribute, IntegerAttr
from stream.ir.core import Op, Region
from stream.ir.format import Arg, ParseContext, directive
from stream.ir.parser import UnresolvedOperand
from stream.ir.types import INDEX, ResourceType, Type

if TYPE_CHECKING:
    from stream.ir.printer import Printer
    from stream.ir.spec import OpSpec


# -- regions with captures -----------------------------------------------------------------------
def _parse_captures(ctx: ParseContext, operands: str, sizes: str) -> tuple[list[UnresolvedOperand], list[Type], list[tuple[UnresolvedOperand, Type]]]:
    p = ctx.parser
    uses: list[UnresolvedOperand] = []
    types: list[Type] = []
    size_uses: list[UnresolvedOperand] = []
    entry: list[tuple[UnresolvedOperand, Type]] = []
    p.expect("(")
    if not p.lexer.peek().is_punct(")"):
        while True:
            outer = p.parse_operand()
            p.expect_keyword("as")
            inner = p.parse_operand()
            p.expect(":")
            t, shape = parse_sized_type(p)
            uses.append(outer)
            types.append(t)
            size_uses.extend(shape)
            entry.append((inner, t))
            if not p.accept(","):
                break
    p.expect(")")
    ctx.resolve_now(operands, uses, types)
    ctx.resolve_now(sizes, size_uses, [INDEX] * len(size_uses))
    return uses, types, entry


def _print_captures(pr: Printer, op: Op, spec: OpSpec, operands: str, sizes: str) -> str:
    values = spec.operand_group(op, operands)
    size_values = iter(spec.operand_group(op, sizes))
    args = op.regions[0].blocks[0].arguments if op.regions and op.regions[0].blocks else ()
    parts = []
    for i, v in enumerate(values):
        inner = pr.value(args[i]) if i < len(args) else "%<<missing>>"
        parts.append(f"{pr.value(v)} as {inner}: {shaped(pr, v.type, size_values)}")
    return "(" + ", ".join(parts) + ")"


def _parse_body(ctx: ParseContext, region_name: str, entry: list[tuple[UnresolvedOperand, Type]]) -> Region:
    rspec = next(r for r in ctx.spec.regions if r.name == region_name)
    return ctx.parser.parse_region(entry, implicit_terminator=rspec.terminator)


def _print_body(pr: Printer, op: Op, spec: OpSpec, print_terminators: bool) -> None:
    from stream.ir.format import print_region_of

    pr.write(" ")
    print_region_of(pr, op, spec, 0, print_entry_args=False, print_terminators=print_terminators)


@directive("ResourceRegion")
class ResourceRegion:
    """`(%a as %b: type{%n}, ...) -> results { body }` of async.execute/async.concurrent."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        operands, _ot, sizes, results, result_sizes, tied, body = (a.name for a in args)
        uses, types, entry = _parse_captures(ctx, operands, sizes)
        ties: list[int] = []
        if ctx.parser.accept("->"):
            ties = parse_results(ctx, uses, types, results, result_sizes)
        else:
            ctx.types[results] = []
            ctx.operands[result_sizes] = []
        ctx.attrs[tied] = tied_attr(ties, always=False)  # type: ignore[assignment]
        ctx.regions[body] = _parse_body(ctx, body, entry)

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        operands, _ot, sizes, results, result_sizes, _tied, _body = (a.name for a in args)
        pr.write(_print_captures(pr, op, spec, operands, sizes))
        if spec.result_group(op, results):
            pr.write(" -> " + print_results(pr, op, spec, results, result_sizes, spec.operand_group(op, operands)))
        # IREE's printResourceRegion prints block terminators (even an empty `stream.yield`):
        # iree-opt rejects the body of a result-less async.execute without it.
        _print_body(pr, op, spec, print_terminators=True)


@directive("ExplicitResourceRegion")
class ExplicitResourceRegion:
    """`(%a as %b: type{%n}, ...) { body }` of cmd.execute."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        operands, _ot, sizes, body = (a.name for a in args)
        _, _, entry = _parse_captures(ctx, operands, sizes)
        ctx.regions[body] = _parse_body(ctx, body, entry)

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        pr.write(_print_captures(pr, op, spec, args[0].name, args[2].name))
        _print_body(pr, op, spec, print_terminators=False)  # printExplicitResourceRegion elides it


# -- cmd bindings and packing --------------------------------------------------------------------
@directive("DispatchResources")
class DispatchResources:
    """One binding per line: `ro %x[%off for %len] : type{%size},`."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        resources, _rt, sizes, offsets, lengths, accesses = (a.name for a in args)
        uses: list[UnresolvedOperand] = []
        types: list[Type] = []
        size_uses: list[UnresolvedOperand] = []
        offs: list[UnresolvedOperand] = []
        lens: list[UnresolvedOperand] = []
        modes: list[Attribute] = []
        lexer = p.lexer
        while (tok := lexer.peek()).kind == "bare" and tok.text in ACCESS_BITS:
            lexer.next()
            modes.append(ACCESS_ATTRS[tok.text])
            uses.append(p.parse_operand())
            p.expect("[")
            offs.append(p.parse_operand())
            p.expect_keyword("for")
            lens.append(p.parse_operand())
            p.expect("]")
            p.expect(":")
            t, shape = parse_sized_type(p)
            types.append(t)
            if not isinstance(t, ResourceType):
                raise p.error("a dispatch binding must be a !stream.resource with its size")
            size_uses.extend(shape)
            if not p.accept(","):
                break
        if p.lexer.peek().kind == "bare":
            raise p.error(f"unknown binding access '{p.lexer.peek().text}' (expected ro, wo or rw)")
        ctx.operands[resources] = uses
        ctx.types[resources] = types
        ctx.operands[sizes] = size_uses
        ctx.operands[offsets] = offs
        ctx.operands[lengths] = lens
        ctx.attrs[accesses] = ArrayAttr(tuple(modes))

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        resources, sizes, offsets, lengths = (spec.operand_group(op, args[i].name) for i in (0, 2, 3, 4))
        modes = op.properties.get(args[5].name)
        elements = modes.elements if isinstance(modes, ArrayAttr) else ()
        pr.indent += 1
        for i, r in enumerate(resources):
            entry = elements[i] if i < len(elements) else None
            mode = entry.value if isinstance(entry, IntegerAttr) else 0
            pr.newline()
            pr.write(
                f"{ACCESS_NAMES.get(mode, '??')} {pr.value(r)}[{pr.value(offsets[i])} for {pr.value(lengths[i])}] : "
                f"{sized(pr, r.type, pr.value(sizes[i]))}{',' if i + 1 < len(resources) else ''}"
            )
        pr.indent -= 1


@directive("PackSliceRanges")
class PackSliceRanges:
    """One slice per line: `[start, end] = %size,` (inclusive lifetime interval)."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        intervals, sizes, offsets = (a.name for a in args)
        bounds: list[Attribute] = []
        size_uses: list[UnresolvedOperand] = []
        while p.accept("["):
            for i in range(2):
                tok = p.lexer.next()
                if tok.kind != "int":
                    raise p.error("expected an integer lifetime bound", tok)
                bounds.append(IntegerAttr(int(tok.text), INDEX))
                if i == 0:
                    p.expect(",")
            p.expect("]")
            p.expect("=")
            size_uses.append(p.parse_operand())
            if not p.accept(","):
                break
        ctx.attrs[intervals] = ArrayAttr(tuple(bounds))
        ctx.operands[sizes] = size_uses
        ctx.types[offsets] = [INDEX] * len(size_uses)

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        bounds = op.properties.get(args[0].name)
        values = [e.value if isinstance(e, IntegerAttr) else 0 for e in bounds.elements] if isinstance(bounds, ArrayAttr) else []
        sizes = spec.operand_group(op, args[1].name)
        pr.indent += 1
        for i, size in enumerate(sizes):
            pr.newline()
            pr.write(f"[{values[2 * i]}, {values[2 * i + 1]}] = {pr.value(size)}{',' if i + 1 < len(sizes) else ''}")
        pr.indent -= 1
        pr.newline()


@directive("WorkgroupCountRegion")
class WorkgroupCountRegion:
    """`workgroups(%arg0: index, ...) -> (index, index, index) { ... }` (absent when empty)."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        if not p.accept_keyword("workgroups"):
            return
        p.expect("(")
        entry: list[tuple[UnresolvedOperand, Type]] = []
        if not p.lexer.peek().is_punct(")"):
            while True:
                arg = p.parse_operand()
                p.expect(":")
                entry.append((arg, p.parse_type()))
                if not p.accept(","):
                    break
        p.expect(")")
        p.expect("->")
        tok = p.lexer.peek()
        if [str(t) for t in p.parse_function_result_types()] != ["index"] * 3:  # IREE's parser refuses it too
            raise p.error("workgroup count region must return the XYZ dimension counts: `-> (index, index, index)`", tok)
        ctx.regions[args[0].name] = p.parse_region(entry, isolated=True)

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        if not op.regions or not op.regions[0].blocks:
            return
        block = op.regions[0].blocks[0]
        ins = ", ".join(f"{pr.value(a)}: {pr.type(a.type)}" for a in block.arguments)
        last = block.ops[-1] if block.ops else None
        outs = ", ".join(pr.type(v.type) for v in last.operands) if last is not None else ""
        pr.write(f"workgroups({ins}) -> ({outs}) ")
        pr.print_region(op.regions[0], op, print_entry_args=False)


@directive("ConstantValueList")
class ConstantValueList:
    """One constant per line: `!stream.resource<constant>{%n} = dense<...> : tensor<...>,`."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        results, sizes, values = (a.name for a in args)
        types: list[Type] = []
        size_uses: list[UnresolvedOperand] = []
        attrs: list[Attribute] = []
        while True:
            t, shape = parse_sized_type(p)
            types.append(t)
            size_uses.extend(shape)
            p.expect("=")
            attrs.append(p.parse_attribute(typed_opaque=True))
            if not p.accept(","):
                break
        ctx.types[results] = types
        ctx.operands[sizes] = size_uses
        ctx.attrs[values] = ArrayAttr(tuple(attrs))

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        results = spec.result_group(op, args[0].name)
        sizes = iter(spec.operand_group(op, args[1].name))
        values = op.properties.get(args[2].name)
        elements = values.elements if isinstance(values, ArrayAttr) else ()
        pr.indent += 1
        for i, r in enumerate(results):
            pr.newline()
            value = pr.attr(elements[i]) if i < len(elements) else "<<missing>>"
            pr.write(f"{shaped(pr, r.type, sizes)} = {value}{',' if i + 1 < len(results) else ''}")
        pr.indent -= 1

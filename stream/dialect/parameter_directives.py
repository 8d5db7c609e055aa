"""Custom directives of IREE 3.13's parameter ops (`stream.async.parameter.*`, `stream.cmd.parameter.*`).

A parameter is named by an optional scope and a key, both `!util.buffer` values
(`%scope::%key` or `%key`), and a byte offset (`i64`) into it. The batched ops (`gather`,
`scatter`, `cmd.parameter.load`) print one row per parameter on its own line, every row naming
the same scope and the same target (gather) or source (scatter) resource, exactly as IREE's
`StreamOps.cpp` parses and prints them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stream.dialect.directives import parse_size
from stream.ir.core import Op, Value
from stream.ir.format import Arg, ParseContext, directive
from stream.ir.parser import Parser, UnresolvedOperand
from stream.ir.types import Type

if TYPE_CHECKING:
    from stream.ir.printer import Printer
    from stream.ir.spec import OpSpec


def _reference(p: Parser) -> tuple[UnresolvedOperand | None, UnresolvedOperand]:
    """`%scope::%key` or `%key`."""
    first = p.parse_operand()
    if p.accept("::"):
        return first, p.parse_operand()
    return None, first


def _print_reference(pr: Printer, scope: tuple[Value, ...], key: Value) -> str:
    return (pr.value(scope[0]) + "::" if scope else "") + pr.value(key)


def _same_scope(p: Parser, rows: list[UnresolvedOperand | None], what: str) -> None:
    names = {r.name if r is not None else None for r in rows}
    if len(names) > 1:
        raise p.error(f"each operation must use the same {what}")


def _same_resource(p: Parser, rows: list[tuple[UnresolvedOperand, Type, UnresolvedOperand]], what: str) -> None:
    if len({(u.name, str(t), s.name) for u, t, s in rows}) > 1:
        raise p.error(f"each operation must use the same {what}")


def _set_scope(ctx: ParseContext, name: str, scopes: list[UnresolvedOperand | None]) -> None:
    ctx.operands[name] = [scopes[0]] if scopes and scopes[0] is not None else []


def _newline_rows(pr: Printer, rows: list[str]) -> None:
    pr.indent += 1
    for i, row in enumerate(rows):
        pr.newline()
        pr.write(row + ("," if i + 1 < len(rows) else ""))
    pr.indent -= 1
    pr.newline()


@directive("ParameterReference")
class ParameterReference:
    """`%scope::%key` or `%key` (the scope is optional)."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        scope, key = _reference(ctx.parser)
        _set_scope(ctx, args[0].name, [scope])
        ctx.operands[args[1].name] = [key]

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        scope = spec.operand_group(op, args[0].name)
        pr.write(_print_reference(pr, scope, spec.operand_group(op, args[1].name)[0]))


@directive("ParameterLoadOperations")
class ParameterLoadOperations:
    """One row per loaded resource: `%scope::%key[%offset] : !stream.resource<constant>{%size}`."""

    @staticmethod
    def parse(ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        scope_name, keys_name, offsets_name, results_name, sizes_name = (a.name for a in args)
        scopes: list[UnresolvedOperand | None] = []
        keys, offsets, sizes = [], [], []
        types: list[Type] = []
        while True:
            scope, key = _reference(p)
            scopes.append(scope)
            keys.append(key)
            p.expect("[")
            offsets.append(p.parse_operand())
            p.expect("]")
            p.expect(":")
            types.append(p.parse_type())
            sizes.append(parse_size(p))
            if not p.accept(","):
                break
        _same_scope(p, scopes, "scope")
        _set_scope(ctx, scope_name, scopes)
        ctx.operands[keys_name] = keys
        ctx.operands[offsets_name] = offsets
        ctx.types[results_name] = types
        ctx.operands[sizes_name] = sizes

    @staticmethod
    def print(pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        scope, keys, offsets = (spec.operand_group(op, a.name) for a in args[:3])
        results = spec.result_group(op, args[3].name)
        sizes = spec.operand_group(op, args[4].name)
        _newline_rows(pr, [
            f"{_print_reference(pr, scope, k)}[{pr.value(o)}] : {pr.type(r.type)}{{{pr.value(s)}}}"
            for k, o, r, s in zip(keys, offsets, results, sizes)
        ])


def _parse_range(p: Parser, with_end: bool) -> tuple[UnresolvedOperand, UnresolvedOperand | None, UnresolvedOperand]:
    """`[%offset to %end for %length]` (async) or `[%offset for %length]` (cmd), after the resource."""
    p.expect("[")
    offset = p.parse_operand()
    end = None
    if with_end:
        p.expect_keyword("to")
        end = p.parse_operand()
    p.expect_keyword("for")
    length = p.parse_operand()
    p.expect("]")
    return offset, end, length


def _print_range(pr: Printer, offset: Value, end: Value | None, length: Value) -> str:
    return f"[{pr.value(offset)}{' to ' + pr.value(end) if end is not None else ''} for {pr.value(length)}]"


def _parse_located_reference(p: Parser) -> tuple[UnresolvedOperand | None, UnresolvedOperand, UnresolvedOperand]:
    """`%scope::%key[%offset]` (or `%key[%offset]`): one row's parameter side."""
    scope, key = _reference(p)
    p.expect("[")
    offset = p.parse_operand()
    p.expect("]")
    return scope, key, offset


def _parse_ranged_resource(
    p: Parser, with_end: bool
) -> tuple[tuple[UnresolvedOperand, Type, UnresolvedOperand], UnresolvedOperand, UnresolvedOperand | None, UnresolvedOperand]:
    """`%resource[%o to %e for %l] : type{%size}`: one row's resource side, as
    ((resource, type, size), offset, end, length)."""
    resource = p.parse_operand()
    o, e, n = _parse_range(p, with_end)
    p.expect(":")
    t = p.parse_type()
    return (resource, t, parse_size(p)), o, e, n


class _Gather:
    """`%scope::%key[%o] -> %target[%to to %te for %tl] : type{%size}` rows; `ends` only in the
    async form. Arguments: scope, keys, offsets, target, type(target), target size, target
    offsets[, target ends], target lengths."""

    with_end = True

    @classmethod
    def parse(cls, ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        names = [a.name for a in args]
        scope_name, keys_name, offsets_name, target_name, _type, size_name, toffs_name = names[:7]
        tends_name = names[7] if cls.with_end else None
        tlens_name = names[-1]
        scopes: list[UnresolvedOperand | None] = []
        targets: list[tuple[UnresolvedOperand, Type, UnresolvedOperand]] = []
        keys, offsets, toffs, tends, tlens = [], [], [], [], []
        while True:
            scope, key, offset = _parse_located_reference(p)
            scopes.append(scope)
            keys.append(key)
            offsets.append(offset)
            p.expect("->")
            target, o, e, n = _parse_ranged_resource(p, cls.with_end)
            targets.append(target)
            toffs.append(o)
            tlens.append(n)
            if e is not None:
                tends.append(e)
            if not p.accept(","):
                break
        _same_scope(p, scopes, "scope and target resource")
        _same_resource(p, targets, "scope and target resource")
        _set_scope(ctx, scope_name, scopes)
        ctx.operands[keys_name] = keys
        ctx.operands[offsets_name] = offsets
        ctx.operands[target_name] = [targets[0][0]]
        ctx.types[target_name] = [targets[0][1]]
        ctx.operands[size_name] = [targets[0][2]]
        ctx.operands[toffs_name] = toffs
        if tends_name is not None:
            ctx.operands[tends_name] = tends
        ctx.operands[tlens_name] = tlens

    @classmethod
    def print(cls, pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        g = [spec.operand_group(op, a.name) if not a.is_type else () for a in args]
        scope, keys, offsets, target, size, toffs = g[0], g[1], g[2], g[3][0], g[5][0], g[6]
        tends = g[7] if cls.with_end else None
        tlens = g[-1]
        rows = []
        for i, key in enumerate(keys):
            rng = _print_range(pr, toffs[i], tends[i] if tends is not None else None, tlens[i])
            rows.append(f"{_print_reference(pr, scope, key)}[{pr.value(offsets[i])}] -> {pr.value(target)}{rng} : "
                        f"{pr.type(target.type)}{{{pr.value(size)}}}")
        _newline_rows(pr, rows)


class _Scatter:
    """`%source[%so to %se for %sl] : type{%size} -> %scope::%key[%o]` rows (no `to` in the cmd
    form). Arguments: source, type(source), source size, source offsets[, source ends], source
    lengths, scope, keys, offsets."""

    with_end = True

    @classmethod
    def parse(cls, ctx: ParseContext, args: tuple[Arg, ...]) -> None:
        p = ctx.parser
        names = [a.name for a in args]
        source_name, _type, size_name, soffs_name = names[:4]
        sends_name = names[4] if cls.with_end else None
        slens_name, scope_name, keys_name, offsets_name = names[-4:]
        sources: list[tuple[UnresolvedOperand, Type, UnresolvedOperand]] = []
        scopes: list[UnresolvedOperand | None] = []
        soffs, sends, slens, keys, offsets = [], [], [], [], []
        while True:
            source, o, e, n = _parse_ranged_resource(p, cls.with_end)
            sources.append(source)
            soffs.append(o)
            slens.append(n)
            if e is not None:
                sends.append(e)
            p.expect("->")
            scope, key, offset = _parse_located_reference(p)
            scopes.append(scope)
            keys.append(key)
            offsets.append(offset)
            if not p.accept(","):
                break
        _same_resource(p, sources, "source resource and scope")
        _same_scope(p, scopes, "source resource and scope")
        ctx.operands[source_name] = [sources[0][0]]
        ctx.types[source_name] = [sources[0][1]]
        ctx.operands[size_name] = [sources[0][2]]
        ctx.operands[soffs_name] = soffs
        if sends_name is not None:
            ctx.operands[sends_name] = sends
        ctx.operands[slens_name] = slens
        _set_scope(ctx, scope_name, scopes)
        ctx.operands[keys_name] = keys
        ctx.operands[offsets_name] = offsets

    @classmethod
    def print(cls, pr: Printer, op: Op, spec: OpSpec, args: tuple[Arg, ...]) -> None:
        g = [spec.operand_group(op, a.name) if not a.is_type else () for a in args]
        source, size, soffs = g[0][0], g[2][0], g[3]
        sends = g[4] if cls.with_end else None
        slens, scope, keys, offsets = g[-4], g[-3], g[-2], g[-1]
        rows = []
        for i, key in enumerate(keys):
            rng = _print_range(pr, soffs[i], sends[i] if sends is not None else None, slens[i])
            rows.append(f"{pr.value(source)}{rng} : {pr.type(source.type)}{{{pr.value(size)}}} -> "
                        f"{_print_reference(pr, scope, key)}[{pr.value(offsets[i])}]")
        _newline_rows(pr, rows)


@directive("AsyncParameterGatherOperations")
class AsyncParameterGatherOperations(_Gather):
    with_end = True


@directive("CmdParameterGatherOperations")
class CmdParameterGatherOperations(_Gather):
    with_end = False


@directive("AsyncParameterScatterOperations")
class AsyncParameterScatterOperations(_Scatter):
    with_end = True


@directive("CmdParameterScatterOperations")
class CmdParameterScatterOperations(_Scatter):
    with_end = False

"""Host control flow: the pretty syntax of `scf` and `cf` ops, as MLIR prints them.

    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x, %b = %t) -> (!stream.resource<external>, !stream.timepoint) {
      ...
      scf.yield %y, %u : !stream.resource<external>, !stream.timepoint
    }
    %v = scf.if %c -> (i32) { scf.yield %x : i32 } else { scf.yield %y : i32 }
    %w = scf.while (%arg0 = %x) : (i32) -> i32 { ... scf.condition(%cc) %arg0 : i32 } do { ^bb0(%arg1: i32): ... }
    %e = scf.execute_region -> i32 { ... }
    %s = scf.index_switch %i -> i32 case 2 { ... } default { ... }     (one `case`/`default` per line)
    cf.br ^bb2(%a : index)
    cf.cond_br %c, ^bb1(%x : i32), ^bb2
    cf.switch %f : i32, [default: ^bb1, 42: ^bb2(%a : index)]          (one destination per line)

Only the syntax lives here (each layer follows control flow by op name: `verify.paths`,
`verify.cfg`, `runtime.control_flow`, `verify.refinement.control_flow`), so registering these ops
changes no verdict; they are SYNTAX_ONLY for the tables that require a rule per op. Printing follows
MLIR's printers byte for byte, including `scf.for`'s two spaces before an induction variable type
(`step %s  : i32 {`), `scf.index_switch`'s space after its result types and its `{}` for a region
holding only an empty `scf.yield`, and `cf.switch`'s `]` on the default's line when it has no
cases.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from stream.dialect.common import ANY, anyv, unit
from stream.ir.attributes import DenseArrayAttr, DenseAttr, UnitAttr
from stream.ir.core import Op
from stream.ir.diagnostics import DiagnosticError
from stream.ir.spec import Attr, Operand, OpSpec, RegionSpec, Result, define
from stream.ir.types import I1, I32, I64, INDEX, FunctionType, Type

if TYPE_CHECKING:
    from stream.ir.parser import Parser, UnresolvedOperand
    from stream.ir.printer import Printer
    from stream.ir.spec_registry import OpState


# -- shared pieces ---------------------------------------------------------------------------------
def _parse_result_types(p: Parser) -> list[Type]:
    """`-> (T, U)` or `-> T` (nothing when there is no arrow)."""
    if not p.accept("->"):
        return []
    if p.lexer.peek().is_punct("("):
        return p.parse_type_list_parens()
    return [p.parse_type()]


def _arrow(pr: Printer, types: list[Type], parens: bool) -> str:
    """MLIR's `-> (T)` (always parenthesized: scf.for, scf.if) or printOptionalArrowTypeList."""
    if not types:
        return ""
    if parens or len(types) > 1 or isinstance(types[0], FunctionType):
        return f" -> ({pr.types(types)})"
    return f" -> {pr.type(types[0])}"


def _parse_attrs(p: Parser, state: OpState, keyword: bool = False) -> None:
    if keyword and not p.accept_keyword("attributes"):
        return
    if p.lexer.peek().is_punct("{"):
        state.attributes.update(p.parse_attr_dict_body())


def _init_list(p: Parser) -> tuple[list[UnresolvedOperand], list[UnresolvedOperand]]:
    """`(%a = %x, %b = %y)`: the region arguments and their initial values."""
    args: list[UnresolvedOperand] = []
    inits: list[UnresolvedOperand] = []
    p.expect("(")
    if not p.accept(")"):
        while True:
            args.append(p.parse_operand())
            p.expect("=")
            inits.append(p.parse_operand())
            if not p.accept(","):
                break
        p.expect(")")
    return args, inits


def _print_init_list(pr: Printer, args: tuple, inits: tuple) -> str:  # type: ignore[type-arg]
    return "(" + ", ".join(f"{pr.value(a)} = {pr.value(v)}" for a, v in zip(args, inits)) + ")"


def _region(pr: Printer, op: Op, index: int, entry_args: bool, terminators: bool) -> None:
    from stream.ir.format import print_region_of

    spec = _SPECS[op.name]
    print_region_of(pr, op, spec, index, print_entry_args=entry_args, print_terminators=terminators)


def _other_attrs(pr: Printer, op: Op, elided: tuple[str, ...] = (), keyword: bool = False) -> None:
    attrs = {k: v for k, v in (*op.properties.items(), *op.attributes.items()) if k not in elided}
    pr.attr_dict(attrs, keyword=keyword)


# -- scf.for ----------------------------------------------------------------------------------------
def _parse_for(p: Parser, state: OpState) -> None:
    if p.accept_keyword("unsigned"):
        state.properties["unsignedCmp"] = UnitAttr()
    iv = p.parse_operand()
    p.expect("=")
    lb = p.parse_operand()
    p.expect_keyword("to")
    ub = p.parse_operand()
    p.expect_keyword("step")
    step = p.parse_operand()
    args: list[UnresolvedOperand] = []
    inits: list[UnresolvedOperand] = []
    if p.accept_keyword("iter_args"):
        args, inits = _init_list(p)
    types = _parse_result_types(p)
    iv_type: Type = p.parse_type() if p.accept(":") else INDEX
    state.operands = [*p.resolve_all([lb, ub, step], [iv_type] * 3), *p.resolve_all(inits, types, "iter_args")]
    state.result_types = types
    state.regions.append(p.parse_region([(iv, iv_type), *zip(args, types)], implicit_terminator="scf.yield"))
    _parse_attrs(p, state)


def _print_for(pr: Printer, op: Op) -> None:
    body = op.regions[0].blocks[0]
    iv, *carried = body.arguments
    lb, ub, step, *inits = op.operands
    if "unsignedCmp" in op.properties:
        pr.write(" unsigned")
    pr.write(f" {pr.value(iv)} = {pr.value(lb)} to {pr.value(ub)} step {pr.value(step)}")
    if inits:
        pr.write(" iter_args" + _print_init_list(pr, tuple(carried), tuple(inits)) + _arrow(pr, [v.type for v in inits], True))
    pr.write(" ")
    if iv.type != INDEX:
        pr.write(f" : {pr.type(iv.type)} ")
    _region(pr, op, 0, False, bool(inits))
    _other_attrs(pr, op, ("unsignedCmp",))


# -- scf.if -----------------------------------------------------------------------------------------
def _parse_if(p: Parser, state: OpState) -> None:
    cond = p.parse_operand()
    state.result_types = _parse_result_types(p)
    state.operands = p.resolve_all([cond], [I1])
    state.regions.append(p.parse_region(implicit_terminator="scf.yield"))
    if p.accept_keyword("else"):
        state.regions.append(p.parse_region(implicit_terminator="scf.yield"))
    else:
        from stream.ir.core import Region

        state.regions.append(Region(()))
    _parse_attrs(p, state)


def _print_if(pr: Printer, op: Op) -> None:
    pr.write(f" {pr.value(op.operands[0])}" + _arrow(pr, [r.type for r in op.results], True) + " ")
    terminators = bool(op.results)
    _region(pr, op, 0, False, terminators)
    if len(op.regions) > 1 and op.regions[1].blocks:
        pr.write(" else ")
        _region(pr, op, 1, False, terminators)
    _other_attrs(pr, op)


# -- scf.while --------------------------------------------------------------------------------------
def _parse_while(p: Parser, state: OpState) -> None:
    args: list[UnresolvedOperand] = []
    inits: list[UnresolvedOperand] = []
    if p.lexer.peek().is_punct("("):
        args, inits = _init_list(p)
    p.expect(":")
    tok = p.lexer.peek()
    ftype = p.parse_function_type()
    if not isinstance(ftype, FunctionType):
        raise p.error("expected the loop's function type '(inits) -> results'", tok)
    state.operands = p.resolve_all(inits, list(ftype.inputs), "inits")
    state.result_types = list(ftype.results)
    state.regions.append(p.parse_region(list(zip(args, ftype.inputs))))
    p.expect_keyword("do")
    state.regions.append(p.parse_region())
    _parse_attrs(p, state, keyword=True)


def _print_while(pr: Printer, op: Op) -> None:
    before = op.regions[0].blocks[0]
    if op.operands:
        pr.write(" " + _print_init_list(pr, before.arguments, op.operands))
    ftype = FunctionType(tuple(v.type for v in op.operands), tuple(r.type for r in op.results))
    pr.write(f" : {pr.type(ftype)} ")
    _region(pr, op, 0, False, True)
    pr.write(" do ")
    _region(pr, op, 1, True, True)
    _other_attrs(pr, op, keyword=True)


# -- scf.execute_region -----------------------------------------------------------------------------
def _parse_execute_region(p: Parser, state: OpState) -> None:
    state.result_types = _parse_result_types(p)
    if p.accept_keyword("no_inline"):
        state.properties["no_inline"] = UnitAttr()
    state.regions.append(p.parse_region())
    _parse_attrs(p, state)


def _print_execute_region(pr: Printer, op: Op) -> None:
    pr.write(_arrow(pr, [r.type for r in op.results], False) + " ")
    if "no_inline" in op.properties:
        pr.write("no_inline ")
    _region(pr, op, 0, False, True)
    _other_attrs(pr, op, ("no_inline",))


# -- scf.index_switch -------------------------------------------------------------------------------
def _parse_index_switch(p: Parser, state: OpState) -> None:
    arg = p.resolve_all([p.parse_operand()], [INDEX])
    state.operands = arg
    if p.accept("->"):  # `-> i32, index`: a declarative type list, no parentheses
        state.result_types = [p.parse_type()]
        while p.accept(","):
            state.result_types.append(p.parse_type())
    cases: list[int] = []
    regions = []
    while p.accept_keyword("case"):
        cases.append(_parse_case_value(p))
        regions.append(p.parse_region(implicit_terminator="scf.yield"))
    p.expect_keyword("default")
    default = p.parse_region(implicit_terminator="scf.yield")
    state.regions.extend([default, *regions])
    state.properties["cases"] = DenseArrayAttr(I64, tuple(cases))
    _parse_attrs(p, state)


def _parse_case_value(p: Parser) -> int:
    negative = p.accept("-")
    tok = p.lexer.next()
    try:
        value = int(tok.text, 0)
    except ValueError:
        raise p.error("expected an integer case value", tok) from None
    return -value if negative else value


def _only_trivial_terminator(op: Op, index: int) -> bool:
    blocks = op.regions[index].blocks
    if len(blocks) != 1 or len(blocks[0].ops) != 1:
        return False
    last = blocks[0].ops[0]
    return not (last.operands or last.attributes or last.properties or last.loc)


def _print_index_switch(pr: Printer, op: Op) -> None:
    # MLIR prints a space after the types and each case on a line of its own; a region whose
    # block holds only an empty `scf.yield` prints as `{}` (every other terminator is printed).
    arrow = f" -> {pr.types(r.type for r in op.results)}" if op.results else ""
    pr.write(f" {pr.value(op.operands[0])}{arrow} ")
    for i, value in enumerate(case_values(op, "cases")):
        pr.newline()
        pr.write(f"case {value} ")
        _region(pr, op, 1 + i, False, not _only_trivial_terminator(op, 1 + i))
    pr.newline()
    pr.write("default ")
    _region(pr, op, 0, False, not _only_trivial_terminator(op, 0))
    _other_attrs(pr, op, ("cases",))


# -- cf.br / cf.cond_br -----------------------------------------------------------------------------
def _parse_dest(p: Parser, state: OpState) -> list:  # type: ignore[type-arg]
    """`^bb1` or `^bb1(%a, %b : T, U)`: the successor is recorded, its operands returned resolved."""
    tok = p.lexer.next()
    if tok.kind != "caret":
        raise p.error("expected a block label like '^bb1'", tok)
    state.successors.append((tok.text, tok.pos))
    if not p.accept("("):
        return []
    uses = p.parse_operand_list()
    p.expect(":")
    types = [p.parse_type()]
    while p.accept(","):
        types.append(p.parse_type())
    p.expect(")")
    return p.resolve_all(uses, types, "branch operands")


def _print_dest(pr: Printer, index: int, values: tuple) -> str:  # type: ignore[type-arg]
    if not values:
        return pr.successor(index)
    return f"{pr.successor(index)}({pr.values(values)} : {pr.types(v.type for v in values)})"


def _parse_br(p: Parser, state: OpState) -> None:
    state.operands = _parse_dest(p, state)
    _parse_attrs(p, state)


def _print_br(pr: Printer, op: Op) -> None:
    pr.write(" " + _print_dest(pr, op.successors[0], op.operands))
    _other_attrs(pr, op)


def _parse_cond_br(p: Parser, state: OpState) -> None:
    cond = p.resolve_all([p.parse_operand()], [I1])
    p.expect(",")
    on_true = _parse_dest(p, state)
    p.expect(",")
    on_false = _parse_dest(p, state)
    state.operands = [*cond, *on_true, *on_false]
    state.properties["operandSegmentSizes"] = DenseArrayAttr(I32, (1, len(on_true), len(on_false)))
    _parse_attrs(p, state)


def _print_cond_br(pr: Printer, op: Op) -> None:
    sizes = op.properties["operandSegmentSizes"]
    assert isinstance(sizes, DenseArrayAttr)
    n_true = int(sizes.values[1])
    on_true, on_false = op.operands[1:1 + n_true], op.operands[1 + n_true:]
    pr.write(f" {pr.value(op.operands[0])}, {_print_dest(pr, op.successors[0], on_true)}, "
             f"{_print_dest(pr, op.successors[1], on_false)}")
    _other_attrs(pr, op, ("operandSegmentSizes",))


def _parse_switch(p: Parser, state: OpState) -> None:
    flag = p.parse_operand()
    p.expect(":")
    flag_type = p.parse_type()
    p.expect(",")
    p.expect("[")
    p.expect_keyword("default")
    p.expect(":")
    default = _parse_dest(p, state)
    cases: list[int] = []
    case_operands: list[list] = []  # type: ignore[type-arg]
    while p.accept(","):
        cases.append(_parse_case_value(p))
        p.expect(":")
        case_operands.append(_parse_dest(p, state))
    p.expect("]")
    state.operands = [*p.resolve_all([flag], [flag_type]), *default, *(v for vs in case_operands for v in vs)]
    state.properties["operandSegmentSizes"] = DenseArrayAttr(I32, (1, len(default), sum(len(vs) for vs in case_operands)))
    state.properties["case_operand_segments"] = DenseArrayAttr(I32, tuple(len(vs) for vs in case_operands))
    if cases:
        from stream.ir.parser import parse_attribute_text

        # As MLIR prints a dense attribute: a splat when every element is the same.
        body = str(cases[0]) if len(set(cases)) == 1 else "[" + ", ".join(str(c) for c in cases) + "]"
        state.properties["case_values"] = parse_attribute_text(f"dense<{body}> : vector<{len(cases)}x{flag_type}>")
    _parse_attrs(p, state)


def _print_switch(pr: Printer, op: Op) -> None:
    edges = []
    sizes = op.properties.get("operandSegmentSizes")
    segments = op.properties.get("case_operand_segments")
    assert isinstance(sizes, DenseArrayAttr)
    n_default = int(sizes.values[1])
    edges.append(op.operands[1:1 + n_default])
    start = 1 + n_default
    for n in (segments.values if isinstance(segments, DenseArrayAttr) else ()):
        edges.append(op.operands[start:start + int(n)])
        start += int(n)
    flag = op.operands[0]
    pr.write(f" {pr.value(flag)} : {pr.type(flag.type)}, [")
    pr.newline()
    pr.write("  default: " + _print_dest(pr, op.successors[0], edges[0]))
    cases = case_values(op, "case_values")
    if not cases:
        pr.write("]")
    else:
        for i, value in enumerate(cases):
            pr.write(",")
            pr.newline()
            pr.write(f"  {value}: " + _print_dest(pr, op.successors[1 + i], edges[1 + i]))
        pr.newline()
        pr.write("]")
    _other_attrs(pr, op, ("operandSegmentSizes", "case_operand_segments", "case_values"))


# -- the table ---------------------------------------------------------------------------------------
_SPECS: dict[str, OpSpec] = {}


def _define(spec: OpSpec) -> None:
    _SPECS[spec.name] = define(spec)


_define(OpSpec(
    "scf.for",
    operands=(anyv("lowerBound"), anyv("upperBound"), anyv("step"), anyv("initArgs", "variadic")),
    results=(Result("results", "variadic"),),
    attrs=(unit("unsignedCmp"),),
    regions=(RegionSpec("region", terminator="scf.yield"),),
    levels=ANY,
    custom_parse=_parse_for,
    custom_print=_print_for,
))
_define(OpSpec(
    "scf.if",
    operands=(anyv("condition"),),
    results=(Result("results", "variadic"),),
    regions=(RegionSpec("thenRegion", terminator="scf.yield"), RegionSpec("elseRegion", terminator="scf.yield")),
    levels=ANY,
    custom_parse=_parse_if,
    custom_print=_print_if,
))
_define(OpSpec(
    "scf.while",
    operands=(anyv("inits", "variadic"),),
    results=(Result("results", "variadic"),),
    regions=(RegionSpec("before"), RegionSpec("after")),
    levels=ANY,
    custom_parse=_parse_while,
    custom_print=_print_while,
))
_define(OpSpec(
    "scf.execute_region",
    results=(Result("results", "variadic"),),
    attrs=(unit("no_inline"),),
    regions=(RegionSpec("region"),),
    levels=ANY,
    custom_parse=_parse_execute_region,
    custom_print=_print_execute_region,
))
_define(OpSpec(
    "scf.yield",
    operands=(anyv("results", "variadic"),),
    levels=ANY,
    traits=frozenset({"terminator"}),
    format="attr-dict ($results^ `:` type($results))?",
))
_define(OpSpec(
    "scf.condition",
    operands=(Operand("condition", type=I1), anyv("args", "variadic")),
    levels=ANY,
    traits=frozenset({"terminator"}),
    format="`(` $condition `)` attr-dict ($args^ `:` type($args))?",
))
_define(OpSpec(
    "cf.br",
    operands=(anyv("destOperands", "variadic"),),
    levels=ANY,
    traits=frozenset({"terminator"}),
    custom_parse=_parse_br,
    custom_print=_print_br,
))
_define(OpSpec(
    "cf.cond_br",
    operands=(anyv("condition"), anyv("trueDestOperands", "variadic"), anyv("falseDestOperands", "variadic")),
    levels=ANY,
    traits=frozenset({"terminator"}),
    custom_parse=_parse_cond_br,
    custom_print=_print_cond_br,
))


# -- case values (cf.switch `case_values`, scf.index_switch `cases`), read by every layer ----------
_INT = re.compile(r"[-+]?(?:0x[0-9a-fA-F]+|\d+)")


def case_values(op: Op, name: str) -> list[int]:
    """The integers of a switch's case attribute (a dense array, or a dense elements attribute);
    DiagnosticError when it is something else."""
    attr = op.properties.get(name)
    if isinstance(attr, DenseArrayAttr):
        return [int(v) for v in attr.values]
    if isinstance(attr, DenseAttr) and not attr.body.strip().startswith('"'):
        return [int(t, 16) if t.lstrip("+-").startswith("0x") else int(t) for t in _INT.findall(attr.body)]
    if attr is None:
        return []
    raise DiagnosticError.at(op.location, f"'{op.name}': cannot read the case values {attr}")


__all__ = ["case_values"]

_define(OpSpec(
    "scf.index_switch",
    operands=(anyv("arg"),),
    results=(Result("results", "variadic"),),
    attrs=(Attr("cases", True),),
    regions=(RegionSpec("defaultRegion", terminator="scf.yield"), RegionSpec("caseRegions", terminator="scf.yield", variadic=True)),
    levels=ANY,
    custom_parse=_parse_index_switch,
    custom_print=_print_index_switch,
))
_define(OpSpec(
    "cf.switch",
    operands=(anyv("flag"), anyv("defaultOperands", "variadic"), anyv("caseOperands", "variadic")),
    attrs=(Attr("case_values"), Attr("case_operand_segments", True)),
    levels=ANY,
    traits=frozenset({"terminator"}),
    custom_parse=_parse_switch,
    custom_print=_print_switch,
))

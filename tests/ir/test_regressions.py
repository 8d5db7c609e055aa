"""Regression tests for IR bugs found by the op samples and the round-trip property; each
failed before its fix."""

from __future__ import annotations

import stream.ir as ir
from stream.ir.attributes import ArrayAttr, FloatAttr, IntegerAttr, OpaqueAttr, float_bits
from stream.ir.core import Block, Module, Op, Region, Value
from stream.ir.equality import first_difference
from stream.ir.spec import spec_of
from stream.ir.types import BF16, F16, INDEX, TIMEPOINT, Lifetime, ResourceType


def reparse(module: Module, generic: bool = False) -> Module:
    return ir.parse_module(ir.print_module(module, generic=generic), "printed.mlir")


def test_sizeof_without_dims_followed_by_an_attribute_dictionary() -> None:
    text = 'func.func @f() {\n  %0 = stream.tensor.sizeof tensor<4xf32> {note = 1 : i32} : index\n  return\n}\n'
    module = ir.parse_module(text, "t.mlir")
    sizeof = module.ops[0].regions[0].blocks[0].ops[0]
    assert sizeof.operands == () and dict(sizeof.attributes) == {"note": IntegerAttr(1, ir.I32)}
    assert "stream.tensor.sizeof tensor<4xf32> {note = 1 : i32} : index" in ir.print_module(module)


def test_executable_terminator_is_implicit_in_pretty_form() -> None:
    pretty = "stream.executable private @ex {\n}\n"
    generic = '"stream.executable"() <{sym_name = "ex", sym_visibility = "private"}> ({\n  "stream.executable.end"() : () -> ()\n}) : () -> ()\n'
    a, b = ir.parse_module(pretty, "p.mlir"), ir.parse_module(generic, "g.mlir")
    assert first_difference(a, b) is None
    assert [op.name for op in a.ops[0].regions[0].blocks[0].ops] == ["stream.executable.end"]
    assert ir.print_module(b) == "module {\n  stream.executable private @ex {\n  }\n}\n"


def test_verbatim_executable_reads_the_same_in_both_forms() -> None:
    pretty = "stream.executable private @ex {\n  builtin.module {\n    linalg.unknown_pretty_op\n  }\n}\n"
    module = ir.parse_module(pretty, "p.mlir")
    assert [op.name for op in module.ops[0].regions[0].blocks[0].ops] == ["streamproof.verbatim", "stream.executable.end"]
    assert first_difference(module, reparse(module, generic=True)) is None
    assert first_difference(module, reparse(module)) is None


def test_built_ops_carry_defaults_and_canonical_ties() -> None:
    addi = spec_of("arith.addi")
    assert addi is not None
    a, b = Value(INDEX), Value(INDEX)
    op = addi.build({"lhs": a, "rhs": b}, {"result": INDEX})
    assert op.properties["overflowFlags"] == OpaqueAttr("#arith.overflow<none>")

    execute = spec_of("stream.async.execute")
    assert execute is not None
    r, n = Value(ResourceType(Lifetime.TRANSIENT)), Value(INDEX)
    yield_op = Op("stream.yield")
    body = Region((Block((Value(r.type),), (yield_op,)),))
    untied = execute.build({"resource_operands": [r], "resource_operand_sizes": [n]}, {"results": [], "result_timepoint": TIMEPOINT}, regions=(body,))
    assert untied.properties["tied_operands"] == ArrayAttr(())
    tied = execute.build(
        {"resource_operands": [r], "resource_operand_sizes": [n], "result_sizes": [n]},
        {"results": [r.type], "result_timepoint": TIMEPOINT},
        {"tied_operands": [0]},  # type: ignore[dict-item]
        regions=(body,),
    )
    # One entry per resource result; the timepoint has none.
    assert tied.properties["tied_operands"] == ArrayAttr((IntegerAttr(0, INDEX),))
    assert execute.tied_operand(tied, 0) == 0


def test_implicit_terminator_with_a_location_is_printed() -> None:
    text = 'stream.executable private @ex {\n  "stream.executable.end"() : () -> () loc("x.mlir":1:1)\n}'
    module = ir.parse_module(text, "t.mlir")
    assert 'stream.executable.end loc("x.mlir":1:1)' in ir.print_module(module)
    assert first_difference(module, reparse(module)) is None


def test_empty_entry_block_keeps_its_label() -> None:
    module = Module((Op("test.region", regions=(Region((Block(),)),)),))
    printed = ir.print_module(module, generic=True)
    assert '"test.region"() ({\n  ^bb0:\n  }) : () -> ()' in printed
    assert len(reparse(module).ops[0].regions[0].blocks) == 1
    empty = Module((Op("test.region", regions=(Region(()),)),))
    assert len(reparse(empty).ops[0].regions[0].blocks) == 0


def test_hints_spelled_like_printer_names_are_not_used() -> None:
    arg = Value(INDEX)
    clash = Value(INDEX, "arg0")
    number = Value(INDEX, "0")
    ops = (Op("test.a", (arg,), (clash,)), Op("test.b", (clash, arg), (number,)), Op("test.c", (number,)))
    module = Module((Op("test.f", regions=(Region((Block((arg,), ops),)),)),))
    printed = ir.print_module(module)
    assert '%0 = "test.a"(%arg0)' in printed and '%1 = "test.b"(%0, %arg0)' in printed
    assert first_difference(module, reparse(module)) is None


def test_bf16_and_f16_constants_use_their_own_bit_patterns() -> None:
    text = 'func.func @f() {\n  %0 = arith.constant 0x7FC0 : bf16\n  %1 = arith.constant 0x7E00 : f16\n  %2 = arith.constant 1.01 : bf16\n  return\n}'
    module = ir.parse_module(text, "t.mlir")
    values = [op.properties["value"] for op in module.ops[0].regions[0].blocks[0].ops[:3]]
    assert all(isinstance(v, FloatAttr) for v in values)
    assert float_bits(values[0].value, BF16) == 0x7FC0  # type: ignore[union-attr]
    assert float_bits(values[1].value, F16) == 0x7E00  # type: ignore[union-attr]
    assert values[2].value == 1.0078125  # type: ignore[union-attr]  # the nearest bf16 (8 significant bits)
    printed = ir.print_module(module)
    assert "arith.constant 0x7FC0 : bf16" in printed and "arith.constant 0x7E00 : f16" in printed
    assert first_difference(module, reparse(module)) is None


def test_f64_constant_in_hex_spells_its_type_once() -> None:
    # inf and NaN print as bit patterns, which carry ': f64' already (alone they would read as i64).
    text = "func.func @f() {\n  %0 = arith.constant 0x7FF0000000000000 : f64\n  %1 = arith.constant 2.5 : f64\n  return\n}"
    module = ir.parse_module(text, "t.mlir")
    printed = ir.print_module(module)
    assert "arith.constant 0x7FF0000000000000 : f64\n" in printed and "arith.constant 2.500000e+00 : f64\n" in printed
    assert first_difference(module, reparse(module)) is None



def test_a_global_load_named_after_an_odd_symbol_prints_a_valid_unique_name() -> None:
    """`util.global.load` suggests its global's name for its result; `@":"` and `@"0"` are valid
    symbols but not SSA names (and `%0` is the printer's own first number)."""
    text = ('util.func @f() -> (!stream.resource<constant>, !stream.resource<constant>, index) {\n'
            '  %0 = util.global.load immutable @":" : !stream.resource<constant>\n'
            '  %1 = util.global.load immutable @"0" : !stream.resource<constant>\n'
            '  %2 = "test.make"() : () -> index\n'
            '  util.return %0, %1, %2 : !stream.resource<constant>, !stream.resource<constant>, index\n}\n')
    module = ir.parse_module(text, "t.mlir")
    printed = ir.print_module(module)
    assert '%_ = util.global.load immutable @":"' in printed
    assert '%_0 = util.global.load immutable @"0"' in printed
    assert '%0 = "test.make"()' in printed
    assert first_difference(module, reparse(module)) is None


def test_results_may_go_unnamed_as_in_mlir() -> None:
    """IREE's lit tests write `util.optimization_barrier %x : index` (43 cases): MLIR binds no
    name then, and iree-opt prints the results as `%0`, `%1`; a wrong count of names stays an error."""
    text = (
        "util.func public @f(%arg0: index) -> index {\n"
        "  util.optimization_barrier %arg0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        "  arith.addi %arg0, %c1 : index\n"
        "  util.return %arg0 : index\n"
        "}\n"
    )
    module = ir.parse_module(text, "t.mlir")
    barrier, _, add, _ = module.ops[0].regions[0].blocks[0].ops
    assert [r.type for r in barrier.results] == [INDEX] and [r.type for r in add.results] == [INDEX]
    printed = ir.print_module(module)
    assert "%0 = util.optimization_barrier %arg0 : index" in printed
    assert "%1 = arith.addi %arg0, %c1 : index" in printed
    assert first_difference(module, reparse(module)) is None
    try:
        ir.parse_module(text.replace("  arith.addi", "  %a, %b = arith.addi"), "t.mlir")
    except ir.DiagnosticError as e:
        assert "'arith.addi' produces 1 result(s), but 2 name(s) are given" in str(e)
    else:
        raise AssertionError("two names for one result were accepted")


def test_a_tied_result_may_spell_any_name_as_iree_reads_it() -> None:
    """IREE's parser ties `-> %x as type` to the target whatever `%x` says, and prints the
    target (13 outputs of IREE's passes on its lit tests spell `%arg0` for a target `%res`)."""
    text = (
        "util.func public @f(%res: !stream.resource<*>, %size: index, %v: i64, %o: index, %e: index, %n: index) -> !stream.resource<*> {\n"
        "  %0 = stream.async.fill %v, %res[%o to %e for %n] : i64 -> %arg0 as !stream.resource<*>{%size}\n"
        "  util.return %0 : !stream.resource<*>\n"
        "}\n"
    )
    module = ir.parse_module(text, "t.mlir")
    assert "i64 -> %res as !stream.resource<*>{%size}" in ir.print_module(module)
    assert first_difference(module, reparse(module, generic=True)) is None

"""The MLIR text layer in detail: result groups, names, aliases, locations, attributes, types,
modules, `--split-input-file` chunks. Expected texts are MLIR's own spellings."""

from __future__ import annotations

import math

import pytest

import stream.ir as ir
from stream.ir.attributes import (
    AffinityAttr,
    ArrayAttr,
    BoolAttr,
    DenseArrayAttr,
    DenseAttr,
    DictAttr,
    FloatAttr,
    ImmediateTimepointAttr,
    IntegerAttr,
    OpaqueAttr,
    OptimalAttr,
    PromiseAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
    quote_string,
)
from stream.ir.equality import first_difference
from stream.ir.types import (
    F16,
    F32,
    F64,
    I1,
    I8,
    I32,
    I64,
    INDEX,
    FloatType,
    IntegerType,
    Lifetime,
    OpaqueType,
    ResourceType,
    TensorType,
)


def roundtrip(text: str, generic: bool = False) -> str:
    return ir.print_module(ir.parse_module(text, "t.mlir"), generic=generic)


def body(text: str) -> list[str]:
    """The lines of the first function's body, stripped."""
    lines = roundtrip(text).splitlines()
    start = next(i for i, line in enumerate(lines) if "func" in line) + 1
    return [line.strip() for line in lines[start:-2]]


def the_op(text: str, name: str) -> ir.Op:
    return next(op for op in ir.parse_module(text, "t.mlir").walk() if op.name == name)


# -- result groups ---------------------------------------------------------------------------------
MULTI = """func.func @f(%a: tensor<4xf32>) {
  %x, %y = "t.two"(%a) : (tensor<4xf32>) -> (index, index)
  %p:2 = "t.two"(%a) : (tensor<4xf32>) -> (index, index)
  %q:2, %r = "t.three"() : () -> (index, index, i32)
  "t.use"(%x, %y, %p#0, %p#1, %q#1, %r) : (index, index, index, index, index, i32) -> ()
  return
}"""


def test_result_groups_keep_their_shape_in_pretty_form() -> None:
    assert body(MULTI)[:4] == [
        '%x, %y = "t.two"(%a) : (tensor<4xf32>) -> (index, index)',
        '%p:2 = "t.two"(%a) : (tensor<4xf32>) -> (index, index)',
        '%q:2, %r = "t.three"() : () -> (index, index, i32)',
        '"t.use"(%x, %y, %p#0, %p#1, %q#1, %r) : (index, index, index, index, index, i32) -> ()',
    ]


def test_generic_form_numbers_every_result_group() -> None:
    generic = roundtrip(MULTI, generic=True)
    assert '%0:2 = "t.two"(%arg0)' in generic
    assert '%2:3 = "t.three"()' in generic
    assert '"t.use"(%0#0, %0#1, %1#0, %1#1, %2#1, %2#2)' in generic


def test_result_group_values_are_distinct_and_ordered() -> None:
    ops = ir.parse_module(MULTI, "t.mlir").ops[0].regions[0].blocks[0].ops
    op, use = ops[2], ops[3]
    assert use.operands[4] is op.results[1] and use.operands[5] is op.results[2]
    assert [str(v.type) for v in op.results] == ["index", "index", "i32"]


def test_a_whole_group_used_as_one_value_is_an_error() -> None:
    text = MULTI.replace("%p#0, %p#1", "%p, %p#1")
    with pytest.raises(ir.DiagnosticError, match=r"'%p' names several results; use '%p#N'"):
        ir.parse_module(text, "t.mlir")


def test_use_before_definition_in_a_graph_region_resolves() -> None:
    text = '"t.graph"() ({\n  "t.use"(%later) : (index) -> ()\n  %later = "t.def"() : () -> index\n}) : () -> ()'
    module = ir.parse_module(text, "t.mlir")
    use, define = module.ops[0].regions[0].blocks[0].ops
    assert use.operands[0] is define.results[0]


# -- names -------------------------------------------------------------------------------------------
def test_source_names_are_kept_and_clashes_get_suffixes() -> None:
    text = """func.func @f(%x: index) -> index {
  %c4 = arith.constant 4 : index
  %sum = arith.addi %x, %c4 : index
  %0 = arith.constant 4 : index
  %1 = arith.addi %sum, %0 : index
  return %1 : index
}"""
    assert body(text) == [
        "%c4 = arith.constant 4 : index",
        "%sum = arith.addi %x, %c4 : index",
        "%c4_0 = arith.constant 4 : index",
        "%0 = arith.addi %sum, %c4_0 : index",
        "return %0 : index",
    ]


def test_numeric_and_arg_names_are_not_hints() -> None:
    text = "func.func @f(%arg7: index) -> index {\n  %42 = arith.addi %arg7, %arg7 : index\n  return %42 : index\n}"
    assert body(text) == ["%0 = arith.addi %arg0, %arg0 : index", "return %0 : index"]


def test_every_function_numbers_from_zero() -> None:
    text = """func.func @a() -> index {
  %0 = "t.x"() : () -> index
  return %0 : index
}
func.func @b() -> index {
  %5 = "t.x"() : () -> index
  return %5 : index
}"""
    printed = roundtrip(text)
    assert printed.count('%0 = "t.x"() : () -> index') == 2


# -- aliases and locations ---------------------------------------------------------------------------
ALIASES = """#map = affine_map<(d0) -> (d0)>
#dev = #hal.device.affinity<@dev1>
!buf = !hal.buffer_view
func.func @f(%a: !buf) -> !buf attributes {m = #map, d = #dev} {
  return %a : !buf
}
"""


def test_aliases_are_kept_and_used_when_printing() -> None:
    printed = roundtrip(ALIASES)
    assert printed.splitlines()[:3] == ["#map = affine_map<(d0) -> (d0)>", "#dev = #hal.device.affinity<@dev1>", "!buf = !hal.buffer_view"]
    assert "func.func @f(%a: !buf) -> !buf attributes {d = #dev, m = #map} {" in printed
    assert "return %a : !buf" in printed


def test_aliases_resolve_to_their_values() -> None:
    module = ir.parse_module(ALIASES, "t.mlir")
    func = module.ops[0]
    assert func.attributes["d"] == AffinityAttr("dev1")
    assert func.attributes["m"] == OpaqueAttr("affine_map<(d0) -> (d0)>")
    assert func.regions[0].blocks[0].arguments[0].type == OpaqueType("!hal.buffer_view")


def test_alias_forms_agree() -> None:
    module = ir.parse_module(ALIASES, "t.mlir")
    generic = ir.print_module(module, generic=True)
    assert '"func.func"() <{function_type = (!buf) -> !buf, sym_name = "f"}> ({' in generic
    assert first_difference(module, ir.parse_module(generic, "g.mlir")) is None


def test_undefined_alias_is_an_error() -> None:
    with pytest.raises(ir.DiagnosticError, match="undefined attribute alias '#nope'"):
        ir.parse_module('"t.x"() {a = #nope} : () -> ()', "t.mlir")
    with pytest.raises(ir.DiagnosticError, match="undefined type alias '!nope'"):
        ir.parse_module('"t.x"() : () -> !nope', "t.mlir")


def test_loc_trailers_and_location_aliases_round_trip() -> None:
    text = """func.func @f(%a: index) -> index {
  %0 = arith.addi %a, %a : index loc(#loc1)
  return %0 : index loc("x.py":3:1)
} loc(fused["a", "b"])
#loc1 = loc("x.py":2:7)
"""
    printed = roundtrip(text)
    assert "%0 = arith.addi %a, %a : index loc(#loc1)" in printed
    assert 'return %0 : index loc("x.py":3:1)' in printed
    assert '} loc(fused["a", "b"])' in printed
    assert printed.endswith('}\n#loc1 = loc("x.py":2:7)\n')
    assert roundtrip(printed) == printed


def test_source_locations_are_line_and_column_of_the_op() -> None:
    module = ir.parse_module("\n\n  func.func @f() {\n    return\n  }", "prog.mlir")
    func = module.ops[0]
    assert str(func.location) == "prog.mlir:3:3"
    assert str(func.regions[0].blocks[0].ops[0].location) == "prog.mlir:4:5"


# -- attributes ----------------------------------------------------------------------------------------
def attr(text: str) -> ir.Attribute:
    return the_op(f'"t.x"() {{a = {text}}} : () -> ()', "t.x").attributes["a"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("42", IntegerAttr(42, I64)),
        ("-7 : i32", IntegerAttr(-7, I32)),
        ("0x1F : i8", IntegerAttr(31, I8)),
        ("4 : index", IntegerAttr(4, INDEX)),
        ("true", BoolAttr(True)),
        ("1 : i1", BoolAttr(True)),
        ("unit", UnitAttr()),
        ("2.5", FloatAttr(2.5, F64)),
        ("1.0e-3 : f32", FloatAttr(0.0010000000474974513, F32)),  # rounded to f32, as APFloat does
        ('"s\\22q"', StringAttr('s"q')),
        ("@a::@b", SymbolRefAttr("a", ("b",))),
        ('@"odd name"', SymbolRefAttr("odd name")),
        ("[1, [2], {}]", ArrayAttr((IntegerAttr(1), ArrayAttr((IntegerAttr(2),)), DictAttr(())))),
        ("{b = 1, a}", DictAttr((("a", UnitAttr()), ("b", IntegerAttr(1))))),
        ("array<i32: 1, 2>", DenseArrayAttr(I32, (1, 2))),
        ("array<i64>", DenseArrayAttr(I64, ())),
        ("dense<[1, 2]> : tensor<2xi32>", DenseAttr("[1, 2]", TensorType((2,), I32))),
        ("index", TypeAttr(INDEX)),
        ("tensor<?x4xf16>", TypeAttr(TensorType((None, 4), F16))),
        ("#hal.device.affinity<@d>", AffinityAttr("d")),
        ("#hal.device.affinity<@d, [0, 1]>", AffinityAttr("d", (0, 1))),
        ("#hal.device.promise<@p>", PromiseAttr("p")),
        ("#hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>]>", OptimalAttr((AffinityAttr("a"), AffinityAttr("b")))),
        ("#stream.timepoint<immediate>", ImmediateTimepointAttr()),
        ("#foo.bar<{x = [1, 2]}>", OpaqueAttr("#foo.bar<{x = [1, 2]}>")),
        ("affine_map<(d0) -> (d0 + 1)>", OpaqueAttr("affine_map<(d0) -> (d0 + 1)>")),
    ],
)
def test_attribute_values(text: str, value: ir.Attribute) -> None:
    assert attr(text) == value


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        # A dictionary value keeps its i64 type (iree-opt 3.13: `{x = 1 : i64, y = [1, 2]}`);
        # array elements and the op's own syntax elide it.
        ("42 : i64", "42 : i64"),
        ("42", "42 : i64"),
        ("[1, 2 : i64]", "[1, 2]"),
        ("0x1F : i8", "31 : i8"),
        ("1 : i1", "true"),
        ("2.5", "2.500000e+00"),
        ("0.1 : f32", "1.000000e-01 : f32"),
        ("0.3", "3.000000e-01"),
        ("3.14159265358979", "3.14159265358979"),
        ("0x7FC00000 : f32", "0x7FC00000 : f32"),
        ("0x7FF0000000000000 : f64", "0x7FF0000000000000 : f64"),  # hex alone would read as i64
        ("-0.0", "-0.000000e+00"),
        ("{z, a = 1}", "{a = 1 : i64, z}"),
        ('{"quoted key" = 1}', '{"quoted key" = 1 : i64}'),
        ("dense<[1.0, 2.5]> : tensor<2xf32>", "dense<[1.000000e+00, 2.500000e+00]> : tensor<2xf32>"),
        ("dense<[[1,2],[3,4]]> : tensor<2x2xi8>", "dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>"),
        ('dense<"0x0102"> : tensor<2xi8>', 'dense<"0x0102"> : tensor<2xi8>'),
        ("dense<true> : tensor<3xi1>", "dense<true> : tensor<3xi1>"),
        ("array<f32: 1.0, 2.0>", "array<f32: 1.000000e+00, 2.000000e+00>"),
    ],
)
def test_attributes_print_as_mlir_does(text: str, printed: str) -> None:
    op_text = f'"t.x"() {{a = {text}}} : () -> ()'
    out = roundtrip(op_text)
    assert f'"t.x"() {{a = {printed}}} : () -> ()' in out
    assert roundtrip(out) == out


def test_nan_constant_round_trips_by_bit_pattern() -> None:
    value = attr("0x7FC00000 : f32")
    assert isinstance(value, FloatAttr) and math.isnan(value.value)
    assert attr(str(value)) == value


@pytest.mark.parametrize(
    ("raw", "spelled"),
    [
        ("plain", '"plain"'),
        ('say "hi"', '"say \\22hi\\22"'),
        ("back\\slash", '"back\\\\slash"'),
        ("tab\tnewline\n", '"tab\\09newline\\0A"'),
        ("é€", '"\\C3\\A9\\E2\\82\\AC"'),
    ],
)
def test_string_escapes_follow_llvm(raw: str, spelled: str) -> None:
    assert quote_string(raw) == spelled
    assert attr(spelled) == StringAttr(raw)


def test_escape_spellings_mlir_accepts_all_read() -> None:
    assert attr('"a\\"b\\n\\t\\\\"') == StringAttr('a"b\n\t\\')


def test_properties_and_discardable_attributes_stay_apart() -> None:
    op = the_op('"t.x"() <{p = 1 : i32}> {d = 2 : i32} : () -> ()', "t.x")
    assert dict(op.properties) == {"p": IntegerAttr(1, I32)} and dict(op.attributes) == {"d": IntegerAttr(2, I32)}
    assert '"t.x"() <{p = 1 : i32}> {d = 2 : i32} : () -> ()' in roundtrip('"t.x"() <{p = 1 : i32}> {d = 2 : i32} : () -> ()')


def test_inherent_attributes_in_the_discardable_dict_become_properties() -> None:
    # Older MLIR printed inherent attributes in `{...}`; they are read as properties. An
    # attribute the op does not define stays discardable.
    text = """"t.scope"() ({
^bb0(%r: !stream.resource<external>):
  %0 = "stream.resource.size"(%r) {affinity = #hal.device.affinity<@d>, other = 1} : (!stream.resource<external>) -> index
}) : () -> ()"""
    op = the_op(text, "stream.resource.size")
    assert dict(op.properties) == {"affinity": AffinityAttr("d")}
    assert dict(op.attributes) == {"other": IntegerAttr(1)}


# -- types -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("index", INDEX),
        ("i1", I1),
        ("si32", IntegerType(32, "s")),
        ("ui8", IntegerType(8, "u")),
        ("bf16", FloatType("bf16")),
        ("f8E4M3FN", FloatType("f8E4M3FN")),
        ("tensor<4x?xf32>", TensorType((4, None), F32)),
        ("tensor<*xf32>", TensorType(None, F32)),
        ("tensor<f32>", TensorType((), F32)),
        ("!stream.resource<*>", ResourceType(Lifetime.UNKNOWN)),
        ("!stream.resource<staging>", ResourceType(Lifetime.STAGING)),
        ("!hal.buffer_view", OpaqueType("!hal.buffer_view")),
        ("!iree_tensor_ext.dispatch.tensor<readonly:tensor<4xf32>>", OpaqueType("!iree_tensor_ext.dispatch.tensor<readonly:tensor<4xf32>>")),
        ("vector<4xf32>", OpaqueType("vector<4xf32>")),
        ("memref<4x?xf32, strided<[?, 1]>>", OpaqueType("memref<4x?xf32, strided<[?, 1]>>")),
    ],
)
def test_types(text: str, value: ir.Type) -> None:
    op = the_op(f'%0 = "t.x"() : () -> {text}', "t.x")
    assert op.results[0].type == value
    assert f"-> {text}" in roundtrip(f'%0 = "t.x"() : () -> {text}')


def test_function_type_results_in_parentheses_when_several_or_a_function() -> None:
    text = '%0 = "t.x"() {t = () -> (() -> index)} : () -> index'
    assert "{t = () -> (() -> index)}" in roundtrip(text)


def test_tensor_encoding_is_kept() -> None:
    op = the_op('%0 = "t.x"() : () -> tensor<4xf32, #enc.layout<1>>', "t.x")
    t = op.results[0].type
    assert isinstance(t, TensorType) and t.encoding == OpaqueAttr("#enc.layout<1>")
    assert str(t) == "tensor<4xf32, #enc.layout<1>>"


# -- modules ---------------------------------------------------------------------------------------
def test_explicit_module_with_name_and_attributes() -> None:
    text = 'module @m attributes {stream.affinity.default = #hal.device.affinity<@dev0>} {\n  "t.x"() : () -> ()\n}\n'
    module = ir.parse_module(text, "t.mlir")
    assert module.sym_name == "m" and module.attributes["stream.affinity.default"] == AffinityAttr("dev0")
    assert roundtrip(text) == text
    assert roundtrip(text, generic=True).startswith(
        '"builtin.module"() <{sym_name = "m"}> ({\n  "t.x"() : () -> ()\n}) {stream.affinity.default = #hal.device.affinity<@dev0>} : () -> ()'
    )


def test_top_level_ops_without_module_are_wrapped() -> None:
    assert roundtrip('"t.x"() : () -> ()\n"t.y"() : () -> ()') == 'module {\n  "t.x"() : () -> ()\n  "t.y"() : () -> ()\n}\n'


def test_empty_input_is_an_empty_module() -> None:
    assert roundtrip("// only a comment\n") == "module {\n}\n"


def test_split_input_file_keeps_whole_file_line_numbers() -> None:
    text = "// a\n// -----\n// b\n\n// -----  trailing text\nfunc.func @f() {\n  return %x : index\n}\n"
    chunks = ir.split_input_file(text)
    assert [offset for _, offset in chunks] == [0, 2, 5]
    chunk, offset = chunks[2]
    with pytest.raises(ir.DiagnosticError) as info:
        ir.parse_module(chunk, "cases.mlir", offset)
    assert str(info.value).startswith("cases.mlir:7:10: error: use of undefined value '%x'")


def test_print_op_alone_uses_name_hints_for_outside_values() -> None:
    module = ir.parse_module("func.func @f(%a: index) -> index {\n  %s = arith.addi %a, %a : index\n  return %s : index\n}", "t.mlir")
    add = module.ops[0].regions[0].blocks[0].ops[0]
    assert ir.print_op(add) == "%s = arith.addi %a, %a : index"

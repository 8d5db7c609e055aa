"""The Affinity analysis: every rule of its docstring, one test each."""

from __future__ import annotations

import pytest

import stream.ir as ir
from stream.analysis.affinity import InputAffinity, normalize, result_affinity, same_device, value_affinities
from stream.ir.attributes import AffinityAttr, OptimalAttr, PromiseAttr
from stream.ir.diagnostics import DiagnosticError
from stream.ir.walk import functions


def placements(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """(value name -> device it lives on, op result name -> device the op runs on)."""
    module = ir.parse_module(text, "aff.mlir")
    f = functions(module)[0]
    aff = InputAffinity.of(f, module)
    lives = {v.name_hint: a.device for v, a in aff.placement.items() if v.name_hint}
    runs = {op.results[0].name_hint: a.device for op, a in aff.execution.items() if op.results and op.results[0].name_hint}
    return lives, runs


def test_explicit_function_module_and_default() -> None:
    lives, runs = placements("""
module attributes {stream.affinity.default = #hal.device.affinity<@mod>} {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = flow.dispatch @relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = flow.dispatch @relu(%a) {stream.affinity = #hal.device.affinity<@own>} : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
}""")
    assert runs == {"a": "mod", "b": "own"}
    _, runs = placements("""
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {stream.affinity = #hal.device.affinity<@fn>} {
  %a = flow.dispatch @relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}""")
    assert runs == {"a": "fn"}
    lives, runs = placements("""
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = flow.dispatch @relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}""")
    assert runs == {"a": "dev0"} and lives == {"x": "dev0", "a": "dev0"}


def test_transfers_and_data_access_follow_the_data() -> None:
    lives, runs = placements("""
func.func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = flow.dispatch @relu(%x) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = flow.tensor.transfer %a : tensor<4x4xf32> to #hal.device.promise<@dev2>
  %s = flow.tensor.slice %t[%c0, %c0 for %c1, %c1] : tensor<4x4xf32> -> tensor<1x1xf32>
  %u = flow.tensor.update %s, %a[%c1, %c1] : tensor<1x1xf32> -> %a as tensor<4x4xf32>
  return %u : tensor<4x4xf32>
}""")
    assert runs["t"] == "dev1" and lives["t"] == "dev2"  # runs where its operand lives, result on its target
    assert runs["s"] == "dev2"  # a slice reads where the data is
    assert runs["u"] == "dev1"  # an update writes its target where it lives (%s will move)


def test_creators_go_where_their_consumers_need_them() -> None:
    lives, runs = placements("""
func.func @f(%x: tensor<2xf32>, %y: tensor<2xf32>, %z: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %one = arith.constant 1.0 : f32
  %s = flow.tensor.splat %one : tensor<2xf32>
  %k = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %e = flow.tensor.empty : tensor<2xf32>
  %a = flow.dispatch @add(%x, %s) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = flow.dispatch @add(%k, %y) {stream.affinity = #hal.device.affinity<@dev2>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %c = flow.dispatch @add(%k, %y) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %t = flow.tensor.transfer %e : tensor<2xf32> to #hal.device.affinity<@dev3>
  return %a, %t : tensor<2xf32>, tensor<2xf32>
}""")
    assert runs["s"] == "dev1" and lives["x"] == "dev1"  # one consumer device: go there
    assert runs["k"] == "dev0" and lives["y"] == "dev0"  # consumers disagree: the fallback
    assert runs["e"] == "dev3"  # a transfer needs its target
    assert lives["z"] == "dev0"  # unused: the fallback


def test_followers_pass_on_their_consumers_needs() -> None:
    lives, runs = placements("""
func.func @f(%x: tensor<4xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %s = flow.tensor.slice %x[%c0 for %c2] : tensor<4xf32> -> tensor<2xf32>
  %c = flow.tensor.clone %s : tensor<2xf32>
  %a = flow.dispatch @relu(%c) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<2xf32>) -> tensor<2xf32>
  return %a : tensor<2xf32>
}""")
    assert lives["x"] == "dev1" and runs["s"] == "dev1" and runs["c"] == "dev1"


def test_argument_and_result_attributes() -> None:
    lives, _ = placements("""
func.func @f(%x: tensor<2xf32> {iree.abi.affinity = #hal.device.promise<@dev4>}, %y: tensor<2xf32>) -> (tensor<2xf32> {iree.abi.affinity = #hal.device.affinity<@dev5>}) {
  %e = flow.tensor.empty : tensor<2xf32>
  %a = flow.dispatch @add(%x, %y) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %e : tensor<2xf32>
}""")
    assert lives["x"] == "dev4" and lives["y"] == "dev1" and lives["e"] == "dev5"


def test_optimal_is_not_a_placement() -> None:
    with pytest.raises(DiagnosticError, match="not a device placement"):
        placements("""
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = flow.dispatch @relu(%x) {stream.affinity = #hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>]>} : (tensor<2xf32>) -> tensor<2xf32>
  return %a : tensor<2xf32>
}""")


def test_attribute_helpers() -> None:
    assert normalize(PromiseAttr("d", (1,))) == AffinityAttr("d", (1,))
    assert same_device(AffinityAttr("d", (0,)), AffinityAttr("d", (1,)))  # queues share memory
    assert not same_device(AffinityAttr("d"), AffinityAttr("e"))
    with pytest.raises(ValueError):
        normalize(OptimalAttr((AffinityAttr("a"),)))


def test_stream_level_result_affinity() -> None:
    module = ir.parse_module("""
util.func public @f(%arg0: !stream.resource<external>) -> !stream.resource<external> {
  %c16 = arith.constant 16 : index
  %0 = stream.async.transfer on(#hal.device.affinity<@a>) %arg0 : !stream.resource<external>{%c16} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@b>) !stream.resource<external>{%c16}
  %1 = stream.async.clone on(#hal.device.affinity<@b>) %0 : !stream.resource<external>{%c16} -> !stream.resource<external>{%c16}
  util.return %1 : !stream.resource<external>
}""", "s.mlir")
    f = functions(module)[0]
    transfer, clone = f.body.ops[1], f.body.ops[2]
    assert result_affinity(transfer) == AffinityAttr("b")
    assert value_affinities(f.body) == {transfer.results[0]: AffinityAttr("b"), clone.results[0]: AffinityAttr("b")}

"""ResourceUsage (usage bits -> lifetime, classes, conflicts) and the storage and last-use analyses."""

from __future__ import annotations

import pytest

import stream.ir as ir
from stream.analysis.last_use import END, LastUse
from stream.analysis.resource_usage import ResourceUsage, Usage, lifetime_for
from stream.analysis.storage import Root, StorageInfo
from stream.ir.types import Lifetime
from stream.ir.walk import functions

U = Usage


@pytest.mark.parametrize(
    ("bits", "lifetime"),
    [
        (U.GLOBAL_STORAGE | U.CONSTANT | U.EXTERNAL, Lifetime.CONSTANT),  # rule 1 first
        (U.EXTERNAL | U.STAGING_READ, Lifetime.EXTERNAL),  # rule 2 before staging
        (U.INDIRECT | U.DISPATCH_READ, Lifetime.EXTERNAL),
        (U.STAGING_WRITE | U.CONSTANT, Lifetime.STAGING),  # rule 3 before constant
        (U.CONSTANT | U.DISPATCH_READ, Lifetime.CONSTANT),
        (U.GLOBAL_READ, Lifetime.CONSTANT),  # rule 5, never written
        (U.GLOBAL_READ | U.DISPATCH_WRITE, Lifetime.VARIABLE),
        (U.DISPATCH_READ | U.DISPATCH_WRITE | U.MUTATED | U.TRANSFER_READ, Lifetime.TRANSIENT),
        (U.NONE, Lifetime.TRANSIENT),
    ],
)
def test_lifetime_order(bits: Usage, lifetime: Lifetime) -> None:
    assert lifetime_for(bits) is lifetime


PROGRAM = """
util.func public @f(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !stream.resource<*>) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1_i32 = arith.constant 1 : i32
  %b = stream.tensor.import on(#hal.device.affinity<@d>) %arg0 : !hal.buffer_view -> tensor<2xi32> in !stream.resource<external>{%c8}
  %bc = stream.async.cast on(#hal.device.affinity<@d>) %b : !stream.resource<external>{%c8} -> !stream.resource<*>{%c8}
  %o = stream.tensor.import on(#hal.device.affinity<@d>) consume %arg1 : !hal.buffer_view -> tensor<2xi32> in !stream.resource<external>{%c8}
  %k = stream.async.constant on(#hal.device.affinity<@d>) : !stream.resource<*>{%c8} = dense<[1, 2]> : tensor<2xi32>
  %s = stream.async.splat on(#hal.device.affinity<@d>) %c1_i32 : i32 -> !stream.resource<*>{%c8}
  %f1 = stream.async.fill on(#hal.device.affinity<@d>) %c1_i32, %s[%c0 to %c8 for %c8] : i32 -> %s as !stream.resource<*>{%c8}
  %d = stream.async.dispatch on(#hal.device.affinity<@d>) @add(%bc[%c0 to %c8 for %c8], %f1[%c0 to %c8 for %c8], %k[%c0 to %c8 for %c8], %arg2[%c0 to %c8 for %c8]) : (!stream.resource<*>{%c8}, !stream.resource<*>{%c8}, !stream.resource<*>{%c8}, !stream.resource<*>{%c8}) -> %f1{%c8}
  %st = stream.async.transfer on(#hal.device.affinity<@d>) %d : !stream.resource<*>{%c8} from(#hal.device.affinity<@d>) -> to(#hal.device.affinity<@d>) !stream.resource<staging>{%c8}
  %v = stream.async.load %st[%c0] : !stream.resource<staging>{%c8} -> i32
  %ld = stream.async.load %k[%c0] : !stream.resource<*>{%c8} -> i32
  %x = stream.async.cast on(#hal.device.affinity<@d>) %d : !stream.resource<*>{%c8} -> !stream.resource<external>{%c8}
  %e = stream.tensor.export on(#hal.device.affinity<@d>) %x : tensor<2xi32> in !stream.resource<external>{%c8} -> !hal.buffer_view
  util.return %e : !hal.buffer_view
}
"""


def values() -> tuple[object, dict[str, object]]:
    f = functions(ir.parse_module(PROGRAM, "usage.mlir"))[0]
    named = {v.name_hint: v for op in f.body.ops for v in op.results if v.name_hint}
    named.update({a.name_hint or f"arg{i}": a for i, a in enumerate(f.arguments)})
    return f, named


def test_classes_and_lifetimes() -> None:
    f, v = values()
    usage = ResourceUsage.of(f.body)  # type: ignore[attr-defined]
    assert usage.find(v["bc"]) is usage.find(v["b"])  # a cast joins its operand's class
    assert usage.find(v["s"]) is usage.find(v["f1"]) is usage.find(v["d"]) is usage.find(v["x"])  # ties
    assert usage.lifetime(v["bc"]) is Lifetime.EXTERNAL  # the import's lifetime is fixed
    assert usage.lifetime(v["d"]) is Lifetime.EXTERNAL  # written in place, then exported
    assert usage.lifetime(v["k"]) is Lifetime.CONSTANT
    assert usage.lifetime(v["st"]) is Lifetime.STAGING
    assert usage.lifetime(v["arg2"]) is Lifetime.EXTERNAL  # crosses the function boundary


def test_conflicts() -> None:
    f, v = values()
    usage = ResourceUsage.of(f.body)  # type: ignore[attr-defined]
    found = [(c.op.name, c.index, c.lifetime) for c in usage.conflicts(f.body)]  # type: ignore[attr-defined]
    # The host loads a constant (not staging); everything else is legal.
    assert found == [("stream.async.load", 0, Lifetime.CONSTANT)]


def test_storage_roots_aliases_and_mutation() -> None:
    f, v = values()
    storage = StorageInfo.of(f.body)  # type: ignore[attr-defined]
    assert storage.root(v["bc"]) is Root.BORROWED  # through the cast
    assert storage.root(v["o"]) is Root.OWNED
    assert storage.root(v["k"]) is Root.CONSTANT
    assert storage.root(v["arg2"]) is Root.ARGUMENT
    assert storage.root(v["d"]) is Root.FRESH and storage.base_of(v["d"]) is v["s"]
    assert set(storage.alias_set(v["d"])) == {v["d"], v["x"]}
    assert set(storage.forward(v["s"])) == {v["s"], v["f1"], v["d"], v["x"]}
    assert storage.is_mutated(v["s"]) and storage.is_mutated(v["f1"])
    assert not storage.is_mutated(v["d"]) and not storage.is_mutated(v["k"])
    assert storage.sizes[v["d"]].name_hint == "c8"


def test_last_use() -> None:
    f, v = values()
    last = LastUse.of(f.body)  # type: ignore[attr-defined]
    ops = {op.results[0].name_hint: op for op in f.body.ops if op.results and op.results[0].name_hint}
    assert last.last_use(v["d"]) == END  # exported (through the cast): read when the function returns
    assert last.is_last_user(v["f1"], ops["d"])
    assert not last.is_last_user(v["k"], ops["d"])  # loaded afterwards
    assert last.only_user(v["s"], ops["f1"])
    assert last.last_use(v["ld"]) == -1

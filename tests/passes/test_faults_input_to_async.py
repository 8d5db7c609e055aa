"""Fault injection: a deliberately broken variant of each of convert-to-stream .. refine-usage
must be rejected by the pipeline with verification, with the right class, naming that pass."""

from __future__ import annotations

import pytest

import stream.ir as ir
from stream.passes import PassVerificationError, parse_pipeline, run_pipeline
from stream.passes import convert_to_stream as cts
from stream.passes import elide_async_copies as elide
from stream.passes import encode_tensors as enc
from stream.passes import materialize_copy_on_write as cow
from stream.passes import refine_usage as refine
from verify.hook import make_hook

PIPELINE = "convert-to-stream,encode-tensors,materialize-copy-on-write,elide-async-copies,refine-usage"




def rejected(text: str) -> PassVerificationError:
    with pytest.raises(PassVerificationError) as info:
        run_pipeline(ir.parse_module(text, "fault.mlir"), parse_pipeline(PIPELINE), hook=make_hook())
    return info.value


def classes(error: PassVerificationError) -> set[str]:
    return {v.cls for v in error.report.errors}


TWO_DEVICES = """
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = flow.dispatch @relu(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %b = flow.dispatch @tanh(%a) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<8xf32>) -> tensor<8xf32>
  return %b : tensor<8xf32>
}
"""


def test_the_correct_passes_verify() -> None:
    for text in (TWO_DEVICES, SLICE, IN_PLACE_ON_ARGUMENT, FORK, SAME_DEVICE_TRANSFER):
        run_pipeline(ir.parse_module(text, "ok.mlir"), parse_pipeline(PIPELINE), hook=make_hook())


def test_convert_to_stream_without_transfers(monkeypatch: pytest.MonkeyPatch) -> None:
    # Broken: a value is used on another device than where it lives, without a transfer.
    monkeypatch.setattr(cts._FunctionConverter, "use", lambda self, old, device, op: self.get(old, op))
    error = rejected(TWO_DEVICES)
    assert error.pass_name == "convert-to-stream"
    assert "AFFINITY_MISMATCH" in classes(error)


SLICE = """
func.func @main(%x: tensor<4x4xf32>) -> tensor<1x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %s = flow.tensor.slice %x[%c2, %c0 for %c1, %c4] : tensor<4x4xf32> -> tensor<1x4xf32>
  %y = flow.dispatch @relu(%s) : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}
"""


def test_encode_tensors_with_element_offsets_as_byte_offsets(monkeypatch: pytest.MonkeyPatch) -> None:
    # Broken: forgets to scale element offsets by the element width (reads the wrong bytes).
    original = enc._Encoder.offset

    def offset(self, op, t, dims, indices):  # type: ignore[no-untyped-def]
        linear = original(self, op, t, dims, indices)
        width = self.width(op, t)
        known = self.b.constant_value(linear)
        return self.b.index(known // width) if known is not None else linear

    monkeypatch.setattr(enc._Encoder, "offset", offset)
    error = rejected(SLICE)
    assert error.pass_name == "encode-tensors"
    assert "VALUE_MISMATCH" in classes(error)


FORK = """
func.func @main(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = flow.dispatch @relu(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %b = flow.dispatch @tanh(%a) : (tensor<8xf32>) -> %a
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
"""


IN_PLACE_ON_ARGUMENT = """
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = flow.dispatch @relu(%x) : (tensor<8xf32>) -> %x
  return %y : tensor<8xf32>
}
"""


def test_copy_on_write_that_never_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    # Broken: %b is computed in place in %a's storage although %a is returned too.
    monkeypatch.setattr(cow, "needs_copy", lambda *args: None)
    error = rejected(FORK)
    assert error.pass_name == "materialize-copy-on-write"
    # The in-place write of %b races with the export that reads %a.
    assert classes(error) == {"RACE_WRITE_AFTER_READ"}


ON_DEV1 = """
func.func @main(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = flow.dispatch @relu(%x) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<8xf32>) -> tensor<8xf32>
  %b = flow.dispatch @tanh(%a) {stream.affinity = #hal.device.affinity<@dev1>} : (tensor<8xf32>) -> %a
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
"""


def test_copy_on_write_that_copies_on_the_wrong_device(monkeypatch: pytest.MonkeyPatch) -> None:
    # Broken: the protective clone of %a (which lives on @dev1 and is written in place there)
    # runs on @dev0, reading @dev1 memory without a transfer.
    from stream.ir.attributes import AffinityAttr

    run_pipeline(ir.parse_module(ON_DEV1, "ok.mlir"), parse_pipeline(PIPELINE), hook=make_hook())

    def clone_on_dev0(self, op, value, size):  # type: ignore[no-untyped-def]
        clone = self.b.create("stream.async.clone", {"source": value, "source_size": size, "result_size": size},
                              {"result": value.type}, {"affinity": AffinityAttr("dev0")}, location=op.location)
        self.roots[clone.results[0]] = cow.Root.FRESH
        return clone.results[0]

    monkeypatch.setattr(cow._Materializer, "_clone", clone_on_dev0)
    error = rejected(ON_DEV1)
    assert error.pass_name == "materialize-copy-on-write"
    assert classes(error) == {"AFFINITY_MISMATCH"}


def test_elide_async_copies_that_drops_a_needed_clone(monkeypatch: pytest.MonkeyPatch) -> None:
    # Broken: every clone counts as unobservable, so %b's in-place write clobbers %a.
    monkeypatch.setitem(elide._SAFETY, "stream.async.clone", lambda op, a: True)
    error = rejected(FORK)
    assert error.pass_name == "elide-async-copies"
    assert classes(error) == {"RACE_WRITE_AFTER_READ"}


SAME_DEVICE_TRANSFER = """
func.func @main(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = flow.dispatch @relu(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %t = flow.tensor.transfer %a : tensor<8xf32> to #hal.device.affinity<@dev0>
  %w = flow.dispatch @tanh(%t) : (tensor<8xf32>) -> %t
  return %a, %w : tensor<8xf32>, tensor<8xf32>
}
"""


def test_refine_usage_that_drops_a_protective_transfer(monkeypatch: pytest.MonkeyPatch) -> None:
    # Broken: after refinement, every same-device transfer between equal lifetimes is dropped,
    # although %w writes the copy in place while %a is still returned.
    def drop_all(block, kinds):  # type: ignore[no-untyped-def]
        saved = elide._SAFETY["stream.async.transfer"]
        elide._SAFETY["stream.async.transfer"] = lambda op, a: op.operands[0].type == op.results[0].type
        try:
            return elide.elide_block(block, kinds)
        finally:
            elide._SAFETY["stream.async.transfer"] = saved

    monkeypatch.setattr(refine, "elide_block", drop_all)
    error = rejected(SAME_DEVICE_TRANSFER)
    assert error.pass_name == "refine-usage"
    assert classes(error) == {"RACE_WRITE_AFTER_READ"}
